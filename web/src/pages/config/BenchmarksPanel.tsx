import { DownloadOutlined, UploadOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Empty, Form, Image, Input, List, Modal, Popconfirm, Space, Tag, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import type { AnalyzeStatus, Benchmark } from '../../api/types';
import { formatTime } from '../../components/format';
import { saveFile } from '../../components/saveFile';
import { QueryError } from '../../components/QueryError';
import { usePaging } from '../../components/usePaging';
import { ACCEPTED_IMAGES } from './ProductImages';
import { tone } from '../../components/tags';
import { queryKeys, refresh } from '../../api/queryKeys';

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

interface EditValues {
  highlights: string;
  link: string;
}

/** A bare http(s) link goes to link_url; anything else is sent as a share text for the server to read the link from. */
function linkFields(link: string): { link_url?: string | null; share_text?: string } {
  const value = link.trim();
  if (!value) return { link_url: null };
  return /^https?:\/\/\S+$/i.test(value) ? { link_url: value } : { share_text: value };
}

function BenchmarkItem({ b, productId }: { b: Benchmark; productId: number }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [form] = Form.useForm<EditValues>();
  // Worded here by code, in the interface language; the server's Chinese text when a code is new to this client.
  const codes = b.analysis_warning_codes ?? [];
  const worded = codes.length > 0 && codes.every((c) => i18n.exists(`benchmarks.warnings.${c}`));
  const warning = worded ? codes.map((c) => t(`benchmarks.warnings.${c}`)).join(t('benchmarks.warningSeparator')) : b.analysis_warning;
  const reload = () => refresh.benchmarks(queryClient, productId);
  const analyze = useMutation({ mutationFn: () => api.benchmarks.analyze(b.id), onSettled: reload });
  const save = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: EditValues) => api.benchmarks.update(b.id, { highlights: v.highlights?.trim() ?? '', ...linkFields(v.link ?? '') }),
    onSuccess: () => {
      setEditing(false);
      void reload();
    },
  });
  const remove = useMutation({ mutationFn: () => api.benchmarks.remove(b.id), onSuccess: reload });
  return (
    <List.Item data-testid="benchmark">
      <div style={{ display: 'flex', gap: 12, width: '100%', alignItems: 'flex-start' }}>
        {b.screenshot_url && (
          <div style={{ flex: '0 0 auto', width: 96 }}>
            <Image
              src={b.screenshot_url}
              alt={t('benchmarks.screenshotOf', { id: b.id })}
              width={96}
              style={{ borderRadius: 6, objectFit: 'cover', aspectRatio: '3 / 4' }}
              data-testid="benchmark-screenshot"
            />
          </div>
        )}
        <div style={{ flex: 1, minWidth: 0 }}>
          <Space wrap>
            <Typography.Text strong>#{b.id}</Typography.Text>
            <Tag color={tone(STATUS_COLOR[b.analyze_status])}>{t(`benchmarks.status.${b.analyze_status}`)}</Tag>
            {b.analysis_source && <Tag>{t('benchmarks.source', { source: t(`benchmarks.sources.${b.analysis_source}`, { defaultValue: b.analysis_source }) })}</Tag>}
            <Typography.Text type="secondary">{formatTime(b.created_at)}</Typography.Text>
          </Space>
          <Space wrap style={{ display: 'flex', marginTop: 4 }}>
            <Button size="small" onClick={() => analyze.mutate()} loading={analyze.isPending}>
              {b.analyze_status === 'done' ? t('benchmarks.reanalyze') : t('benchmarks.analyze')}
            </Button>
            <Button
              size="small"
              onClick={() => {
                save.reset();
                form.setFieldsValue({ highlights: b.highlights, link: b.link_url ?? '' });
                setEditing(true);
              }}
            >
              {t('form.edit')}
            </Button>
            <Popconfirm title={t('benchmarks.deleteConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => remove.mutate()}>
              <Button size="small" danger loading={remove.isPending}>
                {t('form.delete')}
              </Button>
            </Popconfirm>
          </Space>
          {b.highlights && <Typography.Paragraph style={{ margin: '8px 0 0', whiteSpace: 'pre-wrap' }}>{b.highlights}</Typography.Paragraph>}
          {b.link_url && (
            <Typography.Link href={b.link_url} target="_blank" rel="noopener noreferrer nofollow" style={{ wordBreak: 'break-all' }}>
              {b.link_url}
            </Typography.Link>
          )}
          {warning && <Alert type="warning" showIcon title={warning} style={{ marginTop: 8 }} />}
          {b.features && <Features features={b.features} />}
        </div>
      </div>
      <Modal
        open={editing}
        title={t('benchmarks.edit', { id: b.id })}
        okText={t('form.save')}
        cancelText={t('form.cancel')}
        confirmLoading={save.isPending}
        onCancel={() => setEditing(false)}
        onOk={() => form.submit()}
        forceRender
      >
        {save.error && <Alert type="error" showIcon role="alert" title={errorMessage(save.error)} style={{ marginBottom: 12 }} />}
        <Form<EditValues> form={form} name={`benchmark-${b.id}`} layout="vertical" onFinish={(v) => save.mutate(v)}>
          <Form.Item label={t('benchmarks.highlights')} name="highlights">
            <Input.TextArea autoSize={{ minRows: 2, maxRows: 8 }} maxLength={10_000} />
          </Form.Item>
          <Form.Item label={t('benchmarks.link')} name="link" extra={t('benchmarks.linkHint')} rules={[{ validator: linkRule(t('benchmarks.linkInvalid')) }]}>
            <Input.TextArea autoSize={{ minRows: 1, maxRows: 4 }} placeholder={t('benchmarks.linkPlaceholder')} />
          </Form.Item>
        </Form>
      </Modal>
    </List.Item>
  );
}

/** Empty, or anything holding an http(s) link (a bare link or a pasted share text). */
function linkRule(message: string) {
  return async (_: unknown, value: string | undefined) => {
    if (value?.trim() && !/https?:\/\/\S/i.test(value)) throw new Error(message);
  };
}

interface AddValues {
  highlights: string;
  link: string;
}

export function BenchmarksPanel({ productId }: { productId: number }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const paging = usePaging(10);
  const [form] = Form.useForm<AddValues>();
  const [file, setFile] = useState<File>();
  const [empty, setEmpty] = useState(false);
  const list = useQuery({ queryKey: queryKeys.benchmarks.list(productId, paging.query), queryFn: () => api.benchmarks.list(productId, paging.query) });
  const add = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: AddValues) => {
      const highlights = v.highlights?.trim() ?? '';
      const link = v.link?.trim() ?? '';
      // A bare link and a share text alike: the server reads the link out of either.
      return file ? api.benchmarks.upload(productId, file, highlights, link) : api.benchmarks.create(productId, { highlights, ...(link ? { share_text: link } : {}) });
    },
    onSuccess: () => {
      form.resetFields();
      setFile(undefined);
      void refresh.benchmarks(queryClient, productId);
    },
  });
  const exportCsv = useMutation({ mutationFn: async () => saveFile(await api.benchmarks.exportCsv(productId), `benchmarks-${productId}.csv`) });
  return (
    <>
      <Card size="small" title={t('benchmarks.add')} style={{ marginBottom: 16, maxWidth: 720 }}>
        {add.error && <Alert type="error" showIcon role="alert" title={errorMessage(add.error)} style={{ marginBottom: 12 }} />}
        <Form<AddValues>
          form={form}
          name="benchmark-add"
          layout="vertical"
          onFinish={(v) => {
            // Nothing to analyse: said here, before anything is sent.
            if (!v.highlights?.trim() && !v.link?.trim() && !file) setEmpty(true);
            else add.mutate(v);
          }}
          onValuesChange={() => setEmpty(false)}
        >
          <Form.Item label={t('benchmarks.link')} name="link" extra={t('benchmarks.linkHint')} rules={[{ validator: linkRule(t('benchmarks.linkInvalid')) }]}>
            <Input.TextArea autoSize={{ minRows: 1, maxRows: 4 }} placeholder={t('benchmarks.linkPlaceholder')} />
          </Form.Item>
          <Form.Item label={t('benchmarks.highlights')} name="highlights" extra={t('benchmarks.highlightsHint')}>
            <Input.TextArea autoSize={{ minRows: 2, maxRows: 8 }} maxLength={10_000} />
          </Form.Item>
          <Form.Item label={t('benchmarks.screenshot')} extra={t('images.hint')}>
            <Upload
              accept={ACCEPTED_IMAGES}
              maxCount={1}
              beforeUpload={(f) => {
                setFile(f);
                setEmpty(false);
                return false;
              }}
              onRemove={() => setFile(undefined)}
              fileList={file ? [{ uid: 'screenshot', name: file.name, status: 'done' }] : []}
            >
              <Button icon={<UploadOutlined aria-hidden />}>{t('benchmarks.pick')}</Button>
            </Upload>
          </Form.Item>
          {empty && (
            <Alert type="error" showIcon role="alert" title={t('review2.benchmarkEmpty')} style={{ marginBottom: 12 }} data-testid="benchmark-empty" />
          )}
          <Button type="primary" htmlType="submit" loading={add.isPending}>
            {t('benchmarks.submit')}
          </Button>
        </Form>
      </Card>
      <Space style={{ marginBottom: 8 }} wrap>
        <Button icon={<DownloadOutlined aria-hidden />} onClick={() => exportCsv.mutate()} loading={exportCsv.isPending} disabled={!list.data?.total}>
          {t('benchmarks.exportCsv')}
        </Button>
      </Space>
      <QueryError error={list.error ?? exportCsv.error} />
      {list.data && list.data.total === 0 ? (
        <Empty description={t('benchmarks.none')} />
      ) : (
        <Image.PreviewGroup>
          <List
            dataSource={list.data?.items}
            loading={list.isLoading}
            renderItem={(b) => <BenchmarkItem key={b.id} b={b} productId={productId} />}
            pagination={list.data && list.data.total > paging.query.page_size ? paging.pagination(list.data.total) : false}
          />
        </Image.PreviewGroup>
      )}
    </>
  );
}
