import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import dayjs from 'dayjs';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { ApiError } from '../../api/client';
import type { Post } from '../../api/types';
import { AppConfig } from '../../app/AppConfig';
import CalendarPage, { monthGrid, moveConflict, weekStartOf } from './CalendarPage';

vi.mock('../../app/session', () => ({ useMe: () => ({ data: { allowed_actions: ['posts.write'] } }) }));
const calls = vi.hoisted(() => ({ list: [] as unknown[], update: vi.fn(), cancel: vi.fn(), posts: [] as Post[] }));
vi.mock('../../api/endpoints', () => ({
  api: {
    accounts: {
      list: async () => ({
        items: [
          { id: 1, name: '小美的日常', active: true, daily_cap: 2, min_gap_minutes: 0, timezone: 'Asia/Shanghai' },
          { id: 2, name: '通勤号', active: true, daily_cap: 2, min_gap_minutes: 0, timezone: 'Asia/Shanghai' },
        ],
        total: 2,
        page: 1,
        page_size: 100,
      }),
    },
    posts: {
      list: async (query: unknown) => {
        calls.list.push(query);
        return { items: calls.posts, total: calls.posts.length, page: 1, page_size: 100 };
      },
      update: calls.update,
      cancel: calls.cancel,
    },
  },
}));

function post(id: number, at: dayjs.Dayjs, over: Partial<Post> = {}): Post {
  return {
    id,
    account_id: 1,
    account_name: '小美的日常',
    status: 'scheduled',
    scheduled_at: at.toISOString(),
    due_at: null,
    missed_at: null,
    published_at: null,
    note_url: null,
    source: { task_id: 7, strategy: 'A' },
    product_id: 1,
    angle_label: null,
    title: `笔记 ${id}`,
    cover_url: null,
    warnings: [],
    latest_metrics: null,
    created_by: 1,
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
    ...over,
  };
}

describe('the publishing calendar (phone agenda)', () => {
  it('asks for the visible week, groups posts by day in time order, and words a refused move', async () => {
    const monday = weekStartOf(dayjs());
    calls.posts = [post(2, monday.add(2, 'day').hour(18)), post(1, monday.add(2, 'day').hour(9)), post(3, monday.add(4, 'day').hour(12), { status: 'published' })];
    calls.update.mockRejectedValue(new ApiError(409, 40900, 'cap', 'post.daily_cap', { account: '小美的日常', day: '2026-12-02', cap: 2, post_id: 9 }));
    render(
      <AppConfig>
        <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
          <MemoryRouter>
            <CalendarPage />
          </MemoryRouter>
        </QueryClientProvider>
      </AppConfig>,
    );
    const cards = await screen.findAllByTestId('calendar-post');
    expect(cards.map((c) => c.textContent?.match(/笔记 \d/)?.[0])).toEqual(['笔记 1', '笔记 2', '笔记 3']);
    expect(calls.list[0]).toMatchObject({ from: monday.toISOString(), to: monday.add(7, 'day').toISOString() });
    expect(within(cards[2]!).getByTestId('post-status').textContent).toBe('已发布');

    fireEvent.click(cards[0]!);
    const drawer = await screen.findByRole('dialog');
    expect(within(drawer).getByRole('link', { name: '打开发布包' }).getAttribute('href')).toBe('/posts/1/kit');
    fireEvent.click(within(drawer).getByRole('button', { name: /^改\s*期$/ }));
    fireEvent.click(await within(drawer).findByRole('button', { name: '保存改期' }));
    expect((await within(drawer).findByTestId('post-error')).textContent).toBe('账号「小美的日常」在 2026-12-02 已排 2 篇（每日上限），与排期 #9 冲突');
    await waitFor(() => expect(calls.update).toHaveBeenCalledWith(1, { scheduled_at: calls.posts[1]!.scheduled_at, account_id: 1 }));
  });
});

describe('the publishing calendar (desk week)', () => {
  it('shows seven day columns and moves a dropped post to the new day at the same time', async () => {
    const original = window.matchMedia;
    // Every breakpoint matches: a desk-wide window.
    window.matchMedia = ((query: string) => ({ ...original(query), matches: true })) as typeof window.matchMedia;
    try {
      const monday = weekStartOf(dayjs());
      calls.posts = [post(1, monday.add(1, 'day').hour(9).minute(30)), post(2, monday.add(1, 'day').hour(11), { status: 'published' })];
      calls.update.mockReset().mockResolvedValue(calls.posts[0]);
      render(
        <AppConfig>
          <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
            <MemoryRouter>
              <CalendarPage />
            </MemoryRouter>
          </QueryClientProvider>
        </AppConfig>,
      );
      const grid = await screen.findByTestId('calendar-week-grid');
      const columns = grid.querySelectorAll('section');
      expect(columns).toHaveLength(7);
      const [movable, published] = await within(grid).findAllByTestId('calendar-post');
      expect(published!.getAttribute('draggable')).toBe('false');
      const store: Record<string, string> = {};
      const dataTransfer = { setData: (k: string, v: string) => (store[k] = v), getData: (k: string) => store[k] ?? '', types: ['application/x-cps-post'] };
      fireEvent.dragStart(movable!, { dataTransfer });
      fireEvent.dragOver(columns[4]!, { dataTransfer });
      fireEvent.drop(columns[4]!, { dataTransfer });
      await waitFor(() => expect(calls.update).toHaveBeenCalledWith(1, { scheduled_at: monday.add(4, 'day').hour(9).minute(30).toISOString() }));
    } finally {
      window.matchMedia = original;
    }
  });
});

