import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Radio, Select, Tabs } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import type { ProductBody } from '../../api/types';
import { notifySuccess } from '../../app/notify';
import { PageSpin } from '../../app/guards';
import { QueryError } from '../../components/QueryError';
import { BenchmarksPanel } from './BenchmarksPanel';
import { ProductImages } from './ProductImages';
import { BannedWordSelect } from './pickers';
import { PageTitle } from '../../components/PageTitle';
import { queryKeys, refresh } from '../../api/queryKeys';

type Values = Required<Omit<ProductBody, 'custom_prompt' | 'appearance'>> & { custom_prompt: string; appearance: string };

function ProductForm({ id }: { id: number | undefined }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<Values>();
  const product = useQuery({ queryKey: queryKeys.products.detail(id ?? 0), queryFn: () => api.products.get(id!), enabled: id !== undefined });
  useEffect(() => {
    if (product.data) form.setFieldsValue({ ...product.data, style_tone: product.data.style_tone ?? '', custom_prompt: product.data.custom_prompt ?? '', appearance: product.data.appearance ?? '' });
  }, [product.data, form]);
  const save = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: Values) => {
      const body: ProductBody = { ...v, name: v.name.trim(), category: v.category.trim(), custom_prompt: v.custom_prompt?.trim() || null, appearance: v.appearance?.trim() || null };
      return id === undefined ? api.products.create(body) : api.products.update(id, body);
    },
    onSuccess: (saved) => {
      notifySuccess(t('form.saved'));
      void refresh.products(queryClient);
      queryClient.setQueryData(queryKeys.products.detail(saved.id), saved);
      if (id === undefined) navigate(`/products/${saved.id}`, { replace: true });
    },
  });
  if (product.isLoading) return <PageSpin />;
  return (
    <>
      <QueryError error={product.error} />
      {save.error && <Alert type="error" showIcon role="alert" title={errorMessage(save.error)} style={{ marginBottom: 16 }} />}
      <Form<Values>
        form={form}
        layout="vertical"
        style={{ maxWidth: 720 }}
        initialValues={{ source: 'custom', selling_points: [], text_angles: [], banned_word_ids: [], style_tone: '', custom_prompt: '', appearance: '' }}
        onFinish={(v) => save.mutate(v)}
      >
        <Form.Item label={t('products.name')} name="name" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
          <Input />
        </Form.Item>
        <Form.Item label={t('products.category')} name="category" rules={[{ required: true, whitespace: true, message: t('form.required') }]}>
          <Input />
        </Form.Item>
        <Form.Item label={t('products.source')} name="source">
          <Radio.Group
            optionType="button"
            options={[
              { value: 'custom', label: t('products.sources.custom') },
              { value: 'preset', label: t('products.sources.preset') },
            ]}
          />
        </Form.Item>
        <Form.Item label={t('products.sellingPoints')} name="selling_points" extra={t('products.tagHint')}>
          <Select mode="tags" open={false} suffixIcon={null} tokenSeparators={['\n']} />
        </Form.Item>
        <Form.Item label={t('products.textAngles')} name="text_angles" extra={t('products.tagHint')}>
          <Select mode="tags" open={false} suffixIcon={null} tokenSeparators={['\n']} />
        </Form.Item>
        <Form.Item label={t('products.styleTone')} name="style_tone">
          <Input />
        </Form.Item>
        <Form.Item label={t('products.appearance')} name="appearance" extra={t('products.appearanceHint')}>
          <Input.TextArea autoSize={{ minRows: 2, maxRows: 5 }} maxLength={300} showCount placeholder={t('products.appearancePlaceholder')} />
        </Form.Item>
        <Form.Item label={t('products.customPrompt')} name="custom_prompt">
          <Input.TextArea autoSize={{ minRows: 2, maxRows: 8 }} />
        </Form.Item>
        <Form.Item label={t('products.bannedWords')} name="banned_word_ids">
          <BannedWordSelect />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={save.isPending}>
          {t('form.save')}
        </Button>
      </Form>
    </>
  );
}

export default function ProductPage() {
  const { t } = useTranslation();
  const param = useParams().id;
  const id = param === undefined ? undefined : Number(param);
  return (
    <Card>
      <PageTitle style={{ marginBottom: 16 }}>
        {id === undefined ? t('products.new') : t('products.edit', { id })}
      </PageTitle>
      {id === undefined ? (
        <ProductForm id={undefined} />
      ) : (
        <Tabs
          items={[
            { key: 'profile', label: t('products.tabProfile'), children: <ProductForm id={id} /> },
            { key: 'images', label: t('products.tabImages'), children: <ProductImages productId={id} /> },
            { key: 'benchmarks', label: t('products.tabBenchmarks'), children: <BenchmarksPanel productId={id} /> },
          ]}
        />
      )}
    </Card>
  );
}
