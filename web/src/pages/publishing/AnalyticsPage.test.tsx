import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import '../../i18n';
import type { AnalyticsOverview, EngagementGroup } from '../../api/types';
import { AppConfig } from '../../app/AppConfig';
import AnalyticsPage, { breakdownOption } from './AnalyticsPage';

// jsdom draws no canvas: the chart is a stub that keeps the options it was given.
const charts = vi.hoisted(() => [] as { label: string; option: unknown }[]);
vi.mock('./EChart', () => ({
  EChart: ({ label, option }: { label: string; option: unknown }) => {
    charts.push({ label, option });
    return <div data-testid="echart" aria-label={label} />;
  },
}));
const state = vi.hoisted(() => ({ overview: undefined as unknown as AnalyticsOverview, queries: [] as unknown[] }));
vi.mock('../../api/endpoints', () => ({
  api: {
    analytics: {
      overview: async (query: unknown) => {
        state.queries.push(query);
        return state.overview;
      },
    },
    products: { list: async () => ({ items: [{ id: 1, name: '保温杯' }], total: 1, page: 1, page_size: 100 }) },
    accounts: { list: async () => ({ items: [{ id: 2, name: '小美的日常' }], total: 1, page: 1, page_size: 100 }) },
    metrics: { importFile: vi.fn() },
  },
}));

const group = (key: string, label: string, posts: number, median: number | null): EngagementGroup => ({ key, label, posts, median_engagement: median, views: posts * 1000 });

function overview(over: Partial<AnalyticsOverview['engagement']> = {}): AnalyticsOverview {
  return {
    posts: { scheduled: 4, published: 3, missed: 1 },
    engagement: { median: 0.052, by_strategy: [], by_angle: [], by_product: [], by_account: [], by_week: [], ...over },
    production: { tasks: 10, approved: 6, approval_rate: 0.75, median_hours_to_approve: 2.5 },
    cost: { calls: 48, input_tokens: null, output_tokens: null, images: 30, per_approved_note: { calls: 8, images: 5 } },
  };
}

function renderPage() {
  render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <MemoryRouter>
          <AnalyticsPage />
        </MemoryRouter>
      </QueryClientProvider>
    </AppConfig>,
  );
}

describe('the dashboard', () => {
  beforeEach(() => {
    charts.length = 0;
    state.queries = [];
  });

  it('shows the KPIs and one chart per breakdown, the strategies in the console’s words', async () => {
    state.overview = overview({
      by_strategy: [group('A', 'A 痛点共鸣', 2, 0.06), group('B', 'B 实测种草', 1, 0.03)],
      by_angle: [group('通勤', '通勤', 3, 0.05)],
      by_product: [group('1', '保温杯', 3, 0.05)],
      by_account: [group('2', '小美的日常', 3, 0.05)],
      by_week: [
        { week: '2026-11-16', posts: 1, median_engagement: 0.03, by_strategy: { B: 0.03 } },
        { week: '2026-11-23', posts: 2, median_engagement: 0.06, by_strategy: { A: 0.06 } },
      ],
    });
    renderPage();
    expect((await screen.findByTestId('kpi-scheduled')).textContent).toContain('4');
    expect(screen.getByTestId('kpi-published').textContent).toContain('3');
    expect(screen.getByTestId('kpi-missed').textContent).toContain('1');
    expect(screen.getByTestId('kpi-approval').textContent).toContain('75%');
    expect(screen.getByTestId('kpi-hours').textContent).toContain('2.5 小时');
    expect(screen.getByTestId('kpi-cost').textContent).toContain('8');
    expect(screen.getByTestId('median-engagement').textContent).toBe('互动率中位数：5.2%');
    expect(screen.getAllByTestId('echart').map((c) => c.getAttribute('aria-label'))).toEqual([
      '互动率趋势（按发布周）：各项的互动率中位数',
      '按写法：各项的互动率中位数',
      '按角度：各项的互动率中位数',
      '按产品：各项的互动率中位数',
      '按账号：各项的互动率中位数',
    ]);
    const strategy = charts.find((c) => c.label.startsWith('按写法'))!.option as { yAxis: { data: string[] } };
    // Drawn bottom-up: the server's first group ends on top.
    expect(strategy.yAxis.data).toEqual(['B 组 · 实测种草', 'A 组 · 痛点共鸣']);
    // Over time: all posts and each strategy that went out, a week without it left empty.
    const weekly = charts.find((c) => c.label.startsWith('互动率趋势'))!.option as { xAxis: { data: string[] }; series: { name: string; data: Array<number | null> }[] };
    expect(weekly.xAxis.data).toEqual(['11-16', '11-23']);
    expect(weekly.series.map((s) => [s.name, s.data])).toEqual([
      ['全部', [0.03, 0.06]],
      ['A 组 · 痛点共鸣', [null, 0.06]],
      ['B 组 · 实测种草', [0.03, null]],
    ]);
    const query = state.queries[0] as { from: string; to: string };
    expect(new Date(query.to).getTime() - new Date(query.from).getTime()).toBeGreaterThan(29 * 86_400_000);
    expect(screen.queryByTestId('analytics-empty')).toBeNull();
  });

  it('explains what it will show while there is no result yet', async () => {
    state.overview = overview();
    renderPage();
    const empty = await screen.findByTestId('analytics-empty');
    expect(empty.textContent).toContain('标记已发布并录入数据后，这里会显示哪些写法和角度效果更好');
    expect(screen.queryAllByTestId('echart')).toHaveLength(0);
    await waitFor(() => expect(screen.getByTestId('kpi-published').textContent).toContain('3'));
  });

  it('puts the post count and views of a group in its tooltip', () => {
    const groups = [group('通勤', '通勤', 3, 0.05), group('办公室', '办公室', 1, null)];
    const option = breakdownOption(groups, (g) => `${g.label} ${g.posts} 篇`) as {
      tooltip: { formatter: (p: { dataIndex: number }) => string };
      series: { data: number[]; label: { formatter: (p: { dataIndex: number }) => string } }[];
    };
    expect(option.tooltip.formatter({ dataIndex: 1 })).toBe('通勤 3 篇');
    expect(option.series[0]!.label.formatter({ dataIndex: 0 })).toBe('—');
    expect(option.series[0]!.data).toEqual([0, 0.05]);
  });
});
