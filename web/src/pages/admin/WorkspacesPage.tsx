import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Modal, Select, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import type { Role, WorkspaceItem } from '../../api/types';
import { notifySuccess } from '../../app/notify';
import { QueryError } from '../../components/QueryError';
import { ROLES } from './UsersPage';

interface MemberValues {
  username: string;
  role: Role;
}

export default function WorkspacesPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ name: string; slug: string }>();
  const [memberForm] = Form.useForm<MemberValues>();
  const [adding, setAdding] = useState<WorkspaceItem>();
  const workspaces = useQuery({ queryKey: ['workspaces'], queryFn: api.workspaces.list });
  const create = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: { name: string; slug: string }) => api.workspaces.create(v.name.trim(), v.slug.trim()),
    onSuccess: () => {
      form.resetFields();
      void queryClient.invalidateQueries({ queryKey: ['workspaces'] });
    },
  });
  const addMember = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: MemberValues) => api.workspaces.addMember(adding!.id, v.username.trim(), v.role),
    onSuccess: () => {
      setAdding(undefined);
      notifySuccess(t('workspaces.memberAdded'));
      void queryClient.invalidateQueries({ queryKey: ['users'] });
    },
  });
  return (
    <>
      <Typography.Title level={3} style={{ marginTop: 0 }}>
        {t('workspaces.title')}
      </Typography.Title>
      <Card size="small" title={t('workspaces.create')} style={{ marginBottom: 16, maxWidth: 720 }}>
        {create.error && <Alert type="error" showIcon role="alert" title={errorMessage(create.error)} style={{ marginBottom: 12 }} />}
        <Form form={form} layout="inline" onFinish={(v: { name: string; slug: string }) => create.mutate(v)}>
          <Form.Item label={t('workspaces.name')} name="name" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
            <Input />
          </Form.Item>
          <Form.Item label={t('workspaces.slug')} name="slug" rules={[{ required: true, pattern: /^[a-z0-9][a-z0-9-]{1,39}$/, message: t('workspaces.slugRule') }]}>
            <Input />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={create.isPending}>
            {t('form.add')}
          </Button>
        </Form>
      </Card>
      <QueryError error={workspaces.error} />
      <Table<WorkspaceItem>
        rowKey="id"
        loading={workspaces.isFetching}
        dataSource={workspaces.data?.items}
        pagination={false}
        columns={[
          { title: t('workspaces.name'), dataIndex: 'name' },
          { title: t('workspaces.slug'), dataIndex: 'slug' },
          { title: t('workspaces.myRole'), dataIndex: 'role', render: (r: Role) => <Tag>{t(`role.${r}`)}</Tag> },
          {
            title: t('form.actions'),
            key: 'actions',
            render: (_, row) =>
              row.role === 'admin' && (
                <Button
                  type="link"
                  size="small"
                  onClick={() => {
                    addMember.reset();
                    memberForm.setFieldsValue({ username: '', role: 'operator' });
                    setAdding(row);
                  }}
                >
                  {t('workspaces.addMember')}
                </Button>
              ),
          },
        ]}
      />
      <Modal
        open={Boolean(adding)}
        title={t('workspaces.addMemberTo', { name: adding?.name })}
        okText={t('form.save')}
        cancelText={t('form.cancel')}
        confirmLoading={addMember.isPending}
        onCancel={() => setAdding(undefined)}
        onOk={() => memberForm.submit()}
        forceRender
      >
        {addMember.error && <Alert type="error" showIcon role="alert" title={errorMessage(addMember.error)} style={{ marginBottom: 12 }} />}
        <Form form={memberForm} layout="vertical" onFinish={(v: MemberValues) => addMember.mutate(v)}>
          <Form.Item label={t('users.username')} name="username" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item label={t('users.role')} name="role">
            <Select options={ROLES.map((r) => ({ value: r, label: t(`role.${r}`) }))} />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
