import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import { useSession } from '../../app/session';
import { AuthFrame } from './AuthFrame';

interface Values {
  current_password: string;
  new_password: string;
  confirm: string;
}

export default function ChangePasswordPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { user, adopt, logout } = useSession();
  const change = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: Values) => api.auth.changePassword(v.current_password, v.new_password),
    onSuccess: (data) => {
      // The change bumps the token version: the fresh token replaces the old one.
      adopt(data.token);
      navigate('/tasks', { replace: true });
    },
  });
  return (
    <AuthFrame title={t('password.title')}>
      {user?.must_change_password && <Alert type="info" showIcon title={t('password.forced')} style={{ marginBottom: 16 }} />}
      {change.error && <Alert type="error" showIcon role="alert" title={errorMessage(change.error)} style={{ marginBottom: 16 }} />}
      <Form layout="vertical" onFinish={(v: Values) => change.mutate(v)} requiredMark={false}>
        <Form.Item label={t('password.current')} name="current_password" rules={[{ required: true, message: t('form.required') }]}>
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item
          label={t('password.new')}
          name="new_password"
          rules={[
            { required: true, message: t('form.required') },
            { min: 10, message: t('password.minLength') },
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          label={t('password.confirm')}
          name="confirm"
          dependencies={['new_password']}
          rules={[
            { required: true, message: t('form.required') },
            ({ getFieldValue }) => ({
              validator: (_, value) =>
                value === getFieldValue('new_password') ? Promise.resolve() : Promise.reject(new Error(t('password.mismatch'))),
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={change.isPending}>
          {t('password.submit')}
        </Button>
        <Button type="link" block onClick={logout} style={{ marginTop: 8 }}>
          {t('header.logout')}
        </Button>
      </Form>
    </AuthFrame>
  );
}
