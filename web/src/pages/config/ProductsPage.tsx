import { DownloadOutlined, PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Input, Popconfirm, Space, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ResponsiveTable } from '../../components/ResponsiveTable';
import { Link } from 'react-router-dom';
import { api } from '../../api/endpoints';
import type { Product } from '../../api/types';
import { formatTime } from '../../components/format';
import { saveFile } from '../../components/saveFile';
import { QueryError } from '../../components/QueryError';
import { usePaging } from '../../components/usePaging';
import { PageTitle } from '../../components/PageTitle';
import { queryKeys, refresh } from '../../api/queryKeys';

export default function ProductsPage() {
  const { t } = useTranslation();
  const paging = usePaging();
  const [q, setQ] = useState('');
  const queryClient = useQueryClient();
  const products = useQuery({
    queryKey: queryKeys.products.list({ q, ...paging.query }),
    queryFn: () => api.products.list({ ...paging.query, q: q || undefined }),
    placeholderData: keepPreviousData,
  });
  const remove = useMutation({ mutationFn: api.products.remove, onSuccess: () => refresh.products(queryClient) });
  const exportAll = useMutation({ mutationFn: async () => saveFile(await api.products.exportAll(), 'products.json') });
  const exportBenchmarks = useMutation({ mutationFn: async () => saveFile(await api.benchmarks.exportCsv(), 'benchmarks.csv') });

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <PageTitle>
          {t('products.title')}
        </PageTitle>
        <Space wrap>
          <Input.Search
            aria-label={t('products.search')}
            placeholder={t('products.search')}
            allowClear
            onSearch={(v) => {
              setQ(v.trim());
              paging.reset();
            }}
            style={{ width: 240 }}
          />
          <Button icon={<DownloadOutlined aria-hidden />} onClick={() => exportAll.mutate()} loading={exportAll.isPending}>
            {t('products.exportJson')}
          </Button>
          <Button icon={<DownloadOutlined aria-hidden />} onClick={() => exportBenchmarks.mutate()} loading={exportBenchmarks.isPending}>
            {t('products.exportBenchmarks')}
          </Button>
          <Link to="/products/new">
            <Button type="primary" icon={<PlusOutlined aria-hidden />}>
              {t('products.new')}
            </Button>
          </Link>
        </Space>
      </Space>
      <QueryError error={products.error ?? exportAll.error ?? exportBenchmarks.error} />
      <ResponsiveTable<Product>
        rowKey="id"
        loading={products.isFetching}
        dataSource={products.data?.items}
        pagination={paging.pagination(products.data?.total)}
        locale={{ emptyText: t('products.empty') }}
        columns={[
          { title: t('products.name'), dataIndex: 'name', render: (v: string, row) => <Link to={`/products/${row.id}`}>{v}</Link> },
          { title: t('products.category'), dataIndex: 'category' },
          { title: t('products.source'), dataIndex: 'source', render: (v: string) => <Tag>{t(`products.sources.${v}`)}</Tag> },
          {
            title: t('products.sellingPoints'),
            dataIndex: 'selling_points',
            render: (v: string[]) => v.slice(0, 3).map((s) => <Tag key={s}>{s}</Tag>),
          },
          { title: t('tasks.createdAt'), dataIndex: 'created_at', render: formatTime },
          {
            title: t('form.actions'),
            key: 'actions',
            render: (_, row) => (
              <Space>
                <Link to={`/tasks/new?product_id=${row.id}`}>{t('products.newTask')}</Link>
                <Popconfirm title={t('products.deleteConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => remove.mutate(row.id)}>
                  <Button type="link" danger size="small">
                    {t('form.delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
    </>
  );
}
