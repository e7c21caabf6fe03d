import { useQuery } from '@tanstack/react-query';
import { Card, Col, DatePicker, Empty, Row, Select, Space, Spin, Statistic, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/endpoints';
import { queryKeys } from '../../api/queryKeys';
import type { AnalyticsOverview, EngagementGroup } from '../../api/types';
import { PageTitle } from '../../components/PageTitle';
import { QueryError } from '../../components/QueryError';
import { type ChartOption, EChart } from './EChart';
import { ImportMetricsButton } from './ImportMetrics';
import { formatEngagement } from './PostMetrics';

type Range = [Dayjs, Dayjs];
const BREAKDOWNS = [
  ['by_strategy', 'byStrategy'],
  ['by_angle', 'byAngle'],
  ['by_product', 'byProduct'],
  ['by_account', 'byAccount'],
] as const;

/** The last 30 days, today included. */
const defaultRange = (): Range => [dayjs().subtract(29, 'day').startOf('day'), dayjs().endOf('day')];

/** Whether any published post of the window has a result to compare. */
export function hasResults(overview: AnalyticsOverview): boolean {
  return BREAKDOWNS.some(([key]) => overview.engagement[key].some((g) => g.median_engagement !== null));
}

/** One horizontal bar per group (labels stay readable on a phone), the median engagement as a percentage, posts in the tooltip. */
export function breakdownOption(groups: readonly EngagementGroup[], tooltip: (g: EngagementGroup) => string): ChartOption {
  const rows = [...groups].reverse(); // ECharts draws the first category at the bottom: the server's order reads top down
  return {
    grid: { left: 8, right: 56, top: 8, bottom: 8, containLabel: true },
    tooltip: { trigger: 'item', confine: true, formatter: (p) => tooltip(rows[(p as { dataIndex: number }).dataIndex]!) },
    xAxis: { type: 'value', axisLabel: { formatter: (v: number) => `${Math.round(v * 1000) / 10}%` }, splitNumber: 3 },
    yAxis: {
      type: 'category',
      data: rows.map((g) => g.label),
      axisLabel: { width: 120, overflow: 'truncate' },
      axisTick: { show: false },
    },
    series: [
      {
        type: 'bar',
        barMaxWidth: 22,
        itemStyle: { color: '#0958d9', borderRadius: [0, 4, 4, 0] },
        label: { show: true, position: 'right', formatter: (p) => formatEngagement(rows[(p as { dataIndex: number }).dataIndex]!.median_engagement) },
        data: rows.map((g) => g.median_engagement ?? 0),
      },
    ],
  };
}

type Week = AnalyticsOverview['engagement']['by_week'][number];

/** Engagement over the weeks of publishing: all posts, and each strategy that went out. */
export function weeklyOption(weeks: readonly Week[], names: { overall: string; strategy: (code: string) => string }): ChartOption {
  const strategies = [...new Set(weeks.flatMap((w) => Object.keys(w.by_strategy)))].sort();
  const percent = (v: number) => `${Math.round(v * 1000) / 10}%`;
  return {
    grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
    legend: { top: 0, type: 'scroll' },
    tooltip: { trigger: 'axis', confine: true, valueFormatter: (v) => (typeof v === 'number' ? percent(v) : '—') },
    xAxis: { type: 'category', data: weeks.map((w) => w.week.slice(5)), axisLabel: { hideOverlap: true } },
    yAxis: { type: 'value', axisLabel: { formatter: percent }, splitNumber: 3 },
    series: [
      { type: 'line', name: names.overall, data: weeks.map((w) => w.median_engagement), lineStyle: { width: 3 }, connectNulls: true },
      ...strategies.map((s) => ({ type: 'line' as const, name: names.strategy(s), data: weeks.map((w) => w.by_strategy[s] ?? null), connectNulls: true })),
    ],
  };
}

function Kpi({ title, value, detail, testId }: { title: string; value: string | number; detail?: string; testId: string }) {
  return (
    <Card size="small" style={{ height: '100%' }} data-testid={testId}>
      <Statistic title={title} value={value} />
      {detail && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {detail}
        </Typography.Text>
      )}
    </Card>
  );
}

/**
 * 数据看板 (`/analytics`): what went out and what worked in a date range, for a product or an
 * account — posts waiting, published and missed, the approval rate and time, paid calls per
 * approved note, and the median engagement by strategy, angle, product and account.
 */
