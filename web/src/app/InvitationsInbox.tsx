import { MailOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Empty, List, Popover, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { api } from '../api/endpoints';
import type { MyInvitation } from '../api/types';
import { formatTime } from '../components/format';
import { notifySuccess } from './notify';
import { queryKeys, refresh } from '../api/queryKeys';

/**
 * Invitations into other workspaces waiting for the user's answer: a badge in the header with
 * their count, and a panel to accept or decline each. Accepting adds the workspace to the
 * switcher; the user switches when they want to.
 */
export function InvitationsInbox() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const invitations = useQuery({ queryKey: queryKeys.invitations.mine(), queryFn: api.invitations.mine, refetchInterval: 60_000 });
  const settled = () => queryClient.invalidateQueries({ queryKey: queryKeys.invitations.mine() });
  const accept = useMutation({
    mutationFn: (i: MyInvitation) => api.invitations.accept(i.id),
    onSuccess: (workspace) => {
      notifySuccess(t('invitations.joined', { name: workspace.name }));
      void refresh.workspaces(queryClient);
    },
    onSettled: settled,
  });
  const decline = useMutation({
    mutationFn: (i: MyInvitation) => api.invitations.decline(i.id),
    onSuccess: () => notifySuccess(t('invitations.declined')),
    onSettled: settled,
  });
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
  return (
    <Popover trigger="click" placement="bottomRight" title={t('invitations.title')} content={panel}>
      <Badge count={items.length} size="small">
        {/* Icon only: the header is crowded on a phone already. */}
        <Button icon={<MailOutlined aria-hidden />} aria-label={t('invitations.title')} title={t('invitations.title')} data-testid="invitations-button" />
      </Badge>
    </Popover>
  );
}
