import {
  ApartmentOutlined,
  AuditOutlined,
  KeyOutlined,
  LogoutOutlined,
  PlusCircleOutlined,
  ShoppingOutlined,
  StopOutlined,
  TeamOutlined,
  UnorderedListOutlined,
} from '@ant-design/icons';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Layout, Menu, Select, Space, Tag, Typography } from 'antd';
import type { MenuProps } from 'antd';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { api } from '../api/endpoints';
import type { Role } from '../api/types';
import { setLang, type Lang } from '../i18n';
import { PageSpin } from './guards';
import { InvitationsInbox } from './InvitationsInbox';
import { roleAtLeast } from './roles';
import { useSession } from './session';
import { tone } from '../components/tags';

const ROLE_COLOR: Record<Role, string> = { admin: 'red', supervisor: 'gold', operator: 'blue' };

interface NavItem {
  path: string;
  label: string;
  icon: React.ReactNode;
  min: Role;
}

export default function AppLayout() {
  const { t, i18n } = useTranslation();
  const { user, role, logout, adopt } = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const workspaces = useQuery({ queryKey: ['workspaces'], queryFn: api.workspaces.list });
  const switchWs = useMutation({
    mutationFn: api.workspaces.switch,
    onSuccess: (data) => {
      adopt(data.token);
      navigate('/tasks');
    },
  });

  const groups: { key: string; label: string; items: NavItem[] }[] = [
    {
      key: 'production',
      label: t('nav.production'),
      items: [
        { path: '/tasks', label: t('nav.tasks'), icon: <UnorderedListOutlined aria-hidden />, min: 'operator' },
        { path: '/tasks/new', label: t('nav.newTask'), icon: <PlusCircleOutlined aria-hidden />, min: 'operator' },
        { path: '/review', label: t('nav.review'), icon: <AuditOutlined aria-hidden />, min: 'supervisor' },
      ],
    },
    {
      key: 'config',
      label: t('nav.config'),
      items: [
        { path: '/products', label: t('nav.products'), icon: <ShoppingOutlined aria-hidden />, min: 'operator' },
        { path: '/banned-words', label: t('nav.bannedWords'), icon: <StopOutlined aria-hidden />, min: 'operator' },
        { path: '/api-keys', label: t('nav.apiKeys'), icon: <KeyOutlined aria-hidden />, min: 'operator' },
      ],
    },
    {
      key: 'admin',
      label: t('nav.admin'),
      items: [
        { path: '/admin/users', label: t('nav.users'), icon: <TeamOutlined aria-hidden />, min: 'admin' },
        { path: '/admin/workspaces', label: t('nav.workspaces'), icon: <ApartmentOutlined aria-hidden />, min: 'admin' },
      ],
    },
  ];
  // Navigation hides what the role cannot use; the routes and the server refuse it anyway.
  const menuItems: MenuProps['items'] = groups
    .map((g) => ({ ...g, items: g.items.filter((i) => roleAtLeast(role, i.min)) }))
    .filter((g) => g.items.length > 0)
    .map((g) => ({
      type: 'group' as const,
      key: g.key,
      label: g.label,
      children: g.items.map((i) => ({ key: i.path, icon: i.icon, label: <Link to={i.path}>{i.label}</Link> })),
    }));
  const allPaths = groups.flatMap((g) => g.items.map((i) => i.path));
  const selected = allPaths
    .filter((p) => location.pathname === p || location.pathname.startsWith(`${p}/`))
    .sort((a, b) => b.length - a.length)[0];

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Layout.Sider breakpoint="lg" collapsedWidth={0} theme="light" width={208}>
        <div style={{ padding: '16px 20px', fontWeight: 600, fontSize: 16 }}>{t('app.title')}</div>
        <nav aria-label={t('nav.label')}>
          <Menu mode="inline" selectedKeys={selected ? [selected] : []} items={menuItems} style={{ borderInlineEnd: 0 }} />
        </nav>
      </Layout.Sider>
      <Layout>
        <Layout.Header style={{ background: '#fff', padding: '0 24px', display: 'flex', justifyContent: 'flex-end' }}>
          <Space size="middle" wrap>
            <Select
              aria-label={t('header.workspace')}
              style={{ minWidth: 180 }}
              loading={workspaces.isLoading || switchWs.isPending}
              value={user?.current_workspace_id ?? undefined}
              onChange={(id: number) => switchWs.mutate(id)}
              options={(workspaces.data?.items ?? []).map((w) => ({
                value: w.id,
                label: `${w.name} · ${t(`role.${w.role}`)}`,
              }))}
            />
            <InvitationsInbox />
            {role && (
              <Tag color={tone(ROLE_COLOR[role])} data-testid="current-role">
                {t(`role.${role}`)}
              </Tag>
            )}
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
            <Typography.Text>{user?.username}</Typography.Text>
            <Button icon={<LogoutOutlined aria-hidden />} onClick={logout}>
              {t('header.logout')}
            </Button>
          </Space>
        </Layout.Header>
        <Layout.Content style={{ padding: 24 }}>
          <main>
            <Suspense fallback={<PageSpin />}>
              <Outlet />
            </Suspense>
          </main>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
