import { DownloadOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, List, Space, Steps, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { apiUrl } from '../../api/client';
import { wordFailure } from '../../api/errorText';
import { api } from '../../api/endpoints';
import type { DeliveryPackage, TaskStatus } from '../../api/types';
import { formatTime } from '../../components/format';
import { queryKeys } from '../../api/queryKeys';

const STEP = { pending: 0, failed: 0, ready: 1, downloaded: 2 } as const;

/** A plain link with a one-time download token: no JWT ever goes into a URL. */
function openDownload(packageId: number, token: string) {
  const link = document.createElement('a');
  link.href = apiUrl(`/delivery-packages/${packageId}/download-file?token=${encodeURIComponent(token)}`);
  link.download = '';
  document.body.appendChild(link);
  link.click();
  link.remove();
}

function PackageRow({ pkg, onChange }: { pkg: DeliveryPackage; onChange: () => void }) {
  const { t } = useTranslation();
  const mark = useMutation({ mutationFn: () => api.packages.markDownloaded(pkg.id), onSuccess: onChange });
  // Once the download has started the package is marked downloaded by itself (the button stays for a retry).
  const download = useMutation({
    mutationFn: () => api.packages.downloadToken(pkg.id),
    onSuccess: (d) => {
      openDownload(pkg.id, d.token);
      if (pkg.status === 'ready') mark.mutate();
    },
  });
  const built = pkg.status === 'ready' || pkg.status === 'downloaded';
  // The server gives a built package a download_url only until it expires (its zip is then removed).
  const expired = built && pkg.download_url === null;
  const downloadable = built && !expired;
  return (
    <List.Item data-testid="package-row" data-status={pkg.status}>
      <div style={{ width: '100%' }}>
        <Typography.Text strong>{t('delivery.package', { id: pkg.id })}</Typography.Text>{' '}
        <Typography.Text type="secondary">{formatTime(pkg.created_at)}</Typography.Text>
        <Steps
          size="small"
          style={{ margin: '8px 0' }}
          current={STEP[pkg.status]}
          status={pkg.status === 'failed' ? 'error' : pkg.status === 'pending' ? 'process' : 'finish'}
          items={[{ title: t('delivery.status.pending') }, { title: t('delivery.status.ready') }, { title: t('delivery.status.downloaded') }]}
        />
        {pkg.error && <Alert type="error" showIcon title={wordFailure(t, { key: pkg.error_key, params: pkg.error_params })} style={{ marginBottom: 8 }} />}
        <Space wrap>
          <Button icon={<DownloadOutlined aria-hidden />} type="primary" disabled={!downloadable} loading={download.isPending} onClick={() => download.mutate()}>
            {t('delivery.download')}
          </Button>
          <Button disabled={pkg.status !== 'ready' || expired} loading={mark.isPending} onClick={() => mark.mutate()}>
            {t('delivery.markDownloaded')}
          </Button>
          {expired ? (
            <Typography.Text type="warning" data-testid="package-expired">
              {t('delivery.expired', { at: formatTime(pkg.expires_at ?? '') })}
            </Typography.Text>
          ) : (
            pkg.expires_at && <Typography.Text type="secondary">{t('delivery.expires', { at: formatTime(pkg.expires_at) })}</Typography.Text>
          )}
        </Space>
      </div>
    </List.Item>
  );
}

export function DeliveryPanel({ taskId, status }: { taskId: number; status: TaskStatus }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const key = queryKeys.task.packages(taskId);
  const packages = useQuery({
    queryKey: key,
    queryFn: () => api.tasks.packages(taskId, { page: 1, page_size: 5 }),
    // A package builds in the background: poll while one is pending.
    refetchInterval: (q) => (q.state.data?.items.some((p) => p.status === 'pending') ? 1000 : false),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: key });
  const create = useMutation({ mutationFn: () => api.tasks.createPackage(taskId), onSuccess: refresh });
  const packable = status === 'approved' || status === 'pending_selection';
  const items = packages.data?.items ?? [];
  return (
    <Card
      size="small"
      title={t('delivery.title')}
      style={{ marginBottom: 16 }}
      extra={
        <Button onClick={() => create.mutate()} loading={create.isPending} disabled={!packable}>
          {t('delivery.create')}
        </Button>
      }
    >
      {items.length === 0 ? (
        <Typography.Text type="secondary">{packable ? t('delivery.none') : t('delivery.notYet')}</Typography.Text>
      ) : (
        <List dataSource={items} renderItem={(p) => <PackageRow key={p.id} pkg={p} onChange={refresh} />} />
      )}
    </Card>
  );
}
