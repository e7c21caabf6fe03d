import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, InputNumber, Radio, Select, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import type { TaskCreate, TaskDetail, TaskListItem } from '../../api/types';
import { isGenerating } from '../../hooks/taskStream';
import { ProductSelect } from '../config/pickers';
import { PageTitle } from '../../components/PageTitle';
import { queryKeys } from '../../api/queryKeys';
import { AccountSelect } from '../publishing/AccountSelect';

/**
 * The detail of a task just created, from what creating it answered: nothing generated yet. The
 * task page shows it (and opens the stream) at once instead of waiting for its own request.
 */
function createdDetail(item: TaskListItem, benchmarkIds: number[]): TaskDetail {
  return {
    ...item,
    benchmark_ids: benchmarkIds,
    progress: null,
    generation: 1,
    failure_reason: null,
    failure_key: null,
    failure_params: null,
    providers: { text: null, vision: null, image: null },
    allowed_actions: [],
    text_candidates: [],
    image_candidates: [],
  };
}

export default function TaskCreatePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // The task page's code loads while the form is filled in, not after the submit: the first
  // task's progress shows from its first event instead of behind a loading spinner.
  useEffect(() => {
    void import('./TaskPage');
  }, []);
  const [params] = useSearchParams();
  const [form] = Form.useForm<TaskCreate>();
  const productId = Form.useWatch('product_id', form);
  const benchmarks = useQuery({
    queryKey: queryKeys.benchmarks.choices(productId),
    queryFn: () => api.benchmarks.list(productId, { page: 1, page_size: 100 }),
    enabled: Boolean(productId),
  });
  const create = useMutation({
    // 422 reasons (no API key, banned words) belong next to the form, not in a toast.
    meta: { inlineError: true },
    mutationFn: api.tasks.create,
    onSuccess: (task, body) => {
      // A generating task is shown from this at once, left fresh: the stream opens first, and its
      // first status event (or, without a stream, the poll while generating) fetches the real
      // detail, which asked for at once would hold up the stream on a server busy starting the
      // generation. A task with nothing to generate (import track) loads its detail as usual.
      if (isGenerating(task.status)) queryClient.setQueryData<TaskDetail>(queryKeys.task.detail(task.id), createdDetail(task, body.benchmark_ids ?? []));
      navigate(`/tasks/${task.id}`);
    },
  });
  const initialProduct = Number(params.get('product_id')) || undefined;

  return (
    <Card style={{ maxWidth: 720 }}>
      <PageTitle style={{ marginBottom: 16 }}>
        {t('nav.newTask')}
      </PageTitle>
      {create.error && (
        <Alert type="error" showIcon role="alert" title={t('taskCreate.refused')} description={errorMessage(create.error)} style={{ marginBottom: 16 }} />
      )}
      <Form<TaskCreate>
        form={form}
        layout="vertical"
        initialValues={{ text_count: 3, image_count: 3, track: 'ai', product_id: initialProduct, benchmark_ids: [] }}
        onFinish={(v) => create.mutate({ ...v, theme: v.theme.trim() })}
      >
        <Form.Item label={t('tasks.product')} name="product_id" rules={[{ required: true, message: t('form.required') }]}>
          <ProductSelect onChange={() => form.setFieldValue('benchmark_ids', [])} />
        </Form.Item>
        <Form.Item label={t('taskCreate.benchmarks')} name="benchmark_ids">
          <Select
            mode="multiple"
            disabled={!productId}
            loading={benchmarks.isLoading}
            options={(benchmarks.data?.items ?? []).map((b) => ({
              value: b.id,
              label: `#${b.id} ${(b.highlights || b.link_url || '').slice(0, 40)}`,
            }))}
          />
        </Form.Item>
        <Form.Item
          label={t('tasks.theme')}
          name="theme"
          rules={[{ required: true, whitespace: true, message: t('form.required') }, { max: 200 }]}
        >
          <Input placeholder={t('taskCreate.themePlaceholder')} />
        </Form.Item>
        <div style={{ display: 'flex', gap: 24, flexWrap: 'wrap' }}>
          <Form.Item label={t('taskCreate.textCount')} name="text_count" rules={[{ required: true, message: t('form.required') }]}>
            <InputNumber min={1} max={30} precision={0} />
          </Form.Item>
          <Form.Item label={t('taskCreate.imageCount')} name="image_count" rules={[{ required: true, message: t('form.required') }]}>
            <InputNumber min={0} max={9} precision={0} />
          </Form.Item>
          <Form.Item label={t('tasks.track')} name="track">
            <Radio.Group
              optionType="button"
              options={[
                { value: 'ai', label: t('track.ai') },
                { value: 'import', label: t('track.import') },
              ]}
            />
          </Form.Item>
        </div>
        <Form.Item label={t('publishing.forAccount.label')} name="account_id" extra={t('publishing.forAccount.hint')}>
          <AccountSelect />
        </Form.Item>
        <Typography.Paragraph type="secondary">{t('taskCreate.hint')}</Typography.Paragraph>
        <Button type="primary" htmlType="submit" loading={create.isPending}>
          {t('taskCreate.submit')}
        </Button>
      </Form>
    </Card>
  );
}
