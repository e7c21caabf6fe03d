import { PlusOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Checkbox, Empty, Form, Input, Modal, Popconfirm, Select, Space, Tabs, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import { queryKeys, refresh } from '../../api/queryKeys';
import type { AccessToken, AccessTokenScope } from '../../api/types';
import { useCan } from '../../app/abilities';
import { notifySuccess } from '../../app/notify';
import { CopyButton } from '../../components/CopyButton';
import { formatTime } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { QueryError } from '../../components/QueryError';
import { tone } from '../../components/tags';

const SCOPES: AccessTokenScope[] = ['read', 'produce', 'review', 'admin'];
const EXPIRY_DAYS = { d30: 30, d90: 90, d365: 365, never: null } as const;
type Expiry = keyof typeof EXPIRY_DAYS;
const STATUS_TONE: Record<AccessToken['status'], string> = { active: 'green', expired: 'default', invalidated: 'red' };

interface FormValues {
  name: string;
  scopes: AccessTokenScope[];
  expiry: Expiry;
}

/** The server's MCP endpoint as this console reaches it. */
const mcpUrl = () => `${window.location.origin}/mcp`;

/** Copy-ready client configurations (docs/integrations.md explains each). */
export function configSnippets(url: string, token: string) {
  return {
    claude: JSON.stringify(
      {
        mcpServers: {
          'content-production': {
            command: 'npx',
            args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${AUTH_HEADER}'],
            env: { AUTH_HEADER: `Bearer ${token}` },
          },
        },
      },
      null,
      2,
    ),
    cursor: JSON.stringify({ mcpServers: { 'content-production': { url, headers: { Authorization: `Bearer ${token}` } } } }, null, 2),
    dify: JSON.stringify({ 'content-production': { transport: 'streamable_http', url, headers: { Authorization: `Bearer ${token}` }, timeout: 60 } }, null, 2),
  };
}

/**
 * 集成: personal access tokens (contract-decisions §13) for scripts and assistants, and the
 * configuration that points Claude Desktop, Cursor or Dify at the MCP server with one.
 */
export default function IntegrationsPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string>();
  const tokens = useQuery({ queryKey: queryKeys.accessTokens(), queryFn: () => api.accessTokens.list() });
  const revoke = useMutation({
    mutationFn: (id: number) => api.accessTokens.revoke(id),
    onSuccess: () => {
      notifySuccess(t('integrations.revoked'));
      return refresh.accessTokens(queryClient);
    },
  });

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <PageTitle>{t('integrations.title')}</PageTitle>
        <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={() => setCreating(true)}>
          {t('integrations.create')}
        </Button>
      </Space>
      <Typography.Paragraph type="secondary">{t('integrations.intro')}</Typography.Paragraph>
      <QueryError error={tokens.error} />
      {tokens.data && tokens.data.items.length === 0 && <Empty description={t('integrations.empty')} />}
      <Space direction="vertical" size="middle" style={{ width: '100%' }}>
        {tokens.data?.items.map((token) => (
          <Card
            key={token.id}
            size="small"
            data-testid={`token-${token.id}`}
            title={
              <Space wrap size={4}>
                <span>{token.name}</span>
                <Typography.Text code>{`${token.token_hint}…`}</Typography.Text>
                <Tag color={tone(STATUS_TONE[token.status])}>{t(`integrations.status.${token.status}`)}</Tag>
              </Space>
            }
            extra={
              <Popconfirm title={t('integrations.revokeConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => revoke.mutate(token.id)}>
                <Button size="small" danger>
                  {t('integrations.revoke')}
                </Button>
              </Popconfirm>
            }
          >
            <div style={{ marginBottom: 6 }}>
              {token.scopes.map((s) => (
                <Tag key={s}>{t(`integrations.scopeShort.${s}`)}</Tag>
              ))}
            </div>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {[
                `${t('integrations.lastUsed')}：${token.last_used_at ? formatTime(token.last_used_at) : t('integrations.neverUsed')}`,
                `${t('integrations.expiresAt')}：${token.expires_at ? formatTime(token.expires_at) : t('integrations.neverExpires')}`,
                `${t('integrations.createdAt')}：${formatTime(token.created_at)}`,
              ].join(' · ')}
            </Typography.Text>
          </Card>
        ))}
      </Space>
      <ClientConfig token={created} />
      {creating && (
        <CreateTokenModal
          onClose={() => setCreating(false)}
          onCreated={(token) => {
            setCreated(token);
            void refresh.accessTokens(queryClient);
          }}
        />
      )}
    </>
  );
}

function ClientConfig({ token }: { token: string | undefined }) {
  const { t } = useTranslation();
  const url = mcpUrl();
  const snippets = configSnippets(url, token ?? t('integrations.tokenPlaceholder'));
  const snippet = (key: keyof typeof snippets, hint: string) => (
    <>
      <Typography.Paragraph type="secondary">{hint}</Typography.Paragraph>
      <pre data-testid={`config-${key}`} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', background: 'rgba(0,0,0,0.04)', padding: 12, borderRadius: 6 }}>
        {snippets[key]}
      </pre>
      <CopyButton text={snippets[key]} label={t('integrations.copyConfig')} />
    </>
  );
  return (
    <Card size="small" title={t('integrations.configTitle')} style={{ marginTop: 24 }}>
      <Typography.Paragraph>
        {t('integrations.configIntro')} <Typography.Text code>{url}</Typography.Text> <CopyButton text={url} label={t('integrations.serverUrl')} />
      </Typography.Paragraph>
      <Tabs
        items={[
          { key: 'claude', label: 'Claude Desktop', children: snippet('claude', t('integrations.claudeHint')) },
          { key: 'cursor', label: 'Cursor', children: snippet('cursor', t('integrations.cursorHint')) },
          { key: 'dify', label: 'Dify', children: snippet('dify', t('integrations.difyHint')) },
        ]}
      />
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('integrations.postsLater')}
      </Typography.Text>
    </Card>
  );
}

