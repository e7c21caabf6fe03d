import { MailOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Empty, Grid, Input, List, Modal, Popover, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, errorMessage } from '../api/client';
import { api } from '../api/endpoints';
import type { MyInvitation } from '../api/types';
import { formatTime } from '../components/format';
import { notifySuccess } from './notify';
import { queryKeys, refresh } from '../api/queryKeys';

/** The token of an invitation link (`…/?invitation=TOKEN`), or the token itself as pasted. */
function tokenOf(text: string): string {
  const trimmed = text.trim();
  try {
    return new URL(trimmed).searchParams.get('invitation') ?? trimmed;
  } catch {
    return trimmed;
  }
}

/** The link the console was opened with, once: it leaves the address bar either way. */
function takeLinkToken(): string | undefined {
  const url = new URL(window.location.href);
  const token = url.searchParams.get('invitation') ?? undefined;
  if (token) {
    url.searchParams.delete('invitation');
    window.history.replaceState(window.history.state, '', url);
  }
  return token;
}

/**
 * Invitations into other workspaces waiting for the user's answer: a badge in the header with
 * their count, and a panel to accept or decline each. An email invitation arrives as a link the
 * inviting admin handed over: opened, or pasted into the panel, it asks to join. Accepting adds
 * the workspace to the switcher; the user switches when they want to.
 */
export function InvitationsInbox() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  // Where the switcher is: the top bar from lg up, the menu drawer below (AppLayout).
  const joinedKey = (Grid.useBreakpoint().lg ?? true) ? 'invitations.joined' : 'review2.joinedMenu';
  const invitations = useQuery({ queryKey: queryKeys.invitations.mine(), queryFn: api.invitations.mine, refetchInterval: 60_000 });
  const settled = () => queryClient.invalidateQueries({ queryKey: queryKeys.invitations.mine() });
  const accept = useMutation({
    mutationFn: (i: MyInvitation) => api.invitations.accept(i.id),
    onSuccess: (workspace) => {
      notifySuccess(t(joinedKey, { name: workspace.name }));
      void refresh.workspaces(queryClient);
    },
    onSettled: settled,
  });
  const decline = useMutation({
    mutationFn: (i: MyInvitation) => api.invitations.decline(i.id),
    onSuccess: () => notifySuccess(t('invitations.declined')),
    onSettled: settled,
  });
  const [linkToken, setLinkToken] = useState(takeLinkToken);
  const [pasted, setPasted] = useState('');
  const redeem = useMutation({
    mutationFn: (token: string) => api.invitations.redeem(token),
    onSuccess: (workspace) => {
      setLinkToken(undefined);
      setPasted('');
      notifySuccess(t(joinedKey, { name: workspace.name }));
      void refresh.workspaces(queryClient);
    },
    onSettled: settled,
  });
  const redeemError = redeem.error && (redeem.error instanceof ApiError && redeem.error.status === 404 ? t('invitations.redeemInvalid') : errorMessage(redeem.error));
  const items = invitations.data?.items ?? [];
  const panel = (
    <List<MyInvitation>
      style={{ width: 'min(360px, 80vw)' }}
      data-testid="invitation-inbox"
      dataSource={items}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('invitations.none')} /> }}
      renderItem={(i) => (
        <List.Item
          actions={[
            <Button key="accept" type="primary" size="small" loading={accept.isPending && accept.variables?.id === i.id} onClick={() => accept.mutate(i)}>
              {t('invitations.accept')}
            </Button>,
            <Button key="decline" size="small" loading={decline.isPending && decline.variables?.id === i.id} onClick={() => decline.mutate(i)}>
              {t('invitations.decline')}
            </Button>,
          ]}
        >
          <Space orientation="vertical" size={0}>
            <Typography.Text strong>{i.workspace.name}</Typography.Text>
            <Typography.Text type="secondary">{t('invitations.from', { inviter: i.invited_by ?? '—', role: t(`role.${i.role}`) })}</Typography.Text>
            <Typography.Text type="secondary">{t('invitations.expiresAt', { time: formatTime(i.expires_at) })}</Typography.Text>
          </Space>
        </List.Item>
      )}
    />
  );
  const paste = (
    <Space.Compact style={{ width: '100%', marginTop: 8 }}>
      <Input size="small" placeholder={t('invitations.redeemPaste')} value={pasted} onChange={(e) => setPasted(e.target.value)} aria-label={t('invitations.redeemPaste')} />
      <Button size="small" type="primary" disabled={!pasted.trim()} loading={redeem.isPending} onClick={() => redeem.mutate(tokenOf(pasted))}>
        {t('invitations.accept')}
      </Button>
    </Space.Compact>
  );
  return (
    <>
      <Modal
        open={Boolean(linkToken)}
        title={t('invitations.redeemTitle')}
        okText={t('invitations.accept')}
        cancelText={t('form.cancel')}
        confirmLoading={redeem.isPending}
        onOk={() => redeem.mutate(linkToken!)}
        onCancel={() => setLinkToken(undefined)}
      >
        <Typography.Paragraph>{t('invitations.redeemConfirm')}</Typography.Paragraph>
        {redeemError && <Typography.Text type="danger">{redeemError}</Typography.Text>}
      </Modal>
      <Popover
        trigger="click"
        placement="bottomRight"
        title={t('invitations.title')}
        content={
          <>
            {panel}
            {paste}
            {redeemError && !linkToken && <Typography.Text type="danger">{redeemError}</Typography.Text>}
          </>
        }
      >
        <Badge count={items.length} size="small">
          {/* Icon only: the header is crowded on a phone already. */}
          <Button icon={<MailOutlined aria-hidden />} aria-label={t('invitations.title')} title={t('invitations.title')} data-testid="invitations-button" />
        </Badge>
      </Popover>
    </>
  );
}
