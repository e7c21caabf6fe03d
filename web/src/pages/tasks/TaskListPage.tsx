import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, DatePicker, Select, Space, Table } from 'antd';
import type { Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { api } from '../../api/endpoints';
import { TASK_STATUSES, type TaskListItem, type TaskStatus } from '../../api/types';
import { formatTime } from '../../components/format';
import { QueryError } from '../../components/QueryError';
import { TaskStatusTag } from '../../components/tags';
import { usePaging } from '../../components/usePaging';
import { useAllProducts } from '../config/queries';
import { PageTitle } from '../../components/PageTitle';

/**
 * GET /tasks pages by number only this deep (page × page_size, the server's PAGE_WINDOW); older
 * tasks are reached with the date filter, so the pager offers no page the server would refuse.
 */
const PAGED_TASKS = 10_000;

export default function TaskListPage() {
  const { t } = useTranslation();
  const paging = usePaging();
  const [status, setStatus] = useState<TaskStatus>();
  const [productId, setProductId] = useState<number>();
  const [range, setRange] = useState<[Dayjs | null, Dayjs | null] | null>(null);
  const filters = {
    status,
    product_id: productId,
    date_from: range?.[0]?.format('YYYY-MM-DD'),
    date_to: range?.[1]?.format('YYYY-MM-DD'),
  };
  const tasks = useQuery({
    queryKey: ['tasks', filters, paging.query],
    queryFn: () => api.tasks.list({ ...filters, ...paging.query }),
    placeholderData: keepPreviousData,
  });
  const products = useAllProducts();

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <PageTitle>
          {t('tasks.title')}
        </PageTitle>
        <Link to="/tasks/new">
          <Button type="primary" icon={<PlusOutlined aria-hidden />}>
            {t('nav.newTask')}
          </Button>
        </Link>
      </Space>
      <Space wrap style={{ marginBottom: 16 }}>
        <Select
          aria-label={t('tasks.filterStatus')}
          placeholder={t('tasks.filterStatus')}
          allowClear
          style={{ width: 160 }}
          value={status}
          onChange={(v: TaskStatus | undefined) => {
            setStatus(v);
            paging.reset();
          }}
          options={TASK_STATUSES.map((s) => ({ value: s, label: t(`taskStatus.${s}`) }))}
        />
        <Select
          aria-label={t('tasks.filterProduct')}
          placeholder={t('tasks.filterProduct')}
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          style={{ width: 220 }}
          value={productId}
          onChange={(v: number | undefined) => {
            setProductId(v);
            paging.reset();
          }}
          options={(products.data?.items ?? []).map((p) => ({ value: p.id, label: p.name }))}
        />
        <DatePicker.RangePicker
          aria-label={t('tasks.filterDate')}
          value={range}
          onChange={(v) => {
            setRange(v);
            paging.reset();
          }}
        />
      </Space>
      <QueryError error={tasks.error} />
      <Table<TaskListItem>
        rowKey="id"
        loading={tasks.isFetching}
        dataSource={tasks.data?.items}
        pagination={paging.pagination(tasks.data && Math.min(tasks.data.total, PAGED_TASKS))}
        locale={{ emptyText: t('tasks.empty') }}
        columns={[
          { title: 'ID', dataIndex: 'id', width: 70 },
          { title: t('tasks.theme'), dataIndex: 'theme', render: (v: string, row) => <Link to={`/tasks/${row.id}`}>{v}</Link> },
          { title: t('tasks.product'), dataIndex: 'product_name' },
          { title: t('tasks.status'), dataIndex: 'status', render: (s: TaskStatus) => <TaskStatusTag status={s} /> },
          { title: t('tasks.track'), dataIndex: 'track', render: (v: string) => t(`track.${v}`) },
          { title: t('tasks.counts'), key: 'counts', render: (_, row) => `${row.text_count} / ${row.image_count}` },
          { title: t('tasks.createdAt'), dataIndex: 'created_at', render: formatTime },
        ]}
      />
    </>
  );
}