function CreateTokenModal({ onClose, onCreated }: { onClose: () => void; onCreated: (token: string) => void }) {
  const { t } = useTranslation();
  const can = useCan();
  const [form] = Form.useForm<FormValues>();
  const [shown, setShown] = useState<string>();
  // A scope the role can never use is not offered (the server refuses it too).
  const offered = SCOPES.filter((s) => s !== 'review' || can('review.decide'));
  const save = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: FormValues) => {
      const days = EXPIRY_DAYS[v.expiry];
      return api.accessTokens.create({
        name: v.name.trim(),
        scopes: v.scopes,
        expires_at: days === null ? null : new Date(Date.now() + days * 86_400_000).toISOString(),
      });
    },
    onSuccess: (made) => {
      setShown(made.token);
      onCreated(made.token);
    },
  });
  if (shown) {
    return (
      <Modal open title={t('integrations.createdTitle')} onCancel={onClose} onOk={onClose} okText={t('form.ok')} cancelButtonProps={{ style: { display: 'none' } }} destroyOnHidden>
        <Alert type="warning" showIcon title={t('integrations.createdOnce')} style={{ marginBottom: 12 }} />
        <Typography.Paragraph>
          <Typography.Text code data-testid="new-token" style={{ wordBreak: 'break-all' }}>
            {shown}
          </Typography.Text>
        </Typography.Paragraph>
        <CopyButton text={shown} label={t('integrations.copyToken')} />
      </Modal>
    );
  }
  return (
    <Modal
      open
      title={t('integrations.create')}
      okText={t('integrations.create')}
      cancelText={t('form.cancel')}
      confirmLoading={save.isPending}
      onCancel={onClose}
      onOk={() => form.submit()}
      destroyOnHidden
    >
      {save.error && <Alert type="error" showIcon role="alert" title={errorMessage(save.error)} style={{ marginBottom: 12 }} />}
      <Form<FormValues> form={form} layout="vertical" initialValues={{ scopes: ['read', 'produce'], expiry: 'd90' }} onFinish={(v) => save.mutate(v)}>
        <Form.Item label={t('integrations.name')} name="name" rules={[{ required: true, whitespace: true, max: 60, message: t('form.required') }]}>
          <Input placeholder={t('integrations.namePlaceholder')} autoComplete="off" />
        </Form.Item>
        <Form.Item label={t('integrations.scopes')} name="scopes" rules={[{ required: true, type: 'array', min: 1, message: t('integrations.scopesRequired') }]}>
          <Checkbox.Group style={{ display: 'grid', gap: 6 }}>
            {offered.map((s) => (
              <Checkbox key={s} value={s}>
                {t(`integrations.scope.${s}`)}
              </Checkbox>
            ))}
          </Checkbox.Group>
        </Form.Item>
        <Form.Item label={t('integrations.expires')} name="expiry">
          <Select options={(Object.keys(EXPIRY_DAYS) as Expiry[]).map((k) => ({ value: k, label: t(`integrations.expiry.${k}`) }))} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
