import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { type Batch } from '../../api/types';
import { api } from '../../api/endpoints';
import { queryKeys } from '../../api/queryKeys';
import { formatTime } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { QueryError } from '../../components/QueryError';
import { ResponsiveTable } from '../../components/ResponsiveTable';
import { usePaging } from '../../components/usePaging';
import { BatchProgress } from './BatchProgress';
import { BatchStatusTag } from './shared';

/** While a batch on the page runs, the list refreshes this often. */
const LIST_REFRESH_MS = 5_000;

/** 批量生产 (`/batches`): every batch of the workspace, newest first, with its progress and estimated finish. */
export default function BatchListPage() {
  const { t } = useTranslation();
  const paging = usePaging();
  const batches = useQuery({
    queryKey: queryKeys.batches.list(paging.query),
    queryFn: () => api.batches.list(paging.query),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.items.some((b) => b.status === 'running') ? LIST_REFRESH_MS : false),
  });
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
        <PageTitle>{t('batches.title')}</PageTitle>
        <Link to="/batches/new">
          <Button type="primary" icon={<PlusOutlined aria-hidden />}>
            {t('batches.create')}
          </Button>
        </Link>
      </Space>
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        {t('batches.intro')}
      </Typography.Paragraph>
      <QueryError error={batches.error} />
      <ResponsiveTable<Batch>
        rowKey="id"
        data-testid="batch-list"
        loading={batches.isLoading}
        dataSource={batches.data?.items ?? []}
        pagination={paging.pagination(batches.data?.total)}
        locale={{ emptyText: <Typography.Text style={{ color: '#595959' }}>{t('batches.empty')}</Typography.Text> }}
        columns={[
          { key: 'name', title: t('batches.name'), dataIndex: 'name', render: (name: string, b) => <Link to={`/batches/${b.id}`}>{name}</Link> },
          { key: 'created', title: t('batches.created'), dataIndex: 'created_at', render: (v: string) => formatTime(v) },
          { key: 'total', title: t('batches.total'), dataIndex: 'total' },
          { key: 'progress', title: t('batches.progress'), render: (_: unknown, b) => <BatchProgress batch={b} size="small" />, width: 300 },
          { key: 'status', title: t('batches.status'), dataIndex: 'status', render: (_: unknown, b) => <BatchStatusTag status={b.status} /> },
          {
            key: 'eta',
            title: t('batches.eta'),
            render: (_: unknown, b) => (b.status === 'running' ? formatTime(b.eta) : b.finished_at ? t('batches.endedAt', { time: formatTime(b.finished_at) }) : '—'),
          },
        ]}
      />
    </Space>
  );
}
