import { Progress, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Batch } from '../../api/types';

/** Done + failed over the total, as a bar: done green, failed red on top of it. */
export function batchPercent(batch: Pick<Batch, 'total' | 'counts'>): { settled: number; done: number } {
  if (batch.total <= 0) return { settled: 0, done: 0 };
  const settled = ((batch.counts.done + batch.counts.failed) / batch.total) * 100;
  return { settled: Math.round(settled), done: Math.round((batch.counts.done / batch.total) * 100) };
}

/** The bar and, below it, the counts in words (waiting, generating, done, failed). */
export function BatchProgress({ batch, size }: { batch: Batch; size?: 'small' | 'default' }) {
  const { t } = useTranslation();
  const { settled, done } = batchPercent(batch);
  const failedShare = settled - done;
  return (
    <div style={{ minWidth: 160 }}>
      <Progress
        percent={settled}
        success={{ percent: done }}
        strokeColor={failedShare > 0 ? '#cf1322' : undefined}
        status={batch.status === 'running' ? 'active' : 'normal'}
        size={size === 'small' ? 'small' : 'default'}
        aria-label={t('batches.progress')}
        data-testid="batch-progress"
      />
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('batches.progressLine', { ...batch.counts })}
        {batch.counts.cancelled > 0 ? t('batches.progressCancelled', { cancelled: batch.counts.cancelled }) : ''}
      </Typography.Text>
    </div>
  );
}
