import { Button, Result } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PageTitle } from '../components/PageTitle';
import { useCan, type WorkspaceAction } from './abilities';

/** A page for a workspace action the server's policy does not allow the user shows a 403 page; the server refuses its API calls anyway. */
export default function RequireAction({ action, children }: { action: WorkspaceAction; children: ReactNode }) {
  const can = useCan();
  const { t } = useTranslation();
  if (!can(action)) {
    return (
      <Result
        status="403"
        title={<PageTitle style={{ textAlign: 'center' }}>{t('guard.forbiddenTitle')}</PageTitle>}
        subTitle={t('guard.forbidden')}
        extra={
          <Link to="/tasks">
            <Button type="primary">{t('guard.back')}</Button>
          </Link>
        }
      />
    );
  }
  return <>{children}</>;
}
