import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, AutoComplete, Button, Card, Col, Descriptions, Form, Input, InputNumber, Modal, Popconfirm, Row, Select, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { cause } from '../../api/errorText';
import { api } from '../../api/endpoints';
import type { ApiKey } from '../../api/types';
import { useCan } from '../../app/abilities';
import { PageTitle } from '../../components/PageTitle';
import { QueryError } from '../../components/QueryError';
import { tone } from '../../components/tags';
import { PROVIDERS, providerName } from './providerNames';
import { queryKeys, refresh } from '../../api/queryKeys';

type Capability = 'text' | 'vision' | 'image';
const CAPABILITIES: Capability[] = ['text', 'vision', 'image'];

interface Values {
  provider: string;
  name?: string;
  api_key?: string;
  base_url?: string;
  text_model?: string;
  vision_model?: string;
  image_model?: string;
  image_size?: string;
  concurrency?: number | null;
  rpm?: number | null;
  tpm?: number | null;
  thinking?: Options['thinking'];
  token_param?: Options['token_param'];
  temperature?: Options['temperature'];
}

type Options = ApiKey['options'];

const OPTION_VALUES = {
  thinking: ['off', 'on', 'provider_default'],
  token_param: ['auto', 'max_tokens', 'max_completion_tokens'],
  temperature: ['auto', 'omit'],
} as const;

/**
 * AI service connections (contract-decisions §7): add a provider by its Chinese name with its
 * defaults prefilled, edit endpoint and models, test it (each capability's result and latency),
 * and choose which connection writes, sees and draws for the workspace.
 */
