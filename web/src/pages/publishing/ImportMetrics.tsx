import { UploadOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Modal, Space, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ResponsiveTable } from '../../components/ResponsiveTable';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import { refresh } from '../../api/queryKeys';
import type { ImportResult, UnmatchedRow } from '../../api/types';

/** The server takes at most 10 MB (`importMetrics`); a larger file is refused here before it is sent. */
export const MAX_IMPORT_BYTES = 10 * 1024 * 1024;

/** Why a file cannot be imported (the i18n key), or null when it can be sent: .csv or .xlsx, at most 10 MB. */
export function importFileProblem(file: { name: string; size: number }): 'publishing.import.badType' | 'publishing.import.tooLarge' | null {
  if (!/\.(csv|xlsx)$/i.test(file.name)) return 'publishing.import.badType';
  if (file.size > MAX_IMPORT_BYTES) return 'publishing.import.tooLarge';
  return null;
}

/** What an import did: rows read, matched, new snapshots, and each row not matched with why, in words. */
export function ImportResultView({ result }: { result: ImportResult }) {
  const { t } = useTranslation();
  return (
    <div data-testid="import-result">
      <Alert
        type={result.unmatched.length === 0 ? 'success' : 'info'}
        showIcon
        style={{ marginBottom: 12 }}
        title={t('publishing.import.summary', { rows: result.rows, matched: result.matched, created: result.created })}
        description={result.unmatched.length === 0 ? t('publishing.import.allMatched') : undefined}
      />
      {result.unmatched.length > 0 && (
        <>
          <Typography.Text strong style={{ display: 'block', marginBottom: 8 }}>
            {t('publishing.import.unmatchedTitle', { count: result.unmatched.length })}
          </Typography.Text>
          <ResponsiveTable<UnmatchedRow>
            size="small"
            rowKey="row"
            data-testid="import-unmatched"
            dataSource={result.unmatched}
            pagination={result.unmatched.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
            columns={[
              { title: t('publishing.import.row'), dataIndex: 'row', width: 64 },
              { title: t('publishing.import.noteTitle'), dataIndex: 'title', render: (v: string | null) => <span style={{ overflowWrap: 'anywhere' }}>{v ?? '—'}</span> },
              { title: t('publishing.import.reason'), dataIndex: 'reason', render: (v: UnmatchedRow['reason']) => t(`publishing.import.reasons.${v}`) },
            ]}
          />
        </>
      )}
    </div>
  );
}

/**
 * 导入创作中心数据: a button opening a dialog that takes the creator centre's note-data export
 * (CSV or XLSX, checked for type and size before sending) → `importMetrics`, and shows what
 * matched and every row that did not, with why.
 */
export function ImportMetricsButton() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string>();
  const upload = useMutation({
    meta: { inlineError: true },
    mutationFn: (file: File) => api.metrics.importFile(file),
    onSuccess: () => void refresh.results(queryClient),
  });
  const close = () => {
    setOpen(false);
    setProblem(undefined);
    upload.reset();
  };
  return (
    <>
      <Button icon={<UploadOutlined aria-hidden />} onClick={() => setOpen(true)} data-testid="import-metrics">
        {t('publishing.import.button')}
      </Button>
      <Modal open={open} title={t('publishing.import.title')} onCancel={close} footer={<Button onClick={close}>{t('publishing.import.close')}</Button>} destroyOnHidden width={720}>
        <Typography.Paragraph type="secondary">{t('publishing.import.hint')}</Typography.Paragraph>
        <Space orientation="vertical" style={{ width: '100%' }}>
          <Upload
            accept=".csv,.xlsx"
            showUploadList={false}
            maxCount={1}
            beforeUpload={(file) => {
              const found = importFileProblem(file);
              setProblem(found ? t(found) : undefined);
              upload.reset();
              if (!found) upload.mutate(file);
              return false;
            }}
          >
            <Button type="primary" icon={<UploadOutlined aria-hidden />} loading={upload.isPending} data-testid="import-pick">
              {t('publishing.import.pick')}
            </Button>
          </Upload>
          {problem && (
            <Typography.Text type="danger" role="alert" data-testid="import-problem">
              {problem}
            </Typography.Text>
          )}
          {upload.error && <Alert type="error" showIcon role="alert" title={errorMessage(upload.error)} />}
          {upload.data && <ImportResultView result={upload.data} />}
        </Space>
      </Modal>
    </>
  );
}
