import { UploadOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Empty, Form, Input, List, Space, Tag, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import type { AnalyzeStatus, Benchmark } from '../../api/types';
import { formatTime } from '../../components/format';
import { QueryError } from '../../components/QueryError';
import { usePaging } from '../../components/usePaging';
import { ACCEPTED_IMAGES } from './ProductImages';
import { tone } from '../../components/tags';

const STATUS_COLOR: Record<AnalyzeStatus, string> = { pending: 'default', analyzing: 'processing', done: 'green', failed: 'red' };

function showFeature(value: unknown): string {
  if (Array.isArray(value)) return value.map(showFeature).join('、');
  if (value && typeof value === 'object') return JSON.stringify(value);
  return String(value ?? '—');
}

function Features({ features }: { features: Record<string, unknown> }) {
  const { t } = useTranslation();
  return (
    <Descriptions size="small" column={1} bordered style={{ marginTop: 8 }} data-testid="benchmark-features">
      {Object.entries(features).map(([k, v]) => (
        <Descriptions.Item key={k} label={t(`features.${k}`, { defaultValue: k })}>
          {showFeature(v)}
        </Descriptions.Item>
      ))}
    </Descriptions>
  );
}

function BenchmarkItem({ b, productId }: { b: Benchmark; productId: number }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  // Worded here by code, in the interface language; the server's Chinese text when a code is new to this client.
  const codes = b.analysis_warning_codes ?? [];
  const worded = codes.length > 0 && codes.every((c) => i18n.exists(`benchmarks.warnings.${c}`));
  const warning = worded ? codes.map((c) => t(`benchmarks.warnings.${c}`)).join(t('benchmarks.warningSeparator')) : b.analysis_warning;
  const analyze = useMutation({
    mutationFn: () => api.benchmarks.analyze(b.id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['benchmarks', productId] }),
  });
  return (
    <List.Item data-testid="benchmark">
      <div style={{ width: '100%' }}>
        <Space wrap>
          <Typography.Text strong>#{b.id}</Typography.Text>
          <Tag color={tone(STATUS_COLOR[b.analyze_status])}>{t(`benchmarks.status.${b.analyze_status}`)}</Tag>
          {b.analysis_source && <Tag>{t('benchmarks.source', { source: t(`benchmarks.sources.${b.analysis_source}`, { defaultValue: b.analysis_source }) })}</Tag>}
          <Typography.Text type="secondary">{formatTime(b.created_at)}</Typography.Text>
          <Button size="small" onClick={() => analyze.mutate()} loading={analyze.isPending}>
            {b.analyze_status === 'done' ? t('benchmarks.reanalyze') : t('benchmarks.analyze')}
          </Button>
        </Space>
        {b.highlights && <Typography.Paragraph style={{ margin: '8px 0 0', whiteSpace: 'pre-wrap' }}>{b.highlights}</Typography.Paragraph>}
        {b.link_url && (
          <Typography.Link href={b.link_url} target="_blank" rel="noopener noreferrer nofollow">
            {b.link_url}
          </Typography.Link>
        )}
        {warning && <Alert type="warning" showIcon title={warning} style={{ marginTop: 8 }} />}
        {b.features && <Features features={b.features} />}
      </div>
    </List.Item>
  );
}

interface AddValues {
  highlights: string;
  link_url: string;
}

export function BenchmarksPanel({ productId }: { productId: number }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const paging = usePaging(10);
  const [form] = Form.useForm<AddValues>();
  const [file, setFile] = useState<File>();
  const list = useQuery({ queryKey: ['benchmarks', productId, paging.query], queryFn: () => api.benchmarks.list(productId, paging.query) });
  const add = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: AddValues) =>
      file
        ? api.benchmarks.upload(productId, file, v.highlights?.trim() ?? '', v.link_url?.trim() ?? '')
        : api.benchmarks.create(productId, { highlights: v.highlights?.trim() ?? '', link_url: v.link_url?.trim() || null }),
    onSuccess: () => {
      form.resetFields();
      setFile(undefined);
      void queryClient.invalidateQueries({ queryKey: ['benchmarks', productId] });
    },
  });
  return (
    <>
      <Card size="small" title={t('benchmarks.add')} style={{ marginBottom: 16, maxWidth: 720 }}>
        {add.error && <Alert type="error" showIcon role="alert" title={errorMessage(add.error)} style={{ marginBottom: 12 }} />}
        <Form<AddValues> form={form} layout="vertical" onFinish={(v) => add.mutate(v)}>
          <Form.Item label={t('benchmarks.highlights')} name="highlights">
            <Input.TextArea autoSize={{ minRows: 2, maxRows: 8 }} />
          </Form.Item>
          <Form.Item label={t('benchmarks.link')} name="link_url" rules={[{ type: 'url', message: t('benchmarks.linkInvalid') }, { pattern: /^https?:\/\//i, message: t('benchmarks.linkInvalid') }]}>
            <Input placeholder="https://" />
          </Form.Item>
          <Form.Item label={t('benchmarks.screenshot')} extra={t('images.hint')}>
            <Upload
              accept={ACCEPTED_IMAGES}
              maxCount={1}
              beforeUpload={(f) => {
                setFile(f);
                return false;
              }}
              onRemove={() => setFile(undefined)}
              fileList={file ? [{ uid: 'screenshot', name: file.name, status: 'done' }] : []}
            >
              <Button icon={<UploadOutlined aria-hidden />}>{t('benchmarks.pick')}</Button>
            </Upload>
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={add.isPending}>
            {t('benchmarks.submit')}
          </Button>
        </Form>
      </Card>
      <QueryError error={list.error} />
      {list.data && list.data.total === 0 ? (
        <Empty description={t('benchmarks.none')} />
      ) : (
        <List
          dataSource={list.data?.items}
          loading={list.isLoading}
          renderItem={(b) => <BenchmarkItem key={b.id} b={b} productId={productId} />}
          pagination={list.data && list.data.total > paging.query.page_size ? paging.pagination(list.data.total) : false}
        />
      )}
    </>
  );
}
