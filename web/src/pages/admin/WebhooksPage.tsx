import { PlusOutlined, ReloadOutlined, SendOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Checkbox, Empty, Form, Input, Modal, Popconfirm, Select, Space, Switch, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';

/** Only the scheme is checked here: whether the address is public is the server's to say (`webhook.private_url`). */
export const HTTP_SCHEME = /^https?:\/\/\S+$/i;
import { api } from '../../api/endpoints';
import type { Webhook, WebhookDelivery, WebhookEvent, WebhookKind } from '../../api/types';
import { notifySuccess } from '../../app/notify';
import { formatTime } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { QueryError } from '../../components/QueryError';
import { tone } from '../../components/tags';
import { queryKeys, refresh } from '../../api/queryKeys';

const KINDS: WebhookKind[] = ['feishu', 'wecom', 'dingtalk', 'generic'];
const EVENTS: WebhookEvent[] = ['task.pending_selection', 'task.submitted', 'task.approved', 'task.rejected', 'task.failed', 'package.ready', 'fission.completed', 'post.due', 'post.missed', 'post.published'];
const STATUS_TONE: Record<WebhookDelivery['status'], string> = { pending: 'blue', delivered: 'green', failed: 'red' };

interface FormValues {
  name: string;
  kind: WebhookKind;
  url?: string;
  events: WebhookEvent[];
  secret?: string;
  removeSecret?: boolean;
}

/**
 * 通知 Webhook (admin): the team's group bots and endpoints, what each hears of, a test button
 * and the latest deliveries with their attempts. Cards rather than a table so a phone shows
 * everything without scrolling sideways.
 */
export default function WebhooksPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Webhook | 'new'>();
  const hooks = useQuery({ queryKey: queryKeys.webhooks.all(), queryFn: () => api.webhooks.list() });
  const reload = () => refresh.webhooks(queryClient);
  const update = useMutation({
    mutationFn: (v: { id: number; body: Parameters<typeof api.webhooks.update>[1] }) => api.webhooks.update(v.id, v.body),
    onSuccess: reload,
  });
  const remove = useMutation({ mutationFn: (id: number) => api.webhooks.remove(id), onSuccess: reload });

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <PageTitle>{t('webhooks.title')}</PageTitle>
        <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={() => setEditing('new')}>
          {t('webhooks.add')}
        </Button>
      </Space>
      <Typography.Paragraph type="secondary">{t('webhooks.intro')}</Typography.Paragraph>
      <QueryError error={hooks.error} />
      {hooks.data && hooks.data.items.length === 0 && <Empty description={t('webhooks.empty')} />}
      <Space direction="vertical" size="middle" style={{ width: '100%' }}>
        {hooks.data?.items.map((hook) => (
          <Card
            key={hook.id}
            size="small"
            data-testid={`webhook-${hook.id}`}
            title={
              <Space wrap size={4}>
                <span>{hook.name}</span>
                <Tag>{t(`webhooks.kinds.${hook.kind}`)}</Tag>
                {hook.has_secret && <Tag color={tone('purple')}>{t('webhooks.secretSet')}</Tag>}
              </Space>
            }
            extra={
              <Switch
                size="small"
                aria-label={t('webhooks.activeOf', { name: hook.name })}
                checked={hook.is_active}
                onChange={(v) => update.mutate({ id: hook.id, body: { is_active: v } })}
              />
            }
          >
            <Typography.Text code style={{ wordBreak: 'break-all' }}>
              {hook.url}
            </Typography.Text>
            <div style={{ margin: '8px 0' }}>
              {hook.events.map((e) => (
                <Tag key={e} style={{ marginBottom: 4 }}>
                  {t(`webhooks.event.${e}`)}
                </Tag>
              ))}
            </div>
            <Space wrap>
              <TestButton hook={hook} />
              <Button size="small" onClick={() => setEditing(hook)}>
                {t('form.edit')}
              </Button>
              <Popconfirm title={t('webhooks.deleteConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => remove.mutate(hook.id)}>
                <Button size="small" danger>
                  {t('form.delete')}
                </Button>
              </Popconfirm>
            </Space>
            <Deliveries hook={hook} />
          </Card>
        ))}
      </Space>
      {editing && <WebhookForm hook={editing === 'new' ? undefined : editing} onClose={() => setEditing(undefined)} onSaved={reload} />}
    </>
  );
}

function TestButton({ hook }: { hook: Webhook }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const test = useMutation({
    mutationFn: () => api.webhooks.test(hook.id),
    onSuccess: () => {
      notifySuccess(t('webhooks.testSent'));
      void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.deliveries(hook.id) });
    },
  });
  return (
    <Button size="small" icon={<SendOutlined aria-hidden />} loading={test.isPending} onClick={() => test.mutate()}>
      {t('webhooks.test')}
    </Button>
  );
}

