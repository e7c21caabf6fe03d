import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, InputNumber, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import { refresh } from '../../api/queryKeys';
import type { MetricsInput, MetricsSnapshot } from '../../api/types';
import { notifySuccess } from '../../app/notify';
import { formatTime } from '../../components/format';

/** The counts a snapshot holds, in the order the creator centre shows them. */
export const METRIC_FIELDS = ['views', 'likes', 'collects', 'comments', 'shares', 'follows'] as const;
export type MetricField = (typeof METRIC_FIELDS)[number];

type Values = Partial<Record<MetricField, number | null>>;

/** Engagement (a ratio, §11) as a percentage with one decimal; `—` when unknown (no views). */
export function formatEngagement(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${(value * 100).toFixed(1)}%`;
}

/** A count, or `—` when unknown. */
const count = (value: number | null | undefined) => (value === null || value === undefined ? '—' : value.toLocaleString());

/** The latest snapshot of a post: each count, the engagement as a percentage, when and how it was recorded. */
export function MetricsSummary({ metrics }: { metrics: MetricsSnapshot | null | undefined }) {
  const { t } = useTranslation();
  if (!metrics) return <Typography.Text type="secondary">{t('publishing.metrics.none')}</Typography.Text>;
  return (
    <div data-testid="post-metrics">
      <dl style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(88px, 1fr))', gap: '8px 12px', margin: '0 0 8px' }}>
        <div>
          <dt style={{ fontSize: 12, color: 'rgba(0,0,0,0.65)' }}>{t('publishing.metrics.engagement')}</dt>
          <dd style={{ margin: 0, fontSize: 18, fontWeight: 600 }} data-testid="metric-engagement">
            {formatEngagement(metrics.engagement)}
          </dd>
        </div>
        {METRIC_FIELDS.map((f) => (
          <div key={f}>
            <dt style={{ fontSize: 12, color: 'rgba(0,0,0,0.65)' }}>{t(`publishing.metrics.${f}`)}</dt>
            <dd style={{ margin: 0, fontSize: 16 }} data-testid={`metric-${f}`}>
              {count(metrics[f])}
            </dd>
          </div>
        ))}
      </dl>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('publishing.metrics.capturedAt', { time: formatTime(metrics.captured_at) })} ·{' '}
        {t(metrics.source === 'import' ? 'publishing.metrics.sourceImport' : 'publishing.metrics.sourceManual')}
      </Typography.Text>
    </div>
  );
}

/**
 * 录入数据: a published post's counts as the creator centre shows them (non-negative whole
 * numbers; an empty field is unknown, not zero) → `recordPostMetrics`. The saved snapshot is shown
 * above the form at once, and the posts and the dashboard refresh.
 */
export function PostMetricsCard({ postId, latest }: { postId: number; latest: MetricsSnapshot | null | undefined }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<Values>();
  const [saved, setSaved] = useState<MetricsSnapshot>();
  const [empty, setEmpty] = useState(false);
  const record = useMutation({
    meta: { inlineError: true },
    mutationFn: (body: MetricsInput) => api.posts.recordMetrics(postId, body),
    onSuccess: (snapshot) => {
      setSaved(snapshot);
      notifySuccess(t('publishing.metrics.saved'));
      form.resetFields();
      void refresh.results(queryClient);
    },
  });
  const submit = (values: Values) => {
    const body: MetricsInput = {};
    for (const f of METRIC_FIELDS) {
      const v = values[f];
      if (typeof v === 'number') body[f] = v;
    }
    if (Object.keys(body).length === 0) {
      setEmpty(true);
      return;
    }
    setEmpty(false);
    record.mutate(body);
  };
  const shown = saved && (!latest || saved.captured_at >= latest.captured_at) ? saved : latest;
  return (
    <Card size="small" title={t('publishing.metrics.title')} style={{ marginBottom: 16 }} data-testid="metrics-card">
      <MetricsSummary metrics={shown} />
      {/* Not a heading: the card's title is none either (axe heading-order under the page's h1). */}
      <Typography.Text strong style={{ display: 'block', margin: '16px 0 8px' }}>
        {t('publishing.metrics.record')}
      </Typography.Text>
      <Form<Values> form={form} layout="vertical" onFinish={submit} onValuesChange={() => setEmpty(false)} data-testid="metrics-form">
        <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(120px, 1fr))', columnGap: 12 }}>
          {METRIC_FIELDS.map((f) => (
            <Form.Item key={f} name={f} label={t(`publishing.metrics.${f}`)} style={{ marginBottom: 12 }}>
              <InputNumber min={0} precision={0} step={1} inputMode="numeric" placeholder="—" style={{ width: '100%' }} />
            </Form.Item>
          ))}
        </div>
        <Typography.Paragraph type="secondary" style={{ fontSize: 12, marginBottom: 8 }}>
          {t('publishing.metrics.unknownHint')}
        </Typography.Paragraph>
        {empty && (
          <Typography.Paragraph type="danger" role="alert" data-testid="metrics-empty">
            {t('publishing.metrics.needOne')}
          </Typography.Paragraph>
        )}
        {record.error && <Alert type="error" showIcon role="alert" title={errorMessage(record.error)} style={{ marginBottom: 8 }} />}
        <Button type="primary" htmlType="submit" loading={record.isPending}>
          {t('publishing.metrics.save')}
        </Button>
      </Form>
    </Card>
  );
}
