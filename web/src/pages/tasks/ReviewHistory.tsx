import { DownloadOutlined } from '@ant-design/icons';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Tag, Timeline, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/endpoints';
import { useCan } from '../../app/abilities';
import { saveFile } from '../../components/saveFile';
import { formatTime } from '../../components/format';
import { QueryError } from '../../components/QueryError';
import { tone } from '../../components/tags';
import { queryKeys } from '../../api/queryKeys';

const COLOR = { submit: 'blue', approve: 'green', reject: 'red' } as const;

/** Every submit / approve / reject of the task with who, when and the reason verbatim. */
export function ReviewHistory({ taskId, version }: { taskId: number; version: string }) {
  const { t } = useTranslation();
  const history = useQuery({ queryKey: queryKeys.task.reviews(taskId, version), queryFn: () => api.tasks.reviews(taskId) });
  const can = useCan();
  const audit = useMutation({ mutationFn: async () => saveFile(await api.tasks.auditCsv(taskId), `task-${taskId}-audit.csv`) });
  // The whole trail (contract-decisions §12) is for those who answer for what is posted.
  const extra = can('audit.read') && (
    <Button size="small" icon={<DownloadOutlined aria-hidden />} onClick={() => audit.mutate()} loading={audit.isPending}>
      {t('taskPage.auditDownload')}
    </Button>
  );
  return (
    <Card size="small" title={t('taskPage.review')} extra={extra} style={{ marginBottom: 16 }} data-testid="review-history">
      <QueryError error={history.error ?? audit.error} />
      {history.data?.items.length === 0 && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('taskPage.noReviews')} />}
      <Timeline
        items={(history.data?.items ?? []).map((r) => ({
          color: COLOR[r.action],
          content: (
            <>
              <Tag color={tone(COLOR[r.action])}>{t(`reviewAction.${r.action}`)}</Tag>
              {r.final && <Tag>{t('review.finalTag')}</Tag>}
              <Typography.Text type="secondary">
                {r.username} · {formatTime(r.created_at)}
              </Typography.Text>
              {r.reason && <Typography.Paragraph style={{ margin: '4px 0 0', whiteSpace: 'pre-wrap' }}>{r.reason}</Typography.Paragraph>}
            </>
          ),
        }))}
      />
    </Card>
  );
}