/** The latest deliveries; polled every 2 s while one is still being sent. */
function Deliveries({ hook }: { hook: Webhook }) {
  const { t } = useTranslation();
  const deliveries = useQuery({
    queryKey: queryKeys.webhooks.deliveries(hook.id),
    queryFn: () => api.webhooks.deliveries(hook.id, { page: 1, page_size: 10 }),
    refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === 'pending') ? 2_000 : false),
  });
  const items = deliveries.data?.items ?? [];
  return (
    <section aria-label={t('webhooks.deliveries')} style={{ marginTop: 12 }}>
      <Space style={{ width: '100%', justifyContent: 'space-between' }}>
        <Typography.Text strong>{`${t('webhooks.deliveries')}${deliveries.data ? ` (${deliveries.data.total})` : ''}`}</Typography.Text>
        <Button
          size="small"
          type="text"
          aria-label={t('webhooks.reload')}
          icon={<ReloadOutlined aria-hidden />}
          loading={deliveries.isFetching}
          onClick={() => void deliveries.refetch()}
        />
      </Space>
      <QueryError error={deliveries.error} />
      {items.length === 0 && !deliveries.isLoading && <Typography.Text type="secondary">{t('webhooks.noDeliveries')}</Typography.Text>}
      <Space direction="vertical" size={6} style={{ width: '100%' }} data-testid={`deliveries-${hook.id}`}>
        {items.map((d) => (
          <DeliveryLine key={d.id} delivery={d} />
        ))}
      </Space>
    </section>
  );
}

function DeliveryLine({ delivery: d }: { delivery: WebhookDelivery }) {
  const { t } = useTranslation();
  const last = d.attempt_log[0];
  const problem = last && !last.ok && last.error_kind ? t(`webhooks.errorKind.${last.error_kind}`, { status: last.http_status ?? '' }) : undefined;
  return (
    <div style={{ borderTop: '1px solid rgba(5,5,5,0.06)', paddingTop: 6 }}>
      <Space wrap size={4}>
        <Tag color={tone(STATUS_TONE[d.status])}>{t(`webhooks.status.${d.status}`)}</Tag>
        <span>{t(`webhooks.event.${d.event}`)}</span>
        <Typography.Text type="secondary">{formatTime(d.created_at)}</Typography.Text>
      </Space>
      <div>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {[
            d.attempts > 0 ? t('webhooks.attempts', { count: d.attempts }) : undefined,
            d.http_status !== null ? `HTTP ${d.http_status}` : undefined,
            last ? t('webhooks.latency', { ms: last.latency_ms }) : undefined,
            d.status === 'pending' && d.next_attempt_at && d.attempts > 0 ? t('webhooks.nextAttempt', { time: formatTime(d.next_attempt_at) }) : undefined,
          ]
            .filter(Boolean)
            .join(' · ')}
        </Typography.Text>
      </div>
      {problem && (
        <Typography.Text type="danger" style={{ fontSize: 12 }}>
          {problem}
        </Typography.Text>
      )}
      {last?.excerpt && !last.ok && (
        <div>
          <Typography.Text type="secondary" style={{ fontSize: 12, wordBreak: 'break-all' }}>
            {t('webhooks.answer')}：{last.excerpt}
          </Typography.Text>
        </div>
      )}
    </div>
  );
}

