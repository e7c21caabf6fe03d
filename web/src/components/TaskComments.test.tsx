import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { AppConfig } from '../app/AppConfig';
import type { TaskComment } from '../api/types';
import '../i18n';
import { TaskComments } from './TaskComments';

const state = vi.hoisted(() => ({ items: [] as TaskComment[] }));
const calls = vi.hoisted(() => ({ add: vi.fn(), resolve: vi.fn(), remove: vi.fn() }));
vi.mock('../api/endpoints', () => ({
  api: {
    auth: { me: async () => ({ id: 7, role: 'supervisor', allowed_actions: [] }) },
    comments: {
      list: async () => ({ items: state.items }),
      add: async (...a: unknown[]) => calls.add(...a),
      resolve: async (...a: unknown[]) => calls.resolve(...a),
      remove: async (...a: unknown[]) => calls.remove(...a),
    },
  },
}));
vi.mock('../app/session', () => ({ useMe: () => ({ data: { id: 7, role: 'supervisor' } }) }));

function comment(over: Partial<TaskComment>): TaskComment {
  return {
    id: 1,
    task_id: 5,
    author_id: 7,
    author_name: 'sup',
    anchor: { kind: 'task' },
    quote: null,
    body: '整体不错',
    resolved: false,
    resolved_at: null,
    resolved_by: null,
    created_at: '2026-11-28T10:00:00.000Z',
    ...over,
  };
}

function show(props: Partial<Parameters<typeof TaskComments>[0]> = {}) {
  render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <TaskComments taskId={5} {...props} />
      </QueryClientProvider>
    </AppConfig>,
  );
}

describe('TaskComments', () => {
  it('lists open comments first and resolved ones behind their tab, with the anchor and the quoted line', async () => {
    state.items = [
      comment({ id: 1, body: '第二行太夸张', anchor: { kind: 'text', candidate_id: 11, line: 2 }, quote: '保温一整天' }),
      comment({ id: 2, body: '已经改好', resolved: true }),
    ];
    show();
    expect(await screen.findByText('第二行太夸张')).toBeTruthy();
    expect(screen.getByText('正文第 2 行')).toBeTruthy();
    expect(screen.getByText('保温一整天')).toBeTruthy();
    expect(screen.queryByText('已经改好')).toBeNull();
    fireEvent.click(screen.getByText('已解决 1'));
    expect(await screen.findByText('已经改好')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '重新打开' }));
    await waitFor(() => expect(calls.resolve).toHaveBeenCalledWith(5, 2, false));
  });

  it('resolves an open comment', async () => {
    state.items = [comment({ id: 3 })];
    show();
    fireEvent.click(await screen.findByRole('button', { name: '标为已解决' }));
    await waitFor(() => expect(calls.resolve).toHaveBeenCalledWith(5, 3, true));
  });

  it('sends a comment on the picked line, and asks for a body first', async () => {
    state.items = [];
    const onClear = vi.fn();
    show({ target: { kind: 'text', candidate_id: 11, line: 3 }, targetLabel: 'A 组正文第 3 行', onClearTarget: onClear });
    expect(await screen.findByText('A 组正文第 3 行')).toBeTruthy();
    fireEvent.click(screen.getByTestId('comment-send'));
    expect(await screen.findByText('请填写评论内容')).toBeTruthy();
    expect(calls.add).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText('评论内容'), { target: { value: ' 这一行删掉 ' } });
    fireEvent.click(screen.getByTestId('comment-send'));
    await waitFor(() => expect(calls.add).toHaveBeenCalledWith(5, { body: '这一行删掉', anchor: { kind: 'text', candidate_id: 11, line: 3 } }));
    await waitFor(() => expect(onClear).toHaveBeenCalled());
  });

  it('comments on the task when nothing is picked', async () => {
    state.items = [];
    calls.add.mockClear();
    show();
    expect(await screen.findByText('没有未解决的评论')).toBeTruthy();
    expect(screen.getByTestId('comment-target').textContent).toContain('整个任务');
    fireEvent.change(screen.getByLabelText('评论内容'), { target: { value: '封面再亮一点' } });
    fireEvent.click(screen.getByTestId('comment-send'));
    await waitFor(() => expect(calls.add).toHaveBeenCalledWith(5, { body: '封面再亮一点' }));
  });
});
