import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import { setToken, useToken } from '../../app/session';
import { AuthFrame } from './AuthFrame';

/** Only same-site paths are followed after login (no open redirect through ?next=). */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/tasks';
}

export default function LoginPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const token = useToken();
  const login = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: { username: string; password: string }) => {
      setToken(null);
      return api.auth.login(v.username, v.password);
    },
    onSuccess: (data) => {
      setToken(data.token);
      navigate(data.user.must_change_password ? '/change-password' : safeNext(params.get('next')), { replace: true });
    },
  });
  if (token && !login.isPending && !params.get('expired')) return <Navigate to={safeNext(params.get('next'))} replace />;

  return (
    <AuthFrame title={t('login.title')}>
      {params.get('expired') && <Alert type="warning" showIcon title={t('login.expired')} style={{ marginBottom: 16 }} />}
      {login.error && <Alert type="error" showIcon title={errorMessage(login.error)} style={{ marginBottom: 16 }} role="alert" />}
      <Form layout="vertical" onFinish={(v: { username: string; password: string }) => login.mutate(v)} requiredMark={false}>
        <Form.Item label={t('login.username')} name="username" rules={[{ required: true, message: t('login.usernameRequired') }]}>
          <Input autoComplete="username" autoFocus />
        </Form.Item>
        <Form.Item label={t('login.password')} name="password" rules={[{ required: true, message: t('login.passwordRequired') }]}>
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={login.isPending}>
          {t('login.submit')}
        </Button>
      </Form>
    </AuthFrame>
  );
}
