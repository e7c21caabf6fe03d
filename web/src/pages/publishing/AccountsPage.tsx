import { PlusOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Empty, Form, Grid, Input, InputNumber, Modal, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import { queryKeys, refresh } from '../../api/queryKeys';
import type { Account, AccountBody } from '../../api/types';
import { useCan } from '../../app/abilities';
import { notifySuccess } from '../../app/notify';
import { PageTitle } from '../../components/PageTitle';
import { QueryError } from '../../components/QueryError';
import { tone } from '../../components/tags';

interface FormValues {
  name: string;
  profile_url?: string;
  persona?: string;
  daily_cap: number;
  min_gap_minutes: number;
  timezone: string;
}

const DEFAULTS: FormValues = { name: '', daily_cap: 2, min_gap_minutes: 180, timezone: 'Asia/Shanghai' };

/**
 * 账号 (`/accounts`): the Xiaohongshu accounts the team posts from, with their pace (daily cap,
 * minimum gap). Supervisors and admins add, edit, deactivate and delete them; everyone sees them.
 * Cards on a phone, a table on a desk.
 */
export default function AccountsPage() {
  const { t } = useTranslation();
  const can = useCan();
  const manage = can('accounts.manage');
  const queryClient = useQueryClient();
  const phone = !(Grid.useBreakpoint().sm ?? true);
  const [editing, setEditing] = useState<Account | 'new'>();
  const accounts = useQuery({ queryKey: queryKeys.accounts.list({}), queryFn: () => api.accounts.list({ page: 1, page_size: 100 }) });
  const reload = () => refresh.accounts(queryClient);
  const toggle = useMutation({
    mutationFn: (a: Account) => api.accounts.update(a.id, { active: !a.active }),
    onSuccess: (a) => {
      notifySuccess(t(a.active ? 'publishing.accounts.activated' : 'publishing.accounts.deactivatedDone', { name: a.name }));
      void reload();
    },
  });
  const remove = useMutation({
    mutationFn: async (a: Account) => ({ account: a, result: await api.accounts.remove(a.id) }),
    onSuccess: ({ account, result }) => {
      notifySuccess(t(result.deleted ? 'publishing.accounts.deleted' : 'publishing.accounts.deactivated', { name: account.name }));
      void reload();
    },
  });
  const items = accounts.data?.items ?? [];

  const statusTag = (a: Account) => (
    <Tag color={tone(a.active ? 'green' : 'default')}>{t(a.active ? 'publishing.accounts.active' : 'publishing.accounts.inactive')}</Tag>
  );
  const actions = (a: Account) =>
    manage && (
      <Space wrap size={4}>
        <Button size="small" onClick={() => setEditing(a)}>
          {t('form.edit')}
        </Button>
        <Button size="small" loading={toggle.isPending && toggle.variables?.id === a.id} onClick={() => toggle.mutate(a)}>
          {t(a.active ? 'publishing.accounts.deactivate' : 'publishing.accounts.activate')}
        </Button>
        <Popconfirm
          title={t('publishing.accounts.deleteConfirm', { name: a.name })}
          okText={t('form.ok')}
          cancelText={t('form.cancel')}
          onConfirm={() => remove.mutate(a)}
          styles={{ root: { maxWidth: 320 } }}
        >
          <Button size="small" danger>
            {t('form.delete')}
          </Button>
        </Popconfirm>
      </Space>
    );
  const pace = (a: Account) => t('publishing.accounts.pace', { cap: a.daily_cap, gap: a.min_gap_minutes });
  const profile = (a: Account) =>
    a.profile_url ? (
      <a href={a.profile_url} target="_blank" rel="noreferrer" style={{ wordBreak: 'break-all' }}>
        {a.profile_url}
      </a>
    ) : null;

  const columns: TableColumnsType<Account> = [
    {
      title: t('publishing.accounts.name'),
      dataIndex: 'name',
      render: (_, a) => (
        <Space orientation="vertical" size={0}>
          <Typography.Text strong>{a.name}</Typography.Text>
          {profile(a)}
        </Space>
      ),
    },
    {
      title: t('publishing.accounts.persona'),
      dataIndex: 'persona',
      render: (v: string | null) => (v ? <Typography.Paragraph ellipsis={{ rows: 2, tooltip: v }} style={{ margin: 0 }}>{v}</Typography.Paragraph> : '—'),
    },
    { title: t('publishing.accounts.dailyCap'), dataIndex: 'daily_cap', width: 110 },
    { title: t('publishing.accounts.minGap'), dataIndex: 'min_gap_minutes', width: 130 },
    { title: t('publishing.accounts.timezone'), dataIndex: 'timezone', width: 140 },
    { title: t('publishing.accounts.status'), dataIndex: 'active', width: 90, render: (_, a) => statusTag(a) },
    ...(manage ? [{ title: t('form.actions'), key: 'actions', render: (_: unknown, a: Account) => actions(a) }] : []),
  ];

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <PageTitle>{t('publishing.accounts.title')}</PageTitle>
        {manage && (
          <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={() => setEditing('new')}>
            {t('publishing.accounts.add')}
          </Button>
        )}
      </Space>
      <Typography.Paragraph type="secondary">{t('publishing.accounts.intro')}</Typography.Paragraph>
      <QueryError error={accounts.error} />
      {accounts.data && items.length === 0 && <Empty description={t('publishing.accounts.empty')} />}
      {phone ? (
        <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
          {items.map((a) => (
            <Card key={a.id} size="small" data-testid={`account-${a.id}`} title={a.name} extra={statusTag(a)}>
              {profile(a)}
              {a.persona && <Typography.Paragraph type="secondary" ellipsis={{ rows: 3 }} style={{ margin: '4px 0' }}>{a.persona}</Typography.Paragraph>}
              <div>
                <Typography.Text>{pace(a)}</Typography.Text>
                <Typography.Text type="secondary"> · {a.timezone}</Typography.Text>
              </div>
              {manage && <div style={{ marginTop: 8 }}>{actions(a)}</div>}
            </Card>
          ))}
        </Space>
      ) : (
        items.length > 0 && <Table<Account> rowKey="id" columns={columns} dataSource={items} pagination={false} size="middle" />
      )}
      {editing && <AccountForm account={editing === 'new' ? undefined : editing} onClose={() => setEditing(undefined)} onSaved={reload} />}
    </>
  );
}

