import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Checkbox, DatePicker, Grid, Input, Select, Space, Table, Typography } from 'antd';
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
import { ProductSelect } from '../config/pickers';
import { PageTitle } from '../../components/PageTitle';
import { DemoHint } from '../../app/DemoHint';
import { queryKeys } from '../../api/queryKeys';

/**
 * GET /tasks pages by number only this deep (page × page_size, the server's PAGE_WINDOW); older
 * tasks are reached with the date filter, so the pager offers no page the server would refuse.
 */
const PAGED_TASKS = 10_000;

/** A 3:4 cover thumbnail of the task (the image itself, loaded when scrolled to), or an empty frame. */
function TaskCover({ url, theme }: { url: string | undefined; theme: string }) {
  const { t } = useTranslation();
  return (
    <div style={{ width: 42, aspectRatio: '3 / 4', borderRadius: 4, overflow: 'hidden', background: 'var(--ant-color-fill-tertiary, #f0f0f0)' }}>
      {url && <img src={url} alt={t('tasks.coverOf', { theme })} loading="lazy" style={{ width: '100%', height: '100%', objectFit: 'cover', display: 'block' }} data-testid="task-cover" />}
    </div>
  );
}

export default function TaskListPage() {
  const { t } = useTranslation();
  const paging = usePaging();
  const [status, setStatus] = useState<TaskStatus>();
  const [productId, setProductId] = useState<number>();
  const [range, setRange] = useState<[Dayjs | null, Dayjs | null] | null>(null);
  const [keyword, setKeyword] = useState('');
  // Archived tasks are finished business: out of the daily list unless asked for (or their status is chosen).
  const [showArchived, setShowArchived] = useState(false);
  const filters = {
    status,
    product_id: productId,
    date_from: range?.[0]?.format('YYYY-MM-DD'),
    date_to: range?.[1]?.format('YYYY-MM-DD'),
    q: keyword || undefined,
    hide_archived: showArchived ? undefined : true,
  };
  const tasks = useQuery({
    queryKey: queryKeys.tasks.list(filters, paging.query),
    queryFn: () => api.tasks.list({ ...filters, ...paging.query }),
    placeholderData: keepPreviousData,
  });
  const pageIds = (tasks.data?.items ?? []).map((task) => task.id);
  // Signed links expire, so covers are their own request beside the (cached) list page.
  const covers = useQuery({
    queryKey: queryKeys.tasks.covers(pageIds),
    queryFn: () => api.tasks.covers(pageIds),
    enabled: pageIds.length > 0,
    staleTime: 5 * 60_000,
    select: (data) => new Map(data.items.map((c) => [c.task_id, c.url])),
  });
  const screens = Grid.useBreakpoint();

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
        <Input.Search
          aria-label={t('tasks.search')}
          placeholder={t('tasks.search')}
          allowClear
          maxLength={100}
          style={{ width: 240 }}
          onSearch={(v) => {
            setKeyword(v.trim());
            paging.reset();
          }}
        />
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
        <ProductSelect
          aria-label={t('tasks.filterProduct')}
          placeholder={t('tasks.filterProduct')}
          allowClear
          style={{ width: 220 }}
          value={productId}
          onChange={(v) => {
            setProductId(v as number | undefined);
            paging.reset();
          }}
        />
        <DatePicker.RangePicker
          aria-label={t('tasks.filterDate')}
          value={range}
          onChange={(v) => {
            setRange(v);
            paging.reset();
          }}
        />
        <Checkbox
          checked={showArchived || status === 'archived'}
          disabled={status === 'archived'}
          onChange={(e) => {
            setShowArchived(e.target.checked);
            paging.reset();
          }}
        >
          {t('tasks.showArchived')}
        </Checkbox>
      </Space>
      <DemoHint emptyHere={tasks.data?.total === 0 && !keyword && !status && !productId && !range && !showArchived} />
      <QueryError error={tasks.error} />
      <Table<TaskListItem>
        rowKey="id"
        loading={tasks.isFetching}
        dataSource={tasks.data?.items}
        pagination={paging.pagination(tasks.data && Math.min(tasks.data.total, PAGED_TASKS))}
        locale={{ emptyText: t('tasks.empty') }}
        columns={[
          {
            title: t('tasks.cover'),
            key: 'cover',
            width: 64,
            render: (_, row) => <TaskCover url={covers.data?.get(row.id)} theme={row.theme} />,
          },
          // On a phone the row is cover, theme (with its product under it) and status, all on the
          // screen; the rest is for wider screens.
          { title: 'ID', dataIndex: 'id', width: 70, responsive: ['md'] },
          {
            title: t('tasks.theme'),
            dataIndex: 'theme',
            render: (v: string, row) => (
              <>
                <Link to={`/tasks/${row.id}`}>{v}</Link>
                {!screens.sm && (
                  <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }}>
                    {row.product_name}
                  </Typography.Text>
                )}
              </>
            ),
          },
          { title: t('tasks.product'), dataIndex: 'product_name', responsive: ['sm'] },
          { title: t('tasks.status'), dataIndex: 'status', render: (s: TaskStatus) => <TaskStatusTag status={s} /> },
          { title: t('tasks.track'), dataIndex: 'track', render: (v: string) => t(`track.${v}`), responsive: ['lg'] },
          { title: t('tasks.counts'), key: 'counts', render: (_, row) => `${row.text_count} / ${row.image_count}`, responsive: ['lg'] },
          { title: t('tasks.createdAt'), dataIndex: 'created_at', render: formatTime, responsive: ['md'] },
        ]}
      />
    </>
  );
}
