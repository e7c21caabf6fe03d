import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { ApiError } from '../../api/client';
import { AppConfig } from '../../app/AppConfig';
import { ScheduleDialog } from './ScheduleDialog';

const me = vi.hoisted(() => ({ actions: [] as string[] }));
vi.mock('../../app/session', () => ({ useMe: () => ({ data: { allowed_actions: me.actions } }) }));
const create = vi.hoisted(() => vi.fn());
vi.mock('../../api/endpoints', () => ({
  api: {
    accounts: {
      list: async () => ({
        items: [{ id: 3, name: '小美的日常', active: true, daily_cap: 2, min_gap_minutes: 180, timezone: 'Asia/Shanghai' }],
        total: 1,
        page: 1,
        page_size: 100,
      }),
    },
    posts: { create },
  },
}));

const nearDuplicate = () => new ApiError(409, 40900, 'near duplicate', 'post.near_duplicate', { similarity: 87, post_id: 12, title: '旧笔记' });

function renderDialog(onClose = vi.fn()) {
  render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <MemoryRouter>
          <ScheduleDialog source={{ task_id: 7, strategy: 'B' }} onClose={onClose} />
        </MemoryRouter>
      </QueryClientProvider>
    </AppConfig>,
  );
  return onClose;
}

async function submit() {
  await screen.findByText('小美的日常');
  fireEvent.click(screen.getByRole('button', { name: /^排\s*期$/ }));
}

describe('the schedule dialog', () => {
  beforeEach(() => create.mockReset());

  it('lets a supervisor schedule a near-duplicate anyway, retrying with force', async () => {
    me.actions = ['posts.write', 'posts.force'];
    create.mockRejectedValueOnce(nearDuplicate()).mockResolvedValueOnce({ id: 40, account_name: '小美的日常', scheduled_at: '2026-11-29T02:00:00.000Z' });
    const onClose = renderDialog();
    await submit();
    const alert = await screen.findByTestId('schedule-error');
    expect(alert.textContent).toContain('与排期 #12「旧笔记」高度相似（87%）');
    const first = create.mock.calls[0]![0] as Record<string, unknown>;
    expect(first).toMatchObject({ account_id: 3, task_id: 7, strategy: 'B' });
    expect(first.force).toBeUndefined();

    fireEvent.click(screen.getByRole('button', { name: '仍然排期' }));
    await waitFor(() => expect(create).toHaveBeenCalledTimes(2));
    expect(create.mock.calls[1]![0]).toEqual({ ...first, force: true });
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it('shows the reason but no force button to an operator', async () => {
    me.actions = ['posts.write'];
    create.mockRejectedValueOnce(nearDuplicate());
    renderDialog();
    await submit();
    expect((await screen.findByTestId('schedule-error')).textContent).toContain('高度相似');
    expect(screen.queryByRole('button', { name: '仍然排期' })).toBeNull();
  });
});