export default function ApiKeysPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<ApiKey | 'new' | null>(null);
  const keys = useQuery({ queryKey: queryKeys.apiKeys.list(), queryFn: () => api.apiKeys.list({ page: 1, page_size: 100 }) });
  const presets = useQuery({ queryKey: queryKeys.apiKeys.presets(), queryFn: api.apiKeys.presets, staleTime: Infinity });
  const routing = useQuery({ queryKey: queryKeys.apiKeys.routing(), queryFn: api.apiKeys.routing });
  const reload = () => refresh.apiKeys(queryClient);
  const remove = useMutation({ mutationFn: api.apiKeys.remove, onSuccess: reload });
  const test = useMutation({ meta: { inlineError: true }, mutationFn: ({ id, image }: { id: number; image: boolean }) => api.apiKeys.test(id, image), onSuccess: reload });
  const route = useMutation({ meta: { inlineError: true }, mutationFn: api.apiKeys.setRouting, onSuccess: reload });
  const connections = keys.data?.items ?? [];
  const canRoute = useCan()('generation_routing.write');

  return (
    <>
      <PageTitle style={{ marginBottom: 16 }}>{t('connections.title')}</PageTitle>
      <Typography.Paragraph type="secondary">{t('connections.intro')}</Typography.Paragraph>
      <QueryError error={keys.error ?? routing.error} />

      <Card size="small" title={t('connections.routing')} style={{ marginBottom: 16 }}>
        {route.error && <Alert type="error" showIcon role="alert" title={errorMessage(route.error)} style={{ marginBottom: 12 }} />}
        <Row gutter={[16, 12]}>
          {CAPABILITIES.map((capability) => (
            <Col xs={24} md={8} key={capability}>
              <div style={{ marginBottom: 4 }}>{t(`connections.use.${capability}`)}</div>
              <Select
                style={{ width: '100%' }}
                aria-label={t(`connections.use.${capability}`)}
                disabled={!canRoute || !routing.data}
                value={routing.data?.[`${capability}_key_id`] ?? 0}
                options={[
                  { value: 0, label: t('connections.automatic') },
                  ...connections.filter((c) => c.capabilities[capability]).map((c) => ({ value: c.id, label: `${c.name} · ${modelOf(c, capability)}` })),
                ]}
                onChange={(value: number) => {
                  if (!routing.data) return;
                  const { text_key_id, vision_key_id, image_key_id } = routing.data;
                  route.mutate({ text_key_id, vision_key_id, image_key_id, [`${capability}_key_id`]: value || null });
                }}
              />
              {routing.data?.warnings
                .filter((w) => w.capability === capability)
                .map((w) => (
                  <Alert
                    key={w.key_id}
                    type="warning"
                    showIcon
                    style={{ marginTop: 4 }}
                    data-testid="route-warning"
                    title={t('connections.routeWarning', { name: connections.find((c) => c.id === w.key_id)?.name ?? `#${w.key_id}`, cause: cause(t, w.error_kind) })}
                  />
                ))}
            </Col>
          ))}
        </Row>
        <Typography.Text type="secondary">{t('connections.automaticSkips')}</Typography.Text>
        {!canRoute && <Typography.Text type="secondary"> {t('connections.routingRole')}</Typography.Text>}
      </Card>

      <Space style={{ marginBottom: 16 }}>
        <Button type="primary" onClick={() => setEditing('new')}>
          {t('connections.add')}
        </Button>
      </Space>
      {test.error && <Alert type="error" showIcon role="alert" title={errorMessage(test.error)} style={{ marginBottom: 12 }} />}
      {!keys.isLoading && connections.length === 0 && <Alert type="info" showIcon title={t('connections.empty')} />}
      <Row gutter={[16, 16]}>
        {connections.map((c) => (
          <Col xs={24} lg={12} key={c.id}>
            <Card
              size="small"
              data-testid="connection"
              title={
                <Space wrap>
                  <span>{c.name}</span>
                  <Tag>{providerName(c.provider)}</Tag>
                </Space>
              }
              extra={<code>••••{c.key_last4}</code>}
              // Operators look after the connections they added: each says what the user may do with it.
              actions={[
                ...(c.allowed_actions.includes('test')
                  ? [
                      <Button key="test" type="link" loading={test.isPending && test.variables?.id === c.id && !test.variables.image} onClick={() => test.mutate({ id: c.id, image: false })}>
                        {t('connections.test')}
                      </Button>,
                    ]
                  : []),
                ...(c.capabilities.image && c.allowed_actions.includes('test')
                  ? [
                      <Button key="test-image" type="link" loading={test.isPending && test.variables?.id === c.id && test.variables.image} onClick={() => test.mutate({ id: c.id, image: true })}>
                        {t('connections.testImage')}
                      </Button>,
                    ]
                  : []),
                ...(c.allowed_actions.includes('update')
                  ? [
                      <Button key="edit" type="link" onClick={() => setEditing(c)}>
                        {t('form.edit')}
                      </Button>,
                    ]
                  : []),
                ...(c.allowed_actions.includes('delete')
                  ? [
                      <Popconfirm key="delete" title={t('apiKeys.deleteConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => remove.mutate(c.id)}>
                        <Button type="link" danger>
                          {t('form.delete')}
                        </Button>
                      </Popconfirm>,
                    ]
                  : []),
              ]}
            >
              <Space wrap style={{ marginBottom: 8 }}>
                {CAPABILITIES.map((capability) => (
                  <Tag key={capability} color={c.capabilities[capability] ? tone('green') : undefined}>
                    {t(`connections.can.${capability}`)}
                    {c.capabilities[capability] ? '' : ` · ${t('connections.none')}`}
                  </Tag>
                ))}
              </Space>
              <Descriptions size="small" column={1} items={[
                { key: 'text', label: t('connections.textModel'), children: c.text_model || '—' },
                { key: 'vision', label: t('connections.visionModel'), children: c.vision_model || '—' },
                { key: 'image', label: t('connections.imageModel'), children: c.image_model || '—' },
                { key: 'base', label: t('connections.baseUrl'), children: <span style={{ wordBreak: 'break-all' }}>{c.base_url}</span> },
              ]} />
              {c.retiring.map((r) => (
                <Alert
                  key={`${r.capability}:${r.model}`}
                  type={r.retires_on <= today() ? 'error' : 'warning'}
                  showIcon
                  style={{ marginTop: 4 }}
                  data-testid="retiring"
                  title={t(r.retires_on <= today() ? 'connections.retired' : 'connections.retiring', { model: r.model, capability: t(`connections.can.${r.capability}`), date: r.retires_on })}
                />
              ))}
              {c.last_test && (
                <div data-testid="last-test" style={{ marginTop: 8 }}>
                  {c.last_test.results.map((r) => (
                    <Alert
                      key={r.capability}
                      type={r.ok ? 'success' : 'error'}
                      showIcon
                      style={{ marginTop: 4 }}
                      title={`${t(`connections.can.${r.capability}`)} · ${r.model} · ${r.latency_ms} ms`}
                      description={r.ok ? t('connections.testOk') : cause(t, r.error_kind)}
                    />
                  ))}
                </div>
              )}
            </Card>
          </Col>
        ))}
      </Row>
      {editing && (
        <ConnectionForm
          editing={editing === 'new' ? null : editing}
          presets={presets.data ?? []}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void reload();
          }}
        />
      )}
    </>
  );
}

const today = () => new Date().toISOString().slice(0, 10);

function modelOf(c: ApiKey, capability: Capability): string {
  return capability === 'text' ? c.text_model : capability === 'vision' ? c.vision_model : c.image_model;
}

type Preset = Awaited<ReturnType<typeof api.apiKeys.presets>>[number];

