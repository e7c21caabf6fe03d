import { ArrowLeftOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Popconfirm, Row, Space, Statistic, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import type { BatchDetail, BatchItemState, BatchItemView } from '../../api/types';
import { api } from '../../api/endpoints';
import { errorMessage } from '../../api/client';
import { wordFailure, wordReason } from '../../api/errorText';
import { queryKeys, refresh } from '../../api/queryKeys';
import { notifySuccess } from '../../app/notify';
import { formatTime } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { QueryError } from '../../components/QueryError';
import { ResponsiveTable } from '../../components/ResponsiveTable';
import { BatchProgress } from './BatchProgress';
import { BatchStatusTag, ItemStateTag } from './shared';

/** A running batch is read again this often. */
export const BATCH_POLL_MS = 3_000;

const STATES: BatchItemState[] = ['waiting', 'running', 'done', 'failed', 'cancelled'];

/** A stored reason: a key of the error or failure catalogue and its params. */
type ReasonRef = { reason: string | null; params?: Record<string, unknown> | null };
/** The connection's pace, where the batch view gives it: requests per minute and the share rate limits left of it. */
type Pace = { rpm: number; factor: number } | null | undefined;

const worded = (t: TFunction, ref: ReasonRef | null) => (ref ? (ref.reason ? wordReason(t, ref.reason, ref.params) : wordFailure(t, { key: null })) : null);

/** The connection's pace: requests per minute, and how far rate limits slowed it (factor < 1). */
function paceText(t: TFunction, pace: NonNullable<Pace>): string {
  const rpm = Math.round(pace.rpm);
  return pace.factor < 1 ? t('batches.detail.paceSlowed', { rpm, percent: Math.round(pace.factor * 100) }) : t('batches.detail.paceValue', { rpm });
}

/**
 * One batch (`/batches/:id`): its progress, the counts by state, the measured rate and the
 * estimated finish, the connection's pace, and every item with its task, fission and post;
 * read again every 3 s while it runs. 取消批次 (asked first) while the server allows it.
 */
export default function BatchPage() {
  const { t } = useTranslation();
  const id = Number(useParams().id);
  const queryClient = useQueryClient();
  const batch = useQuery({
    queryKey: queryKeys.batches.detail(id),
    queryFn: () => api.batches.get(id),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? BATCH_POLL_MS : false),
  });
  const cancel = useMutation({
    meta: { inlineError: true },
    mutationFn: () => api.batches.cancel(id),
    onSuccess: () => {
      notifySuccess(t('batches.detail.cancelled'));
      void refresh.batches(queryClient);
    },
  });
  const b = batch.data;
  const pace = (b as (BatchDetail & { pace?: Pace }) | undefined)?.pace;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <Link to="/batches">
        <ArrowLeftOutlined aria-hidden /> {t('batches.detail.back')}
      </Link>
      <QueryError error={batch.error} />
      {b && (
        <>
          <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
            <Space wrap>
              <PageTitle tab={b.name}>{b.name}</PageTitle>
              <BatchStatusTag status={b.status} testId="batch-status" />
            </Space>
            {b.status === 'running' && b.allowed_actions.includes('cancel') && (
              <Popconfirm
                title={t('batches.detail.cancelConfirm')}
                okText={t('form.ok')}
                cancelText={t('form.cancel')}
                onConfirm={() => cancel.mutate()}
                styles={{ root: { maxWidth: 320 } }}
              >
                <Button danger loading={cancel.isPending} data-testid="batch-cancel">
                  {t('batches.detail.cancel')}
                </Button>
              </Popconfirm>
            )}
          </Space>
          {cancel.error && <Alert type="error" showIcon role="alert" title={errorMessage(cancel.error)} />}
          <Card>
            <BatchProgress batch={b} />
            <Row gutter={[16, 16]} style={{ marginTop: 16 }} data-testid="batch-counts">
              {STATES.map((state) => (
                <Col xs={12} sm={8} md={4} key={state}>
                  <Statistic title={t(`batches.states.${state}`)} value={b.counts[state]} data-testid={`count-${state}`} />
                  {state === 'waiting' && (
                    <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                      {t('batches.waitingHint')}
                    </Typography.Text>
                  )}
                </Col>
              ))}
            </Row>
            <Row gutter={[16, 16]} style={{ marginTop: 16 }}>
              <Col xs={24} sm={8}>
                <Statistic
                  title={t('batches.detail.rate')}
                  value={b.rate_per_minute === null ? t('batches.detail.noRate') : t('batches.detail.ratePerMinute', { rate: Math.round(b.rate_per_minute * 10) / 10 })}
                  data-testid="batch-rate"
                />
              </Col>
              <Col xs={24} sm={8}>
                <Statistic
                  title={b.status === 'running' ? t('batches.detail.eta') : t('batches.finishedAt')}
                  value={b.status === 'running' ? formatTime(b.eta) : formatTime(b.finished_at)}
                  data-testid="batch-eta"
                />
              </Col>
              {pace && (
                <Col xs={24} sm={8}>
                  <Statistic title={t('batches.detail.pace')} value={paceText(t, pace)} data-testid="batch-pace" />
                </Col>
              )}
            </Row>
          </Card>
          <Typography.Title level={2} style={{ fontSize: 18, margin: 0 }}>
            {t('batches.detail.items')}
          </Typography.Title>
          <ResponsiveTable<BatchItemView>
            rowKey="seq"
            size="small"
            data-testid="batch-items"
            dataSource={b.items}
            pagination={b.items.length > 20 ? { pageSize: 20, showSizeChanger: false } : false}
            columns={[
              { key: 'seq', title: t('batches.detail.seq'), dataIndex: 'seq', width: 64, render: (seq: number) => `#${seq}` },
              { key: 'product', title: t('batches.detail.product'), dataIndex: 'product_name' },
              { key: 'theme', title: t('batches.detail.theme'), dataIndex: 'theme' },
              { key: 'account', title: t('batches.detail.account'), dataIndex: 'account_name', render: (v: string | null) => v ?? '—' },
              { key: 'publish_at', title: t('batches.detail.publishAt'), dataIndex: 'publish_at', render: (v: string | null) => formatTime(v) },
              { key: 'state', title: t('batches.detail.state'), dataIndex: 'state', render: (state: BatchItemState) => <ItemStateTag state={state} /> },
              {
                key: 'links',
                title: t('batches.detail.task'),
                render: (_: unknown, item) => (
                  <Space size={8} wrap>
                    {item.task_id ? <Link to={`/tasks/${item.task_id}`}>{t('batches.detail.openTask', { id: item.task_id })}</Link> : '—'}
                    {item.fission_id && <Link to={`/fission/${item.fission_id}`}>{t('batches.detail.openFission', { id: item.fission_id })}</Link>}
                    {item.post_id && <Link to={`/posts/${item.post_id}/kit`}>{t('batches.detail.openPost', { id: item.post_id })}</Link>}
                  </Space>
                ),
              },
              {
                key: 'failure',
                title: t('batches.detail.failure'),
                render: (_: unknown, item) => {
                  const failure = worded(t, item.failure);
                  const post = worded(t, item.post_failure);
                  if (!failure && !post) return '—';
                  return (
                    <Space orientation="vertical" size={0} data-testid="item-failure">
                      {failure && <Typography.Text type="danger">{failure}</Typography.Text>}
                      {post && <Typography.Text type="danger">{t('batches.detail.postFailed', { reason: post })}</Typography.Text>}
                    </Space>
                  );
                },
              },
            ]}
          />
        </>
      )}
    </Space>
  );
}
