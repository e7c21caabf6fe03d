import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PageTitle } from '../components/PageTitle';

export default function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <Result
      status="404"
      title={<PageTitle style={{ textAlign: 'center' }}>{t('guard.notFound')}</PageTitle>}
      subTitle="404"
      extra={
        <Link to="/tasks">
          <Button type="primary">{t('guard.back')}</Button>
        </Link>
      }
    />
  );
}
