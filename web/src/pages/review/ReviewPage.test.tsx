import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it, vi } from 'vitest';
import { AppConfig } from '../../app/AppConfig';
import type { ReviewItem } from '../../api/types';
import '../../i18n';
import ReviewPage from './ReviewPage';

const score = { title: 20, emotion: 20, selling: 20, keyword: 10, compliance: 15, total: 85 };
const text = {
  candidate_id: 11,
  angle_label: 'x',
  strategy: 'A' as const,
  title: '通勤保温杯',
  content: '第一行\n这杯子最好用了\n第三行',
  tags: ['保温杯'],
  cover_title: '封面',
  image_brief: '',
  source: 'import' as const,
  score,
  banned_word_status: 'soft_warn' as const,
  is_selected: true,
  verdict: '',
  summary: '',
  edited: true,
  banned_hits: [{ field: 'content' as const, tag_index: null, start: 7, end: 9, word: '最好', level: 'soft_warn' as const }],
};
const item = {
  task_id: 5,
  theme: '秋冬',
  product_name: '保温杯',
  operator_name: 'op',
  submitted_at: '2026-11-28T10:00:00.000Z',
  providers: {},
  submit_note: '按意见改了第二行',
  previous_rejection: {
    reason: '第二行太夸张',
    final: false,
    username: 'sup',
    created_at: '2026-11-27T10:00:00.000Z',
    texts: [{ strategy: 'A', title: '通勤保温杯', content: '第一行\n这杯子天下第一\n第三行', tags: ['保温杯'], cover_title: '封面', score_total: 70 }],
  },
  open_comments: 0,
  selected_text: text,
  selected_image: null,
  selected_sets: [{ strategy: 'A', selected_text: text, selected_images: [] }],
} as unknown as ReviewItem;

const state = vi.hoisted(() => ({ items: [] as ReviewItem[] }));
const calls = vi.hoisted(() => ({ approve: vi.fn(), reject: vi.fn() }));
vi.mock('../../api/endpoints', () => ({
  api: {
    auth: { me: async () => ({ id: 1, role: 'supervisor', allowed_actions: ['review.decide'] }) },
    review: {
      queue: async () => ({ items: state.items, total: state.items.length, page: 1, page_size: 20 }),
      approve: async (id: number) => {
        calls.approve(id);
        state.items = [];
        return {};
      },
      reject: async (...a: unknown[]) => {
        calls.reject(...a);
        state.items = [];
        return {};
      },
    },
    comments: { list: async () => ({ items: [] }), add: vi.fn(), resolve: vi.fn(), remove: vi.fn() },
  },
}));
const notified = vi.hoisted(() => ({ success: [] as string[] }));
vi.mock('../../app/notify', () => ({ notifySuccess: (text: string) => notified.success.push(text), notifyError: vi.fn(), notifyFailure: vi.fn() }));
vi.mock('../../app/session', () => ({ useMe: () => ({ data: { id: 1, role: 'supervisor', allowed_actions: [] } }) }));

function show() {
  state.items = [item];
  render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <MemoryRouter>
          <ReviewPage />
        </MemoryRouter>
      </QueryClientProvider>
    </AppConfig>,
  );
}

describe('the review desk', () => {
  it('shows the note, the last rejection with its reviewer, the diff and the marked word', async () => {
    show();
    expect(await screen.findByText('按意见改了第二行')).toBeTruthy();
    expect(screen.getByText('第二行太夸张')).toBeTruthy();
    expect(screen.getByText(/sup 于/)).toBeTruthy();
    const diff = screen.getByTestId('diff-content-A');
    expect(diff.querySelector('ins')?.textContent).toContain('最好');
    expect(diff.querySelector('del')?.textContent).toContain('天下第一');
    expect(screen.getByTestId('diff-title-A').textContent).toBe('未改动');
    const mark = screen.getByTestId('review-body-A').querySelector('mark');
    expect(mark?.textContent).toBe('最好');
    expect(mark?.dataset.level).toBe('soft_warn');
    expect(screen.getByText('慎用词「最好」')).toBeTruthy();
  });

  it('picks a clicked line as the comment target', async () => {
    show();
    const lines = await screen.findAllByTestId('review-line');
    fireEvent.click(lines[1]!);
    expect(screen.getByTestId('comment-target').textContent).toContain('A 组正文第 2 行');
  });

  it('approves only after confirming, then the task leaves the queue with a message', async () => {
    show();
    fireEvent.click(await screen.findByTestId('review-approve'));
    expect(calls.approve).not.toHaveBeenCalled();
    fireEvent.click(await screen.findByRole('button', { name: '确认通过' }));
    await waitFor(() => expect(calls.approve).toHaveBeenCalledWith(5));
    await waitFor(() => expect(notified.success).toContain('任务 #5 已通过，已移出队列'));
    await waitFor(() => expect(screen.queryByTestId('review-item')).toBeNull());
  });

  it('rejects only with a reason', async () => {
    show();
    fireEvent.click(await screen.findByTestId('review-reject'));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: /驳\s*回/ }));
    expect(await screen.findByText('请填写驳回原因')).toBeTruthy();
    expect(calls.reject).not.toHaveBeenCalled();
    fireEvent.change(within(dialog).getByLabelText('驳回原因'), { target: { value: '标题太长' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /驳\s*回/ }));
    await waitFor(() => expect(calls.reject).toHaveBeenCalledWith(5, '标题太长', false));
    await waitFor(() => expect(notified.success).toContain('任务 #5 已驳回，已移出队列，运营会看到原因'));
    await waitFor(() => expect(screen.queryByTestId('review-item')).toBeNull());
  });
});
