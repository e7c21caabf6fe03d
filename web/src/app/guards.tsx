import { Alert, Button, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../api/client';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { sessionExpired, useMe, useToken } from './session';

export function PageSpin() {
  return (
    <div style={{ display: 'flex', justifyContent: 'center', padding: 64 }}>
      <Spin />
    </div>
  );
}

/** Signed-in users only; a pending forced password change comes first. */
export function RequireAuth({ children, passwordPage = false }: { children: ReactNode; passwordPage?: boolean }) {
  const token = useToken();
  const me = useMe();
  const location = useLocation();
  const { t } = useTranslation();
  if (!token) {
    const next = encodeURIComponent(location.pathname + location.search);
    return <Navigate to={`/login?${sessionExpired() ? 'expired=1&' : ''}next=${next}`} replace />;
  }
  if (me.isLoading) return <PageSpin />;
  // An expired token is handled by SessionWatcher; anything else (network) can be retried here.
  if (!me.data) {
    return (
      <Alert
        type="error"
        showIcon
        role="alert"
        style={{ margin: 48 }}
        title={errorMessage(me.error)}
        action={<Button onClick={() => void me.refetch()}>{t('form.retry')}</Button>}
      />
    );
  }
  if (me.data.must_change_password && !passwordPage) return <Navigate to="/change-password" replace />;
  return <>{children}</>;
}