function AccountForm({ account, onClose, onSaved }: { account: Account | undefined; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<FormValues>();
  const save = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: FormValues) => {
      const body: AccountBody = {
        name: v.name.trim(),
        profile_url: v.profile_url?.trim() || null,
        persona: v.persona?.trim() || null,
        daily_cap: v.daily_cap,
        min_gap_minutes: v.min_gap_minutes,
        timezone: v.timezone.trim(),
      };
      return account ? api.accounts.update(account.id, body) : api.accounts.create(body);
    },
    onSuccess: () => {
      notifySuccess(t('form.saved'));
      onSaved();
      onClose();
    },
  });
  return (
    <Modal
      open
      title={account ? t('publishing.accounts.edit') : t('publishing.accounts.add')}
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
        initialValues={
          account
            ? {
                name: account.name,
                profile_url: account.profile_url ?? undefined,
                persona: account.persona ?? undefined,
                daily_cap: account.daily_cap,
                min_gap_minutes: account.min_gap_minutes,
                timezone: account.timezone,
              }
            : DEFAULTS
        }
        onFinish={(v) => save.mutate(v)}
      >
        <Form.Item label={t('publishing.accounts.name')} name="name" rules={[{ required: true, whitespace: true, message: t('form.required') }, { max: 40 }]}>
          <Input maxLength={40} showCount autoComplete="off" />
        </Form.Item>
        <Form.Item label={t('publishing.accounts.profileUrl')} name="profile_url" extra={t('publishing.accounts.profileUrlHint')} rules={[{ type: 'url', message: t('apiError.badUrl') }]}>
          <Input inputMode="url" autoComplete="off" placeholder="https://www.xiaohongshu.com/user/profile/…" />
        </Form.Item>
        <Form.Item label={t('publishing.accounts.persona')} name="persona" extra={t('publishing.accounts.personaHint')} rules={[{ max: 500 }]}>
          <Input.TextArea maxLength={500} showCount autoSize={{ minRows: 3, maxRows: 8 }} />
        </Form.Item>
        <Space wrap size="middle">
          <Form.Item label={t('publishing.accounts.dailyCap')} name="daily_cap" rules={[{ required: true, message: t('form.required') }]}>
            <InputNumber min={1} max={10} precision={0} />
          </Form.Item>
          <Form.Item label={t('publishing.accounts.minGap')} name="min_gap_minutes" rules={[{ required: true, message: t('form.required') }]}>
            <InputNumber min={0} max={1440} step={30} precision={0} />
          </Form.Item>
          <Form.Item label={t('publishing.accounts.timezone')} name="timezone" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
            <Input autoComplete="off" style={{ width: 180 }} />
          </Form.Item>
        </Space>
      </Form>
    </Modal>
  );
}
