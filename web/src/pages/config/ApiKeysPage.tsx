import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Popconfirm, Select, Space, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import type { ApiKey } from '../../api/types';
import { formatTime } from '../../components/format';
import { QueryError } from '../../components/QueryError';
import { usePaging } from '../../components/usePaging';
import { PageTitle } from '../../components/PageTitle';
import { PROVIDERS, providerName } from './providerNames';

interface Values {
  provider: string;
  api_key: string;
}

export default function ApiKeysPage() {
  const { t } = useTranslation();
  const paging = usePaging();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<Values>();
  const keys = useQuery({ queryKey: ['api-keys', paging.query], queryFn: () => api.apiKeys.list(paging.query) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['api-keys'] });
  const create = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: Values) => api.apiKeys.create(v.provider, v.api_key.trim()),
    onSuccess: () => {
      form.resetFields();
      void refresh();
    },
  });
  const remove = useMutation({ mutationFn: api.apiKeys.remove, onSuccess: refresh });
  return (
    <>
      <PageTitle style={{ marginBottom: 16 }}>
        {t('apiKeys.title')}
      </PageTitle>
      <Card size="small" title={t('apiKeys.add')} style={{ marginBottom: 16, maxWidth: 720 }}>
        {create.error && <Alert type="error" showIcon role="alert" title={errorMessage(create.error)} style={{ marginBottom: 12 }} />}
        <Form<Values> form={form} layout="inline" onFinish={(v) => create.mutate(v)} initialValues={{ provider: 'openai' }}>
          <Form.Item label={t('apiKeys.provider')} name="provider" rules={[{ required: true }]}>
            <Select style={{ width: 150 }} options={PROVIDERS.map((p) => ({ value: p.value, label: p.label }))} />
          </Form.Item>
          <Form.Item label={t('apiKeys.key')} name="api_key" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
            <Input.Password autoComplete="off" style={{ width: 260 }} />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={create.isPending}>
            {t('form.add')}
          </Button>
        </Form>
        <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0 }}>
          {t('apiKeys.hint')}
        </Typography.Paragraph>
      </Card>
      <QueryError error={keys.error} />
      <Table<ApiKey>
        rowKey="id"
        loading={keys.isFetching}
        dataSource={keys.data?.items}
        pagination={paging.pagination(keys.data?.total)}
        locale={{ emptyText: t('apiKeys.empty') }}
        columns={[
          { title: t('apiKeys.provider'), dataIndex: 'provider', render: providerName },
          { title: t('apiKeys.last4'), dataIndex: 'key_last4', render: (v: string) => <code>••••{v}</code> },
          { title: t('tasks.createdAt'), dataIndex: 'created_at', render: formatTime },
          {
            title: t('form.actions'),
            key: 'actions',
            render: (_, row) => (
              <Space>
                <Popconfirm title={t('apiKeys.deleteConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => remove.mutate(row.id)}>
                  <Button type="link" danger size="small">
                    {t('form.delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
    </>
  );
}
