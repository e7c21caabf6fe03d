import { useQuery } from '@tanstack/react-query';
import { Card, Descriptions, Empty, List } from 'antd';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/endpoints';
import { QueryError } from '../../components/QueryError';

/** What the flywheel injected into this task's latest generation. */
export function PreferencePanel({ taskId, version }: { taskId: number; version: string }) {
  const { t } = useTranslation();
  const context = useQuery({ queryKey: ['task', taskId, 'preference', version], queryFn: () => api.tasks.preference(taskId) });
  return (
    <Card size="small" title={t('preference.title')} style={{ marginBottom: 16 }} data-testid="preference-panel">
      <QueryError error={context.error} />
      {context.data && (
        <Descriptions column={1} size="small">
          <Descriptions.Item label={t('preference.recent')}>{context.data.recent_preference || '—'}</Descriptions.Item>
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
