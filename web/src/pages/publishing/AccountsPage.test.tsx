import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { AppConfig } from '../../app/AppConfig';
import AccountsPage from './AccountsPage';

const me = vi.hoisted(() => ({ actions: [] as string[] }));
vi.mock('../../app/session', () => ({ useMe: () => ({ data: { allowed_actions: me.actions } }) }));
const notify = vi.hoisted(() => ({ success: vi.fn() }));
vi.mock('../../app/notify', () => ({ notifySuccess: notify.success, notifyError: vi.fn(), notifyFailure: vi.fn() }));
const remove = vi.hoisted(() => vi.fn());
vi.mock('../../api/endpoints', () => ({
  api: {
    accounts: {
      list: async () => ({
        items: [
          { id: 3, name: '小美的日常', profile_url: null, persona: '学生党平价护肤', daily_cap: 2, min_gap_minutes: 180, timezone: 'Asia/Shanghai', active: true },
        ],
        total: 1,
        page: 1,
        page_size: 100,
      }),
      remove,
      update: vi.fn(),
    },
  },
}));

function renderPage() {
  render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <AccountsPage />
      </QueryClientProvider>
    </AppConfig>,
  );
}

describe('accounts', () => {
  beforeEach(() => {
    remove.mockReset();
    notify.success.mockReset();
  });

  it('says when deleting only deactivated an account that has posts', async () => {
    me.actions = ['accounts.manage', 'posts.write'];
    remove.mockResolvedValue({ deleted: false, deactivated: true });
    renderPage();
    const card = await screen.findByTestId('account-3');
    fireEvent.click(within(card).getByRole('button', { name: /^删\s*除$/ }));
    fireEvent.click(await screen.findByRole('button', { name: /^确\s*定$/ }));
    await waitFor(() => expect(remove).toHaveBeenCalledWith(3));
    await waitFor(() => expect(notify.success).toHaveBeenCalledWith('账号「小美的日常」已有排期，已停用而未删除'));
  });

  it('shows no write controls without accounts.manage', async () => {
    me.actions = ['posts.write'];
    renderPage();
    const card = await screen.findByTestId('account-3');
    expect(within(card).getByText('每天至多 2 篇 · 间隔至少 180 分钟')).toBeTruthy();
    expect(within(card).queryByRole('button')).toBeNull();
    expect(screen.queryByRole('button', { name: '添加账号' })).toBeNull();
  });
});