function ConnectionForm(props: { editing: ApiKey | null; presets: Preset[]; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const { editing, presets } = props;
  const [form] = Form.useForm<Values>();
  const fill = (provider: string) => {
    const preset = presets.find((p) => p.provider === provider);
    form.setFieldsValue({
      base_url: preset?.base_url ?? '',
      text_model: preset?.text_model ?? '',
      vision_model: preset?.vision_model ?? '',
      image_model: preset?.image_model ?? '',
      concurrency: preset?.concurrency ?? null,
    });
  };
  const save = useMutation({
    meta: { inlineError: true },
    mutationFn: async (v: Values) => {
      // The preset's own endpoint is sent empty, so the connection follows the preset and its
      // address is not looked up on save like a typed one.
      const defaultUrl = presets.find((p) => p.provider === v.provider)?.base_url ?? '';
      const baseUrl = v.base_url?.trim() ?? '';
      // Sent only when changed: empty is the preset's default (null), and an untouched field keeps what the connection has.
      const pace: { rpm?: number | null; tpm?: number | null } = {
        ...(form.isFieldTouched('rpm') ? { rpm: v.rpm ?? null } : {}),
        ...(form.isFieldTouched('tpm') ? { tpm: v.tpm ?? null } : {}),
      };
      const body = {
        name: v.name?.trim() || undefined,
        base_url: baseUrl === defaultUrl ? '' : baseUrl,
        text_model: v.text_model?.trim() ?? '',
        vision_model: v.vision_model?.trim() ?? '',
        image_model: v.image_model?.trim() ?? '',
        image_size: v.image_size?.trim() ?? '',
        concurrency: v.concurrency ?? null,
        ...pace,
        options: { thinking: v.thinking ?? 'off', token_param: v.token_param ?? 'auto', temperature: v.temperature ?? 'auto' },
        ...(v.api_key?.trim() ? { api_key: v.api_key.trim() } : {}),
      };
      const local = v.provider === 'local';
      if (editing) return api.apiKeys.update(editing.id, local ? { name: body.name, ...(body.api_key ? { api_key: body.api_key } : {}) } : body);
      return api.apiKeys.create(local ? { provider: v.provider, api_key: body.api_key ?? '', name: body.name } : { provider: v.provider, api_key: body.api_key ?? '', ...body });
    },
    onSuccess: props.onSaved,
  });
  const provider = Form.useWatch('provider', form);
  const preset = presets.find((p) => p.provider === provider);
  // The provider's own list costs a call with the stored key: read when asked, for a saved connection.
  const models = useQuery({ queryKey: queryKeys.apiKeys.models(editing?.id ?? 0), queryFn: () => api.apiKeys.models(editing!.id), enabled: false, staleTime: 5 * 60_000 });
  const modelOptions = (capability: Capability) =>
    (models.data?.models ?? [])
      .filter((m) => m.capabilities.includes(capability))
      .map((m) => ({ value: m.id, label: m.retires_on ? `${m.id} · ${t('connections.retiresOn', { date: m.retires_on })}` : m.id }));
  return (
    <Modal open title={editing ? t('connections.edit') : t('connections.add')} onCancel={props.onClose} onOk={() => form.submit()} okText={t('form.save')} cancelText={t('form.cancel')} confirmLoading={save.isPending} width={640}>
      {save.error && <Alert type="error" showIcon role="alert" title={errorMessage(save.error)} style={{ marginBottom: 12 }} />}
      <Form<Values>
        form={form}
        layout="vertical"
        onFinish={(v) => save.mutate(v)}
        initialValues={
          editing
            ? { provider: editing.provider, name: editing.name, base_url: editing.base_url, text_model: editing.text_model, vision_model: editing.vision_model, image_model: editing.image_model, image_size: editing.image_size ?? '', concurrency: editing.concurrency, ...editing.options }
            : { provider: 'qwen', ...presetValues(presets, 'qwen'), thinking: 'off', token_param: 'auto', temperature: 'auto' }
        }
      >
        <Form.Item label={t('apiKeys.provider')} name="provider" rules={[{ required: true }]}>
          <Select disabled={Boolean(editing)} options={PROVIDERS.map((p) => ({ value: p.value, label: p.label }))} onChange={(v: string) => fill(v)} />
        </Form.Item>
        {preset && (
          <Typography.Paragraph type="secondary">
            {t('connections.presetHint', {
              caps: CAPABILITIES.filter((c) => (c === 'text' ? preset.text_model : c === 'vision' ? preset.vision_model : preset.image_model)).map((c) => t(`connections.can.${c}`)).join('、') || '—',
            })}
            {preset.draws_images && !preset.reference_images ? ` ${t('connections.noReference')}` : ''}
          </Typography.Paragraph>
        )}
        <Form.Item label={t('connections.name')} name="name">
          <Input maxLength={60} placeholder={providerName(provider ?? '')} />
        </Form.Item>
        <Form.Item
          label={t('apiKeys.key')}
          name="api_key"
          dependencies={['base_url']}
          rules={
            editing
              ? [
                  // The server sends a stored key only to the address it was entered for.
                  ({ getFieldValue }) => ({
                    validator: (_, v?: string) => (v?.trim() || (getFieldValue('base_url') ?? '').trim() === (editing.base_url ?? '') ? Promise.resolve() : Promise.reject(new Error(t('connections.keyForNewUrl')))),
                  }),
                ]
              : [{ required: true, whitespace: true, message: t('form.required') }]
          }
          extra={editing ? t('connections.keepKey') : t('apiKeys.hint')}
        >
          <Input.Password autoComplete="off" />
        </Form.Item>
        {provider !== 'local' && (
          <>
            <Form.Item label={t('connections.baseUrl')} name="base_url" rules={provider === 'openai-compatible' ? [{ required: true, message: t('form.required') }] : []}>
              <Input placeholder="https://" />
            </Form.Item>
            <Row gutter={12}>
              <Col xs={24} md={8}>
                <Form.Item label={t('connections.textModel')} name="text_model" extra={t('connections.emptyModel')}>
                  <AutoComplete options={modelOptions('text')} />
                </Form.Item>
              </Col>
              <Col xs={24} md={8}>
                <Form.Item label={t('connections.visionModel')} name="vision_model">
                  <AutoComplete options={modelOptions('vision')} />
                </Form.Item>
              </Col>
              <Col xs={24} md={8}>
                <Form.Item label={t('connections.imageModel')} name="image_model">
                  <AutoComplete options={modelOptions('image')} disabled={Boolean(preset && !preset.draws_images)} />
                </Form.Item>
              </Col>
            </Row>
            {editing && (
              <div style={{ marginBottom: 12 }}>
                <Button size="small" loading={models.isFetching} onClick={() => void models.refetch()}>
                  {t('connections.loadModels')}
                </Button>
                {models.data && !models.data.ok && <Alert type="error" showIcon style={{ marginTop: 8 }} title={t('connections.modelsFailed', { cause: cause(t, models.data.error_kind) })} />}
                {models.data?.source === 'catalogue' && <Typography.Text type="secondary"> {t('connections.modelsFromCatalogue')}</Typography.Text>}
              </div>
            )}
            <Row gutter={12}>
              <Col xs={24} md={12}>
                <Form.Item label={t('connections.imageSize')} name="image_size" extra={t('connections.imageSizeHint')}>
                  <Input placeholder="2K / 1536x2048" />
                </Form.Item>
              </Col>
              <Col xs={24} md={12}>
                <Form.Item label={t('connections.concurrency')} name="concurrency">
                  <InputNumber min={1} max={64} style={{ width: '100%' }} />
                </Form.Item>
              </Col>
            </Row>
            <Row gutter={12}>
              {(['rpm', 'tpm'] as const).map((field) => {
                // What the connection is paced to now (its own, else the preset's; 0: not paced); a new connection, its preset's.
                const effective = editing ? editing[field] : (preset?.[field] ?? null);
                const shown = effective === null ? null : effective === 0 ? t('batches.connectionPace.unpaced') : effective.toLocaleString();
                return (
                  <Col xs={24} md={12} key={field}>
                    <Form.Item
                      label={t(`batches.connectionPace.${field}`)}
                      name={field}
                      tooltip={t('batches.connectionPace.hint')}
                      extra={shown === null ? t('batches.connectionPace.effectiveUnknown') : t('batches.connectionPace.effective', { value: shown })}
                    >
                      <InputNumber
                        min={field === 'rpm' ? 1 : 1000}
                        max={field === 'rpm' ? 100_000 : 100_000_000}
                        precision={0}
                        placeholder={shown ?? t('batches.connectionPace.presetDefault')}
                        style={{ width: '100%' }}
                        data-testid={`connection-${field}`}
                      />
                    </Form.Item>
                  </Col>
                );
              })}
            </Row>
            <Typography.Text strong>{t('connections.options')}</Typography.Text>
            <Row gutter={12} style={{ marginTop: 8 }}>
              {(['thinking', 'token_param', 'temperature'] as const).map((option) => (
                <Col xs={24} md={8} key={option}>
                  <Form.Item label={t(`connections.${option === 'token_param' ? 'tokenParam' : option}`)} name={option} extra={option === 'thinking' ? t('connections.thinkingHint') : undefined}>
                    <Select options={OPTION_VALUES[option].map((value) => ({ value, label: t(`connections.${option === 'token_param' ? 'tokenParam' : option}Values.${value}`) }))} />
                  </Form.Item>
                </Col>
              ))}
            </Row>
          </>
        )}
      </Form>
    </Modal>
  );
}

function presetValues(presets: Preset[], provider: string): Partial<Values> {
  const preset = presets.find((p) => p.provider === provider);
  return preset ? { base_url: preset.base_url, text_model: preset.text_model, vision_model: preset.vision_model, image_model: preset.image_model, concurrency: preset.concurrency } : {};
}
