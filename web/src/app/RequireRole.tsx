import { Button, Result } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { Role } from '../api/types';
import { PageTitle } from '../components/PageTitle';
import { roleAtLeast } from './roles';
import { useMe } from './session';

/** Pages above the user's role show a 403 page; the server refuses their API calls anyway. */
export default function RequireRole({ min, children }: { min: Role; children: ReactNode }) {
  const me = useMe();
  const { t } = useTranslation();
  if (!roleAtLeast(me.data?.role, min)) {
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
