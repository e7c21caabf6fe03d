import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

export default function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <Result
      status="404"
      title="404"
      subTitle={t('guard.notFound')}
      extra={
        <Link to="/tasks">
          <Button type="primary">{t('guard.back')}</Button>
        </Link>
      }
    />
  );
}
