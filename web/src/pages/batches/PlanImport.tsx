import { DownloadOutlined, UploadOutlined } from '@ant-design/icons';
import { useMutation, useQueries, useQuery } from '@tanstack/react-query';
import { Alert, Button, Popconfirm, Space, Typography, Upload } from 'antd';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BatchItemInput, PlanError } from '../../api/types';
import { api } from '../../api/endpoints';
import { queryKeys } from '../../api/queryKeys';
import { errorMessage } from '../../api/client';
import { wordReason } from '../../api/errorText';
import { formatTime } from '../../components/format';
import { ResponsiveTable } from '../../components/ResponsiveTable';
import { saveBlob } from '../../components/saveFile';
import { planTemplate } from './shared';

/** The server reads at most 10 MB; a larger file is refused before it is sent. */
export const MAX_PLAN_BYTES = 10 * 1024 * 1024;

/** The plan's columns, in the order of the template (the headers the server reads). */
export const PLAN_HEADERS = ['产品', '主题', '文案数', '图片数', '裂变数', '账号', '发布时间'] as const;
const COLUMN_KEYS = ['product', 'theme', 'text_count', 'image_count', 'fission_count', 'account', 'publish_at'] as const;

/** Why a file cannot be sent (the i18n key), or null: .csv or .xlsx, at most 10 MB. */
export function planFileProblem(file: { name: string; size: number }): 'batches.plan.badType' | 'batches.plan.tooLarge' | null {
  if (!/\.(csv|xlsx)$/i.test(file.name)) return 'batches.plan.badType';
  if (file.size > MAX_PLAN_BYTES) return 'batches.plan.tooLarge';
  return null;
}

type PlanItem = BatchItemInput;

/** The item as POST /batches takes it. */
function toInput(item: PlanItem): BatchItemInput {
  return {
    product_id: item.product_id,
    theme: item.theme,
    text_count: item.text_count,
    image_count: item.image_count,
    ...(item.fission_count !== undefined ? { fission_count: item.fission_count } : {}),
    ...(item.account_id ? { account_id: item.account_id } : {}),
    ...(item.publish_at ? { publish_at: item.publish_at } : {}),
  };
}

/**
 * 导入计划: a CSV or XLSX plan read by the server (POST /batches/plan) into the tasks it makes and
 * the rows it could not read, each with its row number and why; 创建批次 sends the good ones
 * (asking first when rows will be skipped). A template with the headers is made here.
 */
