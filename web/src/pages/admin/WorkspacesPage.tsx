import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Modal, Popconfirm, Select, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ResponsiveTable } from '../../components/ResponsiveTable';
import { ApiError, errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import type { Invitation, InvitationStatus, Role, WorkspaceItem } from '../../api/types';
import { notifySuccess } from '../../app/notify';
import { formatTime } from '../../components/format';
import { QueryError } from '../../components/QueryError';
import { tone } from '../../components/tags';
import { ROLES } from './UsersPage';
import { PageTitle } from '../../components/PageTitle';
import { queryKeys, refresh } from '../../api/queryKeys';

const INVITATION_COLOR: Record<InvitationStatus, string> = { pending: 'processing', accepted: 'green', declined: 'default', revoked: 'default', expired: 'default' };

/** An address when it has the shape of one; anything else is a username. */
const inviteeBody = (text: string) => (/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(text) ? { email: text } : { username: text });

/**
 * The link an email invitation is redeemed through: the console opens it and offers to join
 * (InvitationsInbox). The server shows the token once, so the link is shown once too.
 */
export const invitationLink = (token: string) => `${window.location.origin}/?invitation=${encodeURIComponent(token)}`;

/** The workspace's invitations with their state; a pending one can be revoked. */
function InvitationList({ workspace }: { workspace: WorkspaceItem }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: queryKeys.invitations.ofWorkspace(workspace.id), queryFn: () => api.workspaces.invitations(workspace.id, { page_size: 50 }) });
  const revoke = useMutation({
    mutationFn: (id: number) => api.workspaces.revokeInvitation(workspace.id, id),
    onSuccess: () => {
      notifySuccess(t('workspaces.revoked'));
      void refresh.invitations(queryClient, workspace.id);
    },
  });
  return (
    <>
      <QueryError error={list.error} />
      <ResponsiveTable<Invitation>
        size="small"
        rowKey="id"
        data-testid="invitation-list"
        loading={list.isFetching}
        dataSource={list.data?.items}
        pagination={false}
        locale={{ emptyText: t('workspaces.noInvitations') }}
        columns={[
          { title: t('workspaces.invitee'), dataIndex: 'invitee' },
          { title: t('users.role'), dataIndex: 'role', render: (r: Role) => t(`role.${r}`) },
          {
            title: t('workspaces.status'),
            dataIndex: 'status',
            render: (s: InvitationStatus) => <Tag color={tone(INVITATION_COLOR[s])}>{t(`workspaces.invitationStatus.${s}`)}</Tag>,
          },
          { title: t('workspaces.expiresAt'), dataIndex: 'expires_at', render: (v: string) => formatTime(v) },
          {
            title: t('form.actions'),
            key: 'actions',
            render: (_, row) =>
              row.status === 'pending' && (
                <Popconfirm title={t('workspaces.revokeConfirm')} okText={t('form.yes')} cancelText={t('form.no')} onConfirm={() => revoke.mutate(row.id)}>
                  <Button type="link" size="small" danger>
                    {t('workspaces.revoke')}
                  </Button>
                </Popconfirm>
              ),
          },
        ]}
      />
    </>
  );
}

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
  const [inviting, setInviting] = useState<WorkspaceItem>();
  const [link, setLink] = useState<string>();
  const [inviteForm] = Form.useForm<MemberValues>();
  const workspaces = useQuery({ queryKey: queryKeys.workspaces(), queryFn: api.workspaces.list });
  const create = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: { name: string; slug: string }) => api.workspaces.create(v.name.trim(), v.slug.trim()),
    onSuccess: () => {
      form.resetFields();
      void refresh.workspaces(queryClient);
    },
  });
  const addMember = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: MemberValues) => api.workspaces.addMember(adding!.id, v.username.trim(), v.role),
    onSuccess: () => {
      setAdding(undefined);
      notifySuccess(t('workspaces.memberAdded'));
      void refresh.users(queryClient);
    },
  });
  const invite = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: MemberValues) => api.workspaces.invite(inviting!.id, inviteeBody(v.username.trim()), v.role),
    onSuccess: (created, v) => {
      // The server answers a username the same whether it exists (no enumeration): say only that.
      notifySuccess('username' in inviteeBody(v.username.trim()) ? t('review2.invited') : t('workspaces.invited'));
      setLink(created.token ? invitationLink(created.token) : undefined);
      inviteForm.setFieldsValue({ username: '' });
      void refresh.invitations(queryClient, inviting!.id);
    },
  });
  // An unknown user and one outside the admin's workspaces answer the same 404: say what to do.
  const addError = addMember.error instanceof ApiError && addMember.error.status === 404 ? t('workspaces.notShared') : addMember.error && errorMessage(addMember.error);
  return (
    <>
      <PageTitle style={{ marginBottom: 16 }}>
        {t('workspaces.title')}
      </PageTitle>
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
      <ResponsiveTable<WorkspaceItem>
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
                <Space size={0}>
                  <Button
                    type="link"
                    size="small"
                    onClick={() => {
                      invite.reset();
                      inviteForm.setFieldsValue({ username: '', role: 'operator' });
                      setInviting(row);
                    }}
                  >
                    {t('workspaces.invite')}
                  </Button>
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
                </Space>
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
        <Typography.Paragraph type="secondary">{t('workspaces.addMemberHint')}</Typography.Paragraph>
        {addError && <Alert type="error" showIcon role="alert" title={addError} style={{ marginBottom: 12 }} />}
        <Form form={memberForm} layout="vertical" onFinish={(v: MemberValues) => addMember.mutate(v)}>
          <Form.Item label={t('users.username')} name="username" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item label={t('users.role')} name="role">
            <Select options={ROLES.map((r) => ({ value: r, label: t(`role.${r}`) }))} />
          </Form.Item>
        </Form>
      </Modal>
      <Modal
        open={Boolean(inviting)}
        title={t('workspaces.inviteTo', { name: inviting?.name })}
        footer={null}
        width={720}
        onCancel={() => {
          setInviting(undefined);
          setLink(undefined);
        }}
        forceRender
      >
        <Typography.Paragraph type="secondary">{t('workspaces.inviteeHint')}</Typography.Paragraph>
        {invite.error && <Alert type="error" showIcon role="alert" title={errorMessage(invite.error)} style={{ marginBottom: 12 }} />}
        {/* Named: its field ids must not repeat the add-member form's (both stay mounted). */}
        <Form form={inviteForm} name="invite" layout="inline" onFinish={(v: MemberValues) => invite.mutate(v)} style={{ marginBottom: 16 }}>
          <Form.Item label={t('workspaces.invitee')} name="username" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item label={t('users.role')} name="role">
            <Select style={{ width: 120 }} options={ROLES.map((r) => ({ value: r, label: t(`role.${r}`) }))} />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={invite.isPending}>
            {t('workspaces.invite')}
          </Button>
        </Form>
        {link && (
          <Alert
            type="success"
            showIcon
            style={{ marginBottom: 16 }}
            data-testid="invitation-link"
            title={t('workspaces.linkOnce')}
            description={
              <Typography.Paragraph copyable={{ text: link }} style={{ marginBottom: 0, wordBreak: 'break-all' }}>
                {link}
              </Typography.Paragraph>
            }
          />
        )}
        <Typography.Title level={5}>{t('workspaces.invitations')}</Typography.Title>
        {inviting && <InvitationList workspace={inviting} />}
      </Modal>
    </>
  );
}
