import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { ApiError } from '../../api/client';
import type { MetricsSnapshot } from '../../api/types';
import { AppConfig } from '../../app/AppConfig';
import { formatEngagement, PostMetricsCard } from './PostMetrics';

const recordMetrics = vi.hoisted(() => vi.fn());
vi.mock('../../api/endpoints', () => ({ api: { posts: { recordMetrics } } }));

function snapshot(over: Partial<MetricsSnapshot> = {}): MetricsSnapshot {
  return { id: 1, captured_at: '2026-11-28T10:00:00.000Z', views: 1000, likes: 40, collects: 20, comments: 5, shares: 3, follows: 2, source: 'manual', engagement: 0.068, ...over };
}

function renderCard(latest: MetricsSnapshot | null = null) {
  render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <PostMetricsCard postId={5} latest={latest} />
      </QueryClientProvider>
    </AppConfig>,
  );
  return screen.getByTestId('metrics-form');
}

const field = (form: HTMLElement, name: string) => within(form).getByRole('spinbutton', { name });

describe('recording a published post’s results', () => {
  it('words engagement as a percentage, unknown as —', () => {
    expect(formatEngagement(0.068)).toBe('6.8%');
    expect(formatEngagement(0)).toBe('0.0%');
    expect(formatEngagement(null)).toBe('—');
  });

  it('sends only the counts filled in (empty is unknown, not zero) and shows the saved snapshot with its engagement', async () => {
    recordMetrics.mockReset().mockImplementation(async (_id: number, body: Record<string, number>) =>
      snapshot({ views: body.views!, likes: body.likes!, collects: null, comments: null, shares: null, follows: null, engagement: body.likes! / body.views! }),
    );
    const form = renderCard();
    expect(screen.getByText('还没有数据')).toBeTruthy();
    for (const label of ['观看', '点赞', '收藏', '评论', '分享', '涨粉']) expect(field(form, label)).toBeTruthy();

    fireEvent.click(within(form).getByRole('button', { name: '保存数据' }));
    expect((await screen.findByTestId('metrics-empty')).textContent).toBe('至少填写一项数据');
    expect(recordMetrics).not.toHaveBeenCalled();

    fireEvent.change(field(form, '观看'), { target: { value: '2000' } });
    fireEvent.change(field(form, '点赞'), { target: { value: '90' } });
    fireEvent.click(within(form).getByRole('button', { name: '保存数据' }));
    await waitFor(() => expect(recordMetrics).toHaveBeenCalledWith(5, { views: 2000, likes: 90 }));
    const shown = await screen.findByTestId('post-metrics');
    expect(within(shown).getByTestId('metric-views').textContent).toBe('2,000');
    expect(within(shown).getByTestId('metric-collects').textContent).toBe('—');
    expect(within(shown).getByTestId('metric-engagement').textContent).toBe('4.5%');
  });

  it('refuses a negative count in the field and words a refusal of the server', async () => {
    recordMetrics.mockReset().mockRejectedValue(new ApiError(409, 40900, 'x', 'results.not_published', { post_id: 5, status: 'missed' }));
    const form = renderCard(snapshot());
    expect(screen.getByTestId('metric-engagement').textContent).toBe('6.8%');
    const views = field(form, '观看');
    fireEvent.change(views, { target: { value: '-3' } });
    fireEvent.blur(views);
    await waitFor(() => expect((views as HTMLInputElement).value).toBe('0'));
    fireEvent.change(field(form, '点赞'), { target: { value: '7' } });
    fireEvent.click(within(form).getByRole('button', { name: '保存数据' }));
    expect((await screen.findByRole('alert')).textContent).toContain('排期 #5 当前为“已错过”');
    expect(recordMetrics).toHaveBeenCalledWith(5, { views: 0, likes: 7 });
  });
});