function WebhookForm({ hook, onClose, onSaved }: { hook: Webhook | undefined; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<FormValues>();
  const kind = Form.useWatch('kind', form) ?? hook?.kind ?? 'feishu';
  const removeSecret = Form.useWatch('removeSecret', form);
  const save = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: FormValues) => {
      const secret = v.secret?.trim() || undefined;
      if (!hook) return api.webhooks.create({ name: v.name.trim(), kind: v.kind, url: v.url!.trim(), events: v.events, ...(secret ? { secret } : {}) });
      return api.webhooks.update(hook.id, {
        name: v.name.trim(),
        kind: v.kind,
        events: v.events,
        ...(v.url?.trim() ? { url: v.url.trim() } : {}),
        ...(v.removeSecret || v.kind === 'wecom' ? (hook.has_secret ? { secret: null } : {}) : secret ? { secret } : {}),
      });
    },
    onSuccess: () => {
      onSaved();
      onClose();
    },
  });
  return (
    <Modal
      open
      title={hook ? t('webhooks.edit') : t('webhooks.add')}
      okText={t('form.save')}
      cancelText={t('form.cancel')}
      confirmLoading={save.isPending}
      onCancel={onClose}
      onOk={() => form.submit()}
      destroyOnHidden
    >
      {save.error && <Alert type="error" showIcon role="alert" title={errorMessage(save.error)} style={{ marginBottom: 12 }} />}
      <Form<FormValues>
        form={form}
        layout="vertical"
        initialValues={hook ? { name: hook.name, kind: hook.kind, events: hook.events } : { kind: 'feishu', events: ['task.pending_selection', 'task.submitted', 'task.approved', 'task.rejected'] }}
        onFinish={(v) => save.mutate(v)}
      >
        <Form.Item label={t('webhooks.name')} name="name" rules={[{ required: true, whitespace: true, max: 60, message: t('form.required') }]}>
          <Input placeholder={t('webhooks.namePlaceholder')} autoComplete="off" />
        </Form.Item>
        <Form.Item label={t('webhooks.kind')} name="kind">
          <Select options={KINDS.map((k) => ({ value: k, label: t(`webhooks.kinds.${k}`) }))} />
        </Form.Item>
        <Form.Item
          label={t('webhooks.url')}
          name="url"
          extra={hook ? `${t('webhooks.urlKeep')}（${hook.url}）` : t(`webhooks.urlHint.${kind}`)}
          rules={[{ required: !hook, message: t('form.required') }, { pattern: HTTP_SCHEME, message: t('apiError.badUrl') }]}
        >
          <Input inputMode="url" autoComplete="off" placeholder="https://" />
        </Form.Item>
        {kind !== 'wecom' && (
          <>
            <Form.Item label={t('webhooks.secret')} name="secret" extra={hook?.has_secret ? t('webhooks.secretKeep') : t(`webhooks.secretHint.${kind}`)}>
              <Input.Password autoComplete="new-password" disabled={Boolean(removeSecret)} />
            </Form.Item>
            {hook?.has_secret && (
              <Form.Item name="removeSecret" valuePropName="checked" style={{ marginTop: -12 }}>
                <Checkbox>{t('webhooks.removeSecret')}</Checkbox>
              </Form.Item>
            )}
          </>
        )}
        <Form.Item label={t('webhooks.events')} name="events" rules={[{ required: true, type: 'array', min: 1, message: t('webhooks.eventsRequired') }]}>
          <Checkbox.Group style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(150px, 1fr))', gap: 6 }}>
            {EVENTS.map((e) => (
              <Checkbox key={e} value={e}>
                {t(`webhooks.event.${e}`)}
              </Checkbox>
            ))}
          </Checkbox.Group>
        </Form.Item>
      </Form>
    </Modal>
  );
}
