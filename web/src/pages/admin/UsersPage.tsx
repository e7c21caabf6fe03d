import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Modal, Popconfirm, Select, Space, Switch, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ResponsiveTable } from '../../components/ResponsiveTable';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import type { AdminUser, Role } from '../../api/types';
import { notifySuccess } from '../../app/notify';
import { useMe } from '../../app/session';
import { formatTime } from '../../components/format';
import { QueryError } from '../../components/QueryError';
import { usePaging } from '../../components/usePaging';
import { tone } from '../../components/tags';
import { PageTitle } from '../../components/PageTitle';
import { queryKeys, refresh } from '../../api/queryKeys';

export const ROLES: Role[] = ['operator', 'supervisor', 'admin'];

interface CreateValues {
  username: string;
  email: string;
  password: string;
  role: Role;
}

export default function UsersPage() {
  const { t } = useTranslation();
  const me = useMe();
  const paging = usePaging();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [resetting, setResetting] = useState<AdminUser>();
  const [createForm] = Form.useForm<CreateValues>();
  const [resetForm] = Form.useForm<{ password: string }>();
  const users = useQuery({ queryKey: queryKeys.users.list(paging.query), queryFn: () => api.users.list(paging.query), placeholderData: keepPreviousData });
  const reload = () => refresh.users(queryClient);
  const create = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: CreateValues) => api.users.create({ ...v, username: v.username.trim(), email: v.email.trim() }),
    onSuccess: () => {
      setCreating(false);
      createForm.resetFields();
      void reload();
    },
  });
  const update = useMutation({
    mutationFn: (v: { id: number; body: Parameters<typeof api.users.update>[1] }) => api.users.update(v.id, v.body),
    onSuccess: reload,
  });
  const reset = useMutation({
    meta: { inlineError: true },
    mutationFn: (password: string) => api.users.update(resetting!.id, { password }),
    onSuccess: () => {
      setResetting(undefined);
      notifySuccess(t('users.resetDone'));
      void reload();
    },
  });
  const removeMember = useMutation({
    mutationFn: (userId: number) => api.workspaces.removeMember(me.data!.current_workspace_id!, userId),
    onSuccess: reload,
  });

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <PageTitle>
          {t('users.title', { workspace: me.data?.workspace.name ?? '' })}
        </PageTitle>
        <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={() => setCreating(true)}>
          {t('users.create')}
        </Button>
      </Space>
      <QueryError error={users.error} />
      <ResponsiveTable<AdminUser>
        rowKey="id"
        loading={users.isFetching}
        dataSource={users.data?.items}
        pagination={paging.pagination(users.data?.total)}
        columns={[
          { title: t('users.username'), dataIndex: 'username' },
          { title: t('users.email'), dataIndex: 'email' },
          {
            title: t('users.role'),
            dataIndex: 'role',
            render: (role: Role, row) => (
              <Select
                aria-label={t('users.roleOf', { name: row.username })}
                size="small"
                value={role}
                style={{ width: 120 }}
                onChange={(r: Role) => update.mutate({ id: row.id, body: { role: r } })}
                options={ROLES.map((r) => ({ value: r, label: t(`role.${r}`) }))}
              />
            ),
          },
          {
            title: t('users.active'),
            dataIndex: 'is_active',
            render: (active: boolean, row) => (
              <Switch
                aria-label={t('users.activeOf', { name: row.username })}
                size="small"
                checked={active}
                disabled={row.id === me.data?.id}
                onChange={(v) => update.mutate({ id: row.id, body: { is_active: v } })}
              />
            ),
          },
          {
            title: t('users.mustChange'),
            dataIndex: 'must_change_password',
            render: (v: boolean) => (v ? <Tag color={tone('orange')}>{t('form.yes')}</Tag> : t('form.no')),
          },
          { title: t('tasks.createdAt'), dataIndex: 'created_at', render: formatTime },
          {
            title: t('form.actions'),
            key: 'actions',
            render: (_, row) => (
              <Space>
                <Button type="link" size="small" onClick={() => setResetting(row)}>
                  {t('users.resetPassword')}
                </Button>
                <Popconfirm title={t('users.removeConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => removeMember.mutate(row.id)}>
                  <Button type="link" size="small" danger disabled={row.id === me.data?.id}>
                    {t('users.remove')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      <Modal
        open={creating}
        title={t('users.create')}
        okText={t('form.save')}
        cancelText={t('form.cancel')}
        confirmLoading={create.isPending}
        onCancel={() => setCreating(false)}
        onOk={() => createForm.submit()}
        forceRender
      >
        {create.error && <Alert type="error" showIcon role="alert" title={errorMessage(create.error)} style={{ marginBottom: 12 }} />}
        <Form<CreateValues> form={createForm} layout="vertical" initialValues={{ role: 'operator' }} onFinish={(v) => create.mutate(v)}>
          <Form.Item label={t('users.username')} name="username" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item label={t('users.email')} name="email" rules={[{ required: true, type: 'email', message: t('users.emailInvalid') }]}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item label={t('users.initialPassword')} name="password" rules={[{ required: true, min: 10, message: t('password.minLength') }]}>
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Form.Item label={t('users.role')} name="role">
            <Select options={ROLES.map((r) => ({ value: r, label: t(`role.${r}`) }))} />
          </Form.Item>
        </Form>
      </Modal>
      <Modal
        open={Boolean(resetting)}
        title={t('users.resetFor', { name: resetting?.username })}
        okText={t('form.save')}
        cancelText={t('form.cancel')}
        confirmLoading={reset.isPending}
        onCancel={() => setResetting(undefined)}
        onOk={() => resetForm.submit()}
        destroyOnHidden
      >
        {reset.error && <Alert type="error" showIcon role="alert" title={errorMessage(reset.error)} style={{ marginBottom: 12 }} />}
        <Form form={resetForm} layout="vertical" onFinish={(v: { password: string }) => reset.mutate(v.password)} preserve={false}>
          <Form.Item label={t('users.newPassword')} name="password" rules={[{ required: true, min: 10, message: t('password.minLength') }]} extra={t('users.resetHint')}>
            <Input.Password autoComplete="new-password" />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