export default function AnalyticsPage() {
  const { t } = useTranslation();
  const [range, setRange] = useState<Range>(defaultRange);
  const [productId, setProductId] = useState<number>();
  const [accountId, setAccountId] = useState<number>();
  const query = {
    from: range[0].startOf('day').toISOString(),
    to: range[1].endOf('day').toISOString(),
    ...(productId ? { product_id: productId } : {}),
    ...(accountId ? { account_id: accountId } : {}),
  };
  const overview = useQuery({ queryKey: queryKeys.analytics.overview(query), queryFn: () => api.analytics.overview(query) });
  const products = useQuery({ queryKey: queryKeys.products.list({ page: 1, page_size: 100 }), queryFn: () => api.products.list({ page: 1, page_size: 100 }) });
  const accounts = useQuery({ queryKey: queryKeys.accounts.list({}), queryFn: () => api.accounts.list({ page: 1, page_size: 100 }) });
  const o = overview.data;

  // Built once per answer: a new option object would redraw (and re-animate) every chart.
  const charts = useMemo(
    () =>
      o
        ? BREAKDOWNS.map(([key, title]) => {
            // Strategies in the console's words (A 组 · 痛点共鸣); the rest are names the team gave.
            const groups = o.engagement[key].map((g) => ({
              ...g,
              label: key === 'by_strategy' && ['A', 'B', 'C'].includes(g.key) ? t('editing.setTitle', { set: g.key, name: t(`editing.strategy.${g.key}`) }) : g.label,
            }));
            const tip = (g: EngagementGroup) =>
              t('publishing.analytics.tooltip', { label: g.label, engagement: formatEngagement(g.median_engagement), posts: g.posts, views: g.views.toLocaleString() });
            return { key, title: t(`publishing.analytics.${title}`), groups, option: breakdownOption(groups, tip) };
          })
        : [],
    [o, t],
  );
  const weekly = useMemo(
    () =>
      o && o.engagement.by_week.length > 0
        ? weeklyOption(o.engagement.by_week, {
            overall: t('publishing.analytics.overall'),
            strategy: (s) => (['A', 'B', 'C'].includes(s) ? t('editing.setTitle', { set: s, name: t(`editing.strategy.${s}`) }) : s),
          })
        : undefined,
    [o, t],
  );

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <PageTitle>{t('publishing.analytics.title')}</PageTitle>
        <ImportMetricsButton />
      </Space>
      <Space wrap style={{ marginBottom: 16, width: '100%' }} data-testid="analytics-filters">
        <DatePicker.RangePicker
          aria-label={t('publishing.analytics.range')}
          value={range}
          allowClear={false}
          onChange={(v) => v?.[0] && v[1] && setRange([v[0], v[1]])}
          style={{ maxWidth: '100%' }}
        />
        <Select
          aria-label={t('publishing.analytics.productFilter')}
          allowClear
          placeholder={t('publishing.analytics.allProducts')}
          style={{ width: 180 }}
          value={productId}
          onChange={(v: number | undefined) => setProductId(v)}
          options={(products.data?.items ?? []).map((p) => ({ value: p.id, label: p.name }))}
        />
        <Select
          aria-label={t('publishing.analytics.accountFilter')}
          allowClear
          placeholder={t('publishing.analytics.allAccounts')}
          style={{ width: 160 }}
          value={accountId}
          onChange={(v: number | undefined) => setAccountId(v)}
          options={(accounts.data?.items ?? []).map((a) => ({ value: a.id, label: a.name }))}
        />
        {overview.isFetching && <Spin size="small" />}
      </Space>
      <QueryError error={overview.error} />
      {o && (
        <>
          <Row gutter={[12, 12]} style={{ marginBottom: 16 }}>
            <Col xs={8} md={4}>
              <Kpi testId="kpi-scheduled" title={t('publishing.analytics.scheduled')} value={o.posts.scheduled} />
            </Col>
            <Col xs={8} md={4}>
              <Kpi testId="kpi-published" title={t('publishing.analytics.published')} value={o.posts.published} />
            </Col>
            <Col xs={8} md={4}>
              <Kpi testId="kpi-missed" title={t('publishing.analytics.missed')} value={o.posts.missed} />
            </Col>
            <Col xs={12} md={4}>
              <Kpi
                testId="kpi-approval"
                title={t('publishing.analytics.approvalRate')}
                value={o.production.approval_rate === null ? '—' : `${Math.round(o.production.approval_rate * 1000) / 10}%`}
                detail={t('publishing.analytics.approvalDetail', { approved: o.production.approved, tasks: o.production.tasks })}
              />
            </Col>
            <Col xs={12} md={4}>
              <Kpi
                testId="kpi-hours"
                title={t('publishing.analytics.hoursToApprove')}
                value={o.production.median_hours_to_approve === null ? '—' : t('publishing.analytics.hours', { value: o.production.median_hours_to_approve })}
              />
            </Col>
            <Col xs={24} md={4}>
              <Kpi
                testId="kpi-cost"
                title={t('publishing.analytics.callsPerNote')}
                value={o.cost.per_approved_note ? o.cost.per_approved_note.calls : '—'}
                detail={o.cost.per_approved_note ? t('publishing.analytics.callsDetail', { images: o.cost.per_approved_note.images, calls: o.cost.calls }) : undefined}
              />
            </Col>
          </Row>
          {hasResults(o) ? (
            <>
              <Typography.Paragraph data-testid="median-engagement">
                {t('publishing.analytics.medianEngagement')}：<strong>{formatEngagement(o.engagement.median)}</strong>
              </Typography.Paragraph>
              {weekly && (
                <Card size="small" title={t('publishing.analytics.byWeek')} data-testid="chart-by_week" style={{ marginBottom: 12 }}>
                  <EChart option={weekly} height={240} label={t('publishing.analytics.chartLabel', { title: t('publishing.analytics.byWeek') })} />
                </Card>
              )}
              <Row gutter={[12, 12]}>
                {charts.map((c) => (
                  <Col key={c.key} xs={24} lg={12}>
                    <Card size="small" title={c.title} data-testid={`chart-${c.key}`}>
                      {c.groups.length > 0 ? (
                        <EChart option={c.option} height={Math.max(120, c.groups.length * 40 + 40)} label={t('publishing.analytics.chartLabel', { title: c.title })} />
                      ) : (
                        <Typography.Text type="secondary">{t('publishing.analytics.noData')}</Typography.Text>
                      )}
                    </Card>
                  </Col>
                ))}
              </Row>
            </>
          ) : (
            <Empty data-testid="analytics-empty" description={<Space orientation="vertical" size={4}><strong>{t('publishing.analytics.empty')}</strong><span>{t('publishing.analytics.emptyHint')}</span></Space>} />
          )}
        </>
      )}
    </>
  );
}
