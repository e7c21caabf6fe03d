import { useQuery } from '@tanstack/react-query';
import { Card, Descriptions, Empty, List } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/endpoints';
import { QueryError } from '../../components/QueryError';
import { queryKeys } from '../../api/queryKeys';

const ANGLE = /「([^」]+)」 \(score ([\d.]+)\)/g;
const STRATEGY = /preferred strategy: (.+?) \(score ([\d.]+)\)/;

/**
 * `recent_preference` is the server's sentence for the model prompt ("Preferred angle: 「…」
 * (score 14); preferred strategy: A (痛点共鸣) (score 3)"); the console words its parts in the
 * interface language, and shows the sentence itself only if its shape is new to this client.
 */
export function wordPreference(t: TFunction, summary: string): string {
  if (!summary) return '—';
  const angles = [...summary.matchAll(ANGLE)].map((m) => t('preference.angle', { angle: m[1], score: m[2] }));
  const strategy = STRATEGY.exec(summary);
  const parts = [
    ...(angles.length ? [t('preference.angles', { list: angles.join(t('preference.listSeparator')) })] : []),
    ...(strategy ? [t('preference.strategy', { strategy: strategy[1], score: strategy[2] })] : []),
  ];
  return parts.length ? parts.join(t('preference.separator')) : summary;
}

/** What the flywheel injected into this task's latest generation. */
export function PreferencePanel({ taskId, version }: { taskId: number; version: string }) {
  const { t } = useTranslation();
  const context = useQuery({ queryKey: queryKeys.task.preference(taskId, version), queryFn: () => api.tasks.preference(taskId) });
  return (
    <Card size="small" title={t('preference.title')} style={{ marginBottom: 16 }} data-testid="preference-panel">
      <QueryError error={context.error} />
      {context.data && (
        <Descriptions column={1} size="small">
          <Descriptions.Item label={t('preference.recent')}>{wordPreference(t, context.data.recent_preference)}</Descriptions.Item>
          <Descriptions.Item label={t('preference.injected')}>{context.data.injected_count}</Descriptions.Item>
          <Descriptions.Item label={t('preference.rejectReasons')}>
            {context.data.reject_reasons.length === 0 ? (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('preference.noReasons')} />
            ) : (
              <List size="small" dataSource={context.data.reject_reasons} renderItem={(r) => <List.Item>{r}</List.Item>} />
            )}
          </Descriptions.Item>
        </Descriptions>
      )}
    </Card>
  );
}