describe('the week by account (desk)', () => {
  it('moves a post dropped on another account\'s row to that account on that day, keeping its time', async () => {
    const original = window.matchMedia;
    window.matchMedia = ((query: string) => ({ ...original(query), matches: true })) as typeof window.matchMedia;
    try {
      const monday = weekStartOf(dayjs());
      calls.posts = [post(1, monday.add(1, 'day').hour(9).minute(30))];
      calls.update.mockReset().mockResolvedValue(calls.posts[0]);
      render(
        <AppConfig>
          <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
            <MemoryRouter>
              <CalendarPage />
            </MemoryRouter>
          </QueryClientProvider>
        </AppConfig>,
      );
      fireEvent.click(await screen.findByText('按账号'));
      const grid = await screen.findByTestId('calendar-account-grid');
      await within(grid).findByText('通勤号');
      const cells = within(grid).getAllByTestId('calendar-account-cell');
      // Two rows of seven days: the second row is 通勤号.
      expect(cells).toHaveLength(14);
      const card = await within(grid).findByTestId('calendar-post');
      const store: Record<string, string> = {};
      const dataTransfer = { setData: (k: string, v: string) => (store[k] = v), getData: (k: string) => store[k] ?? '', types: ['application/x-cps-post'] };
      fireEvent.dragStart(card, { dataTransfer });
      fireEvent.dragOver(cells[7 + 2]!, { dataTransfer });
      fireEvent.drop(cells[7 + 2]!, { dataTransfer });
      await waitFor(() => expect(calls.update).toHaveBeenCalledWith(1, { scheduled_at: monday.add(2, 'day').hour(9).minute(30).toISOString(), account_id: 2 }));
    } finally {
      window.matchMedia = original;
    }
  });
});

describe('a move the account would refuse', () => {
  const account = { id: 1, daily_cap: 2, min_gap_minutes: 120, timezone: 'Asia/Shanghai' };
  // Beijing 10:00 and 14:00 on one day.
  const day = dayjs('2026-12-01T02:00:00Z');
  const shown = [post(1, day), post(2, day.add(4, 'hour')), post(3, day.add(1, 'day'), { status: 'cancelled' }), post(4, day.add(2, 'day'), { account_id: 9 })];

  it('names the post closer than the gap, then the post of a full day, on the account\'s own day', () => {
    const moving = post(5, day.add(3, 'day'));
    expect(moveConflict(moving, day.add(1, 'hour').toDate(), shown, account)).toEqual({ kind: 'too_close', other: shown[0] });
    // 20:00 Beijing: three hours after the second post, but the day holds two already.
    expect(moveConflict(moving, day.add(10, 'hour').toDate(), shown, account)).toEqual({ kind: 'daily_cap', other: shown[0] });
    // 01:00 the next Beijing day (the same UTC day): free; a cancelled post and another account's hold no place.
    expect(moveConflict(moving, day.add(15, 'hour').toDate(), shown, account)).toBeUndefined();
    expect(moveConflict(moving, day.add(2, 'day').toDate(), shown, account)).toBeUndefined();
    // A post moved within its own day does not count against itself.
    expect(moveConflict(shown[1]!, day.add(8, 'hour').toDate(), shown, account)).toBeUndefined();
  });

  it('checks a drop on another account\'s row against that account\'s posts and limits', () => {
    const other = { id: 9, daily_cap: 1, min_gap_minutes: 0, timezone: 'Asia/Shanghai' };
    // Post 4 holds account 9's only slot on its day; post 1's own account is not the one in the way.
    expect(moveConflict(shown[0]!, day.add(2, 'day').add(3, 'hour').toDate(), shown, other)).toEqual({ kind: 'daily_cap', other: shown[3] });
    expect(moveConflict(shown[0]!, day.add(5, 'day').toDate(), shown, other)).toBeUndefined();
  });
});

describe('the month grid', () => {
  it('runs Monday to Sunday around the month, whole weeks only', () => {
    const grid = monthGrid(dayjs('2026-11-15'));
    expect(grid[0]!.format('YYYY-MM-DD ddd')).toBe('2026-10-26 Mon');
    expect(grid[grid.length - 1]!.format('YYYY-MM-DD ddd')).toBe('2026-12-06 Sun');
    expect(grid).toHaveLength(42);
    const feb = monthGrid(dayjs('2027-02-01'));
    expect(feb[0]!.format('YYYY-MM-DD')).toBe('2027-02-01');
    expect(feb).toHaveLength(28);
  });
});
