import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Card, Form, Input, Tabs } from 'antd';
import dayjs from 'dayjs';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { type BatchCreate, type BatchItemInput, type BatchMatrix } from '../../api/types';
import { api } from '../../api/endpoints';
import { errorMessage } from '../../api/client';
import { queryKeys, refresh } from '../../api/queryKeys';
import { PageTitle } from '../../components/PageTitle';
import { MatrixForm } from './MatrixForm';
import { PlanImport } from './PlanImport';
import { newIdempotencyKey } from './shared';

/**
 * The Idempotency-Key of what this page submits: made when the page opens and kept while the
 * same batch is sent again (a double click, a retry after a network error), so the server makes
 * it once; a changed submission (a corrected form) gets a fresh one.
 */
export function useIdempotencyKey(): (body: unknown) => string {
  const last = useRef<{ key: string; body: string }>({ key: newIdempotencyKey(), body: '' });
  return (body) => {
    const text = JSON.stringify(body);
    if (last.current.body && last.current.body !== text) last.current = { key: newIdempotencyKey(), body: text };
    else last.current.body = text;
    return last.current.key;
  };
}

/** 新建批次 (`/batches/new`): a name, then the matrix form or an imported plan. */
export default function BatchCreatePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [nameForm] = Form.useForm<{ name: string }>();
  const [tab, setTab] = useState('form');
  const keyFor = useIdempotencyKey();
  // A real product's name makes the template's example row one the server can read.
  const firstProduct = useQuery({ queryKey: queryKeys.products.list({ page: 1, page_size: 1 }), queryFn: () => api.products.list({ page: 1, page_size: 1 }) });
  const create = useMutation({
    meta: { inlineError: true },
    mutationFn: (body: BatchCreate) => api.batches.create(body, keyFor(body)),
    onSuccess: (batch) => {
      void refresh.batches(queryClient);
      navigate(`/batches/${batch.id}`);
    },
  });
  const submit = async (rest: { matrix: BatchMatrix } | { items: BatchItemInput[] }) => {
    let name: string;
    try {
      name = (await nameForm.validateFields()).name.trim();
    } catch {
      return;
    }
    create.mutate({ name, ...rest } as BatchCreate);
  };
  return (
    <Card style={{ maxWidth: 960 }}>
      <PageTitle style={{ marginBottom: 16 }}>{t('batches.create')}</PageTitle>
      {create.error && <Alert type="error" showIcon role="alert" title={t('batches.form.refused')} description={errorMessage(create.error)} style={{ marginBottom: 16 }} data-testid="batch-create-error" />}
      <Form form={nameForm} layout="vertical" initialValues={{ name: t('batches.defaultName', { date: dayjs().format('YYYY-MM-DD') }) }}>
        <Form.Item label={t('batches.name')} name="name" rules={[{ required: true, whitespace: true, message: t('form.required') }, { max: 60 }]}>
          <Input maxLength={60} placeholder={t('batches.namePlaceholder')} />
        </Form.Item>
      </Form>
      <Tabs
        activeKey={tab}
        onChange={(key) => {
          setTab(key);
          create.reset();
        }}
        items={[
          { key: 'form', label: t('batches.tabs.form'), children: <MatrixForm pending={create.isPending} onSubmit={(matrix) => void submit({ matrix })} /> },
          {
            key: 'plan',
            label: t('batches.tabs.plan'),
            children: <PlanImport pending={create.isPending} onCreate={(items) => void submit({ items })} exampleProduct={firstProduct.data?.items[0]?.name} />,
          },
        ]}
      />
    </Card>
  );
}