export function PlanImport({ onCreate, pending, exampleProduct }: { onCreate: (items: BatchItemInput[]) => void; pending: boolean; exampleProduct?: string }) {
  const { t } = useTranslation();
  const [problem, setProblem] = useState<string>();
  const plan = useMutation({ meta: { inlineError: true }, mutationFn: (file: File) => api.batches.plan(file) });
  const items = plan.data?.items ?? [];
  const errors = plan.data?.errors ?? [];
  const create = () => onCreate(items.map(toInput));
  // The plan names products and accounts; the answer gives their ids: the preview shows the names again.
  const productIds = useMemo(() => [...new Set(items.map((i) => i.product_id))], [items]);
  const products = useQueries({ queries: productIds.map((id) => ({ queryKey: queryKeys.products.detail(id), queryFn: () => api.products.get(id) })) });
  const productName = new Map(products.flatMap((p) => (p.data ? [[p.data.id, p.data.name] as const] : [])));
  const accounts = useQuery({
    queryKey: queryKeys.accounts.list({ active: true }),
    queryFn: () => api.accounts.list({ active: true, page: 1, page_size: 100 }),
    enabled: items.some((i) => i.account_id),
  });
  const accountName = new Map((accounts.data?.items ?? []).map((a) => [a.id, a.name] as const));
  const column = (field: string | null) => (field ? t(`batches.plan.columns.${field}`, { defaultValue: field }) : t('batches.plan.none'));
  const wordError = (e: PlanError) => {
    const params = { ...(e.params ?? {}) };
    if (typeof params.field === 'string') params.field = column(params.field);
    return wordReason(t, e.reason, params);
  };
  const downloadTemplate = () => {
    const example = t('batches.plan.example', { returnObjects: true }) as Record<string, string>;
    const row = COLUMN_KEYS.map((key) =>
      key === 'product'
        ? (exampleProduct ?? example.product ?? '')
        : key === 'theme'
          ? (example.theme ?? '')
          : key === 'text_count' || key === 'image_count'
            ? '3'
            : key === 'fission_count'
              ? '0'
              : key === 'publish_at'
                ? dayjs().add(1, 'day').format('YYYY-MM-DD 20:00')
                : (example.account ?? ''),
    );
    saveBlob(new Blob([planTemplate([...PLAN_HEADERS], row)], { type: 'text/csv;charset=utf-8' }), t('batches.plan.templateName'));
  };
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="plan-import">
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        {t('batches.plan.hint')}{' '}
        <Button type="link" size="small" icon={<DownloadOutlined aria-hidden />} onClick={downloadTemplate} data-testid="plan-template" style={{ paddingInline: 0 }}>
          {t('batches.plan.template')}
        </Button>
      </Typography.Paragraph>
      <Upload
        accept=".csv,.xlsx"
        showUploadList={false}
        maxCount={1}
        beforeUpload={(file) => {
          const found = planFileProblem(file);
          setProblem(found ? t(found) : undefined);
          plan.reset();
          if (!found) plan.mutate(file);
          return false;
        }}
      >
        <Button icon={<UploadOutlined aria-hidden />} loading={plan.isPending} data-testid="plan-pick">
          {t('batches.plan.pick')}
        </Button>
      </Upload>
      {problem && (
        <Typography.Text type="danger" role="alert" data-testid="plan-problem">
          {problem}
        </Typography.Text>
      )}
      {plan.error && <Alert type="error" showIcon role="alert" title={errorMessage(plan.error)} />}
      {plan.data && (
        <>
          {errors.length > 0 && (
            <div>
              <Typography.Title level={2} style={{ fontSize: 16 }}>
                {t('batches.plan.errors', { count: errors.length })}
              </Typography.Title>
              <ResponsiveTable<PlanError>
                size="small"
                rowKey={(e) => `${e.row}-${e.field ?? ''}-${e.reason}`}
                data-testid="plan-errors"
                dataSource={errors}
                pagination={errors.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
                columns={[
                  { key: 'row', title: t('batches.plan.row'), dataIndex: 'row', width: 72, render: (row: number) => <span data-testid="plan-error-row">{t('batches.plan.rowN', { row })}</span> },
                  { key: 'field', title: t('batches.plan.field'), dataIndex: 'field', width: 120, render: (field: string | null) => column(field) },
                  { key: 'reason', title: t('batches.plan.reason'), render: (_: unknown, e) => <span data-testid="plan-error-reason">{wordError(e)}</span> },
                ]}
              />
            </div>
          )}
          <div>
            <Typography.Title level={2} style={{ fontSize: 16 }}>
              {t('batches.plan.items', { count: items.length })}
            </Typography.Title>
            <ResponsiveTable<PlanItem & { key: number }>
              size="small"
              data-testid="plan-items"
              dataSource={items.map((item, key) => ({ ...item, key }))}
              pagination={items.length > 20 ? { pageSize: 20, showSizeChanger: false } : false}
              columns={[
                { key: 'theme', title: t('batches.plan.columns.theme'), dataIndex: 'theme' },
                { key: 'product', title: t('batches.plan.columns.product'), render: (_: unknown, item) => productName.get(item.product_id) ?? `#${item.product_id}` },
                { key: 'text_count', title: t('batches.plan.columns.text_count'), dataIndex: 'text_count', width: 80 },
                { key: 'image_count', title: t('batches.plan.columns.image_count'), dataIndex: 'image_count', width: 80 },
                { key: 'fission_count', title: t('batches.plan.columns.fission_count'), dataIndex: 'fission_count', width: 80, render: (v?: number) => v ?? 0 },
                { key: 'account', title: t('batches.plan.columns.account'), render: (_: unknown, item) => (item.account_id ? (accountName.get(item.account_id) ?? `#${item.account_id}`) : '—') },
                { key: 'publish_at', title: t('batches.plan.columns.publish_at'), dataIndex: 'publish_at', render: (v?: string | null) => formatTime(v) },
              ]}
            />
          </div>
          <Popconfirm
            disabled={errors.length === 0 || items.length === 0}
            title={t('batches.plan.skipConfirm', { count: errors.length, items: items.length })}
            okText={t('form.ok')}
            cancelText={t('form.cancel')}
            onConfirm={create}
            styles={{ root: { maxWidth: 360 } }}
          >
            <Button type="primary" disabled={items.length === 0} loading={pending} onClick={errors.length === 0 ? create : undefined} data-testid="plan-submit">
              {t('batches.plan.submit')}
            </Button>
          </Popconfirm>
        </>
      )}
    </Space>
  );
}
