import { ApartmentOutlined, AppstoreAddOutlined, BarChartOutlined, CalendarOutlined, IdcardOutlined, ApiOutlined, AuditOutlined, KeyOutlined, LogoutOutlined, MenuOutlined, NotificationOutlined, PlusCircleOutlined, ShoppingOutlined, StopOutlined, TeamOutlined, UnorderedListOutlined } from '@ant-design/icons';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Badge, Button, Drawer, Grid, Layout, Menu, Select, Space, Tag, Typography } from 'antd';
import type { MenuProps } from 'antd';
import { Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { api } from '../api/endpoints';
import type { Role } from '../api/types';
import { setLang, type Lang } from '../i18n';
import { PageSpin } from './guards';
import { InvitationsInbox } from './InvitationsInbox';
import { useCan, type WorkspaceAction } from './abilities';
import { useSession } from './session';
import { WorkspaceSelect } from './WorkspaceSelect';
import { tone } from '../components/tags';
import './layout.css';
import { queryKeys } from '../api/queryKeys';

const ROLE_COLOR: Record<Role, string> = { admin: 'red', supervisor: 'gold', operator: 'blue' };
/** The review badge refreshes this often (and whenever a review action or window focus refetches it). */
const REVIEW_COUNT_REFRESH_MS = 30_000;

interface NavItem {
  path: string;
  label: string;
  icon: React.ReactNode;
  /** The workspace action the page is for; absent: every member's. */
  needs?: WorkspaceAction;
  badge?: number;
}

/** Tasks waiting for review, for the menu's badge; supervisors and admins only (the server refuses operators). */
export function useReviewCount(enabled: boolean): number | undefined {
  const count = useQuery({
    queryKey: queryKeys.reviewQueue.count(),
    queryFn: api.review.pendingCount,
    enabled,
    refetchInterval: REVIEW_COUNT_REFRESH_MS,
  });
  return count.data;
}

/**
 * The console's frame. From `lg` up: the menu in a side column and the workspace, language and
 * account controls in the header. Below it (phones, narrow windows): a compact header with a
 * menu button that opens all of these in a drawer over the page, so nothing pushes the content
 * aside or wraps the header over the page title.
 */
export default function AppLayout() {
  const { t, i18n } = useTranslation();
  const { user, role, logout, adopt } = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const wide = Grid.useBreakpoint().lg ?? true;
  const [drawerOpen, setDrawerOpen] = useState(false);
  const workspaces = useQuery({ queryKey: queryKeys.workspaces(), queryFn: api.workspaces.list });
  const can = useCan();
  const reviewCount = useReviewCount(can('review.decide'));
  const switchWs = useMutation({
    mutationFn: api.workspaces.switch,
    onSuccess: (data) => {
      adopt(data.token);
      navigate('/tasks');
    },
  });

  // A link followed in the drawer closes it.
  useEffect(() => setDrawerOpen(false), [location.pathname]);

  const groups: { key: string; label: string; items: NavItem[] }[] = [
    {
      key: 'production',
      label: t('nav.production'),
      items: [
        { path: '/tasks', label: t('nav.tasks'), icon: <UnorderedListOutlined aria-hidden /> },
        { path: '/tasks/new', label: t('nav.newTask'), icon: <PlusCircleOutlined aria-hidden /> },
        { path: '/batches', label: t('batches.nav'), icon: <AppstoreAddOutlined aria-hidden /> },
        { path: '/review', label: t('nav.review'), icon: <AuditOutlined aria-hidden />, needs: 'review.decide', badge: reviewCount },
      ],
    },
    {
      key: 'publishing',
      label: t('publishing.nav.group'),
      items: [
        { path: '/calendar', label: t('publishing.nav.calendar'), icon: <CalendarOutlined aria-hidden /> },
        { path: '/accounts', label: t('publishing.nav.accounts'), icon: <IdcardOutlined aria-hidden /> },
        { path: '/analytics', label: t('publishing.nav.analytics'), icon: <BarChartOutlined aria-hidden /> },
      ],
    },
    {
      key: 'config',
      label: t('nav.config'),
      items: [
        { path: '/products', label: t('nav.products'), icon: <ShoppingOutlined aria-hidden /> },
        { path: '/banned-words', label: t('nav.bannedWords'), icon: <StopOutlined aria-hidden /> },
        { path: '/api-keys', label: t('nav.apiKeys'), icon: <KeyOutlined aria-hidden /> },
        { path: '/integrations', label: t('nav.integrations'), icon: <ApiOutlined aria-hidden /> },
      ],
    },
    {
      key: 'admin',
      label: t('nav.admin'),
      items: [
        { path: '/admin/users', label: t('nav.users'), icon: <TeamOutlined aria-hidden />, needs: 'users.manage' },
        { path: '/admin/workspaces', label: t('nav.workspaces'), icon: <ApartmentOutlined aria-hidden />, needs: 'workspaces.manage' },
        { path: '/admin/webhooks', label: t('nav.webhooks'), icon: <NotificationOutlined aria-hidden />, needs: 'webhooks.manage' },
      ],
    },
  ];
  // Navigation hides what the server's policy does not allow; the routes and the server refuse it anyway.
  const menuItems: MenuProps['items'] = groups
    .map((g) => ({ ...g, items: g.items.filter((i) => !i.needs || can(i.needs)) }))
    .filter((g) => g.items.length > 0)
    .map((g) => ({
      type: 'group' as const,
      key: g.key,
      label: g.label,
      children: g.items.map((i) => ({
        key: i.path,
        icon: i.icon,
        label: (
          <Link to={i.path}>
            {i.label}
            {i.badge ? <Badge count={i.badge} size="small" style={{ marginInlineStart: 8 }} data-testid="review-count" /> : null}
          </Link>
        ),
      })),
    }));
  const allPaths = groups.flatMap((g) => g.items.map((i) => i.path));
  const selected = allPaths
    .filter((p) => location.pathname === p || location.pathname.startsWith(`${p}/`))
    .sort((a, b) => b.length - a.length)[0];

  const navigation = (
    <nav aria-label={t('nav.label')}>
      <Menu mode="inline" selectedKeys={selected ? [selected] : []} items={menuItems} style={{ borderInlineEnd: 0 }} />
    </nav>
  );
  const workspaceSelect = (
    <WorkspaceSelect
      currentId={user?.current_workspace_id ?? undefined}
      workspaces={workspaces.data?.items}
      loading={workspaces.isLoading || switchWs.isPending}
      onSwitch={(id) => switchWs.mutate(id)}
    />
  );
  const languageSelect = (
    <Select
      aria-label={t('header.language')}
      value={i18n.language as Lang}
      onChange={(lang: Lang) => setLang(lang)}
      options={[
        { value: 'zh-CN', label: '中文' },
        { value: 'en', label: 'English' },
      ]}
      style={{ width: 110 }}
    />
  );
  const roleTag = role && (
    <Tag color={tone(ROLE_COLOR[role])} data-testid="current-role">
      {t(`role.${role}`)}
    </Tag>
  );
  const logoutButton = (
    <Button icon={<LogoutOutlined aria-hidden />} onClick={logout}>
      {t('header.logout')}
    </Button>
  );

  return (
    <Layout style={{ minHeight: '100vh' }}>
      {wide && (
        <Layout.Sider theme="light" width={208}>
          <div style={{ padding: '16px 20px', fontWeight: 600, fontSize: 16 }}>{t('app.title')}</div>
          {navigation}
        </Layout.Sider>
      )}
      <Layout style={{ minWidth: 0 }}>
        {/* One header for both widths, so the invitation panel stays open across a resize. */}
        <Layout.Header
          style={{
            background: '#fff',
            padding: wide ? '0 24px' : '0 12px',
            display: 'flex',
            alignItems: 'center',
            gap: 8,
            ...(wide ? {} : { position: 'sticky', top: 0, zIndex: 10, boxShadow: '0 1px 2px rgba(0,0,0,0.06)' }),
          }}
        >
          {!wide && (
            <Badge dot={Boolean(reviewCount)} offset={[-4, 4]}>
              <Button icon={<MenuOutlined aria-hidden />} aria-label={t('header.menu')} aria-expanded={drawerOpen} onClick={() => setDrawerOpen(true)} data-testid="menu-button" />
            </Badge>
          )}
          {!wide && (
            <Typography.Text strong ellipsis style={{ flex: 1, minWidth: 0 }}>
              {t('app.title')}
            </Typography.Text>
          )}
          <Space size="middle" style={{ marginInlineStart: 'auto' }}>
            {wide && workspaceSelect}
            <InvitationsInbox />
            {wide && roleTag}
            {wide && languageSelect}
            {wide && <Typography.Text>{user?.username}</Typography.Text>}
            {wide && logoutButton}
          </Space>
        </Layout.Header>
        {!wide && (
          <Drawer
            open={drawerOpen}
            onClose={() => setDrawerOpen(false)}
            placement="left"
            size={300}
            title={t('app.title')}
            styles={{ body: { padding: 0 } }}
            closable={{ 'aria-label': t('header.closeMenu') }}
          >
            <Space orientation="vertical" style={{ width: '100%', padding: '12px 16px' }}>
              <Space wrap>
                <Typography.Text strong>{user?.username}</Typography.Text>
                {roleTag}
              </Space>
              {workspaceSelect}
            </Space>
            {navigation}
            <Space wrap style={{ padding: '12px 16px' }}>
              {languageSelect}
              {logoutButton}
            </Space>
          </Drawer>
        )}
        <Layout.Content style={{ padding: wide ? 24 : 12, minWidth: 0 }}>
          <Suspense fallback={<PageSpin />}>
            <Outlet />
          </Suspense>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
