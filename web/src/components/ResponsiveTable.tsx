import { Card, Checkbox, Empty, Grid, Pagination, Space, Spin, Table, Typography } from 'antd';
import type { TableColumnType, TableProps } from 'antd';
import type { Key, ReactNode } from 'react';

/** Whether the screen is a phone (narrower than antd's `sm`, 576 px). */
export function usePhone(): boolean {
  return !(Grid.useBreakpoint().sm ?? true);
}

function cell<T>(column: TableColumnType<T>, row: T, index: number): ReactNode {
  const field = typeof column.dataIndex === 'string' || typeof column.dataIndex === 'number' ? (row as Record<string | number, unknown>)[column.dataIndex] : undefined;
  if (column.render) return column.render(field, row, index) as ReactNode;
  return field === null || field === undefined ? '—' : String(field as string | number);
}

/**
 * An antd Table on a desk; on a phone the same rows as cards (the first column as the card's
 * title, the others as label / value lines, the `actions` column at the foot): no sideways
 * scrolling box that hides half of a row at 390 px. Same props as Table.
 */
export function ResponsiveTable<T extends object>(props: TableProps<T> & { 'data-testid'?: string }) {
  const phone = usePhone();
  if (!phone) return <Table<T> {...props} />;
  const columns = (props.columns ?? []) as TableColumnType<T>[];
  const rows = props.dataSource ?? [];
  const keyOf = (row: T, i: number): Key =>
    typeof props.rowKey === 'function' ? props.rowKey(row, i) : ((row as Record<string, unknown>)[(props.rowKey as string | undefined) ?? 'key'] as Key) ?? i;
  const [first, ...rest] = columns;
  const actions = rest.filter((c) => c.key === 'actions');
  const fields = rest.filter((c) => c.key !== 'actions');
  const selection = props.rowSelection;
  const pagination = props.pagination && typeof props.pagination === 'object' ? props.pagination : undefined;
  const loading = Boolean(typeof props.loading === 'object' ? props.loading.spinning : props.loading);
  return (
    <Spin spinning={loading}>
      <Space orientation="vertical" size="small" style={{ width: '100%' }} data-testid={props['data-testid'] ?? 'responsive-cards'}>
        {rows.length === 0 && !loading && <Empty description={typeof props.locale?.emptyText === 'function' ? props.locale.emptyText() : props.locale?.emptyText} />}
        {rows.map((row, i) => {
          const key = keyOf(row, i);
          const checkbox = selection?.getCheckboxProps?.(row) ?? {};
          return (
            <Card
              key={key}
              size="small"
              data-testid="row-card"
              styles={{ header: { flexWrap: 'wrap' }, title: { whiteSpace: 'normal', overflowWrap: 'anywhere' } }}
              title={
                <Space size={8} align="start">
                  {selection && (
                    <Checkbox
                      checked={selection.selectedRowKeys?.includes(key) ?? false}
                      disabled={checkbox.disabled}
                      aria-label={checkbox['aria-label' as keyof typeof checkbox] as string | undefined}
                      onChange={(e) => {
                        const now = selection.selectedRowKeys ?? [];
                        const next = e.target.checked ? [...now, key] : now.filter((k) => k !== key);
                        selection.onChange?.(next, rows.filter((r, j) => next.includes(keyOf(r, j))), { type: 'single' });
                      }}
                    />
                  )}
                  <span>{first ? cell(first, row, i) : null}</span>
                </Space>
              }
            >
              <dl style={{ display: 'grid', gridTemplateColumns: 'auto minmax(0, 1fr)', gap: '6px 12px', margin: 0, alignItems: 'center' }}>
                {fields.map((c, j) => (
                  <div key={String(c.key ?? c.dataIndex ?? j)} style={{ display: 'contents' }}>
                    <dt>
                      <Typography.Text type="secondary">{c.title as ReactNode}</Typography.Text>
                    </dt>
                    <dd style={{ margin: 0, minWidth: 0, overflowWrap: 'anywhere' }}>{cell(c, row, i)}</dd>
                  </div>
                ))}
              </dl>
              {actions.map((c, j) => (
                <div key={j} style={{ marginTop: 8 }}>
                  {cell(c, row, i)}
                </div>
              ))}
            </Card>
          );
        })}
        {pagination && (pagination.total ?? 0) > (pagination.pageSize ?? 10) && (
          <Pagination simple size="small" current={pagination.current} pageSize={pagination.pageSize} total={pagination.total} onChange={pagination.onChange} style={{ textAlign: 'center' }} />
        )}
      </Space>
    </Spin>
  );
}
