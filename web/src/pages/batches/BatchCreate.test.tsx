import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, renderHook, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { AppConfig } from '../../app/AppConfig';
import BatchCreatePage, { useIdempotencyKey } from './BatchCreatePage';
import { MatrixForm } from './MatrixForm';
import { matrixCounts, planTemplate } from './shared';
import { PLAN_HEADERS } from './PlanImport';

const PRODUCTS = [
  { id: 1, name: '保温杯' },
  { id: 2, name: '防晒霜' },
];
const batches = vi.hoisted(() => ({ create: vi.fn(), plan: vi.fn() }));
vi.mock('../../api/endpoints', () => ({
  api: {
    batches,
    products: {
      list: async () => ({ items: PRODUCTS, total: 2, page: 1, page_size: 20 }),
      get: async (id: number) => PRODUCTS.find((p) => p.id === id),
    },
    accounts: {
      list: async () => ({ items: [{ id: 3, name: '小美的日常', active: true }], total: 1, page: 1, page_size: 100 }),
    },
  },
}));
const navigate = vi.hoisted(() => vi.fn());
vi.mock('react-router-dom', async (original) => ({ ...(await original<typeof import('react-router-dom')>()), useNavigate: () => navigate }));

function wrap(children: ReactNode) {
  return render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <MemoryRouter>{children}</MemoryRouter>
      </QueryClientProvider>
    </AppConfig>,
  );
}

describe('the matrix form', () => {
  it('counts tasks as products × themes × tasks each, and slots as accounts × days × times', () => {
    expect(matrixCounts({ products: 20, themes: 3, tasksEach: 1, fission: 2, accounts: 0, days: 7, times: 2 })).toEqual({ tasks: 60, fissions: 120, slots: null, tooFewSlots: false });
    expect(matrixCounts({ products: 20, themes: 3, tasksEach: 1, fission: 0, accounts: 4, days: 7, times: 2 })).toMatchObject({ slots: 56, tooFewSlots: true });
    expect(matrixCounts({ products: 20, themes: 3, tasksEach: 1, fission: 0, accounts: 5, days: 7, times: 2 })).toMatchObject({ slots: 70, tooFewSlots: false });
  });

  it('shows the counts live and warns when there are fewer slots than tasks', async () => {
    const onSubmit = vi.fn();
    wrap(<MatrixForm pending={false} onSubmit={onSubmit} initialValues={{ product_ids: [1, 2], themes: ['通勤', '露营', '开学'], tasks_each: 2, account_ids: [3], days: 2, post_times: ['09:00'] }} />);
    await waitFor(() => expect(screen.getByTestId('matrix-tasks').textContent).toBe('将创建 12 个任务'));
    expect(screen.getByTestId('matrix-summary').textContent).toContain('2 个产品 × 3 个主题 × 2');
    expect(screen.getByTestId('matrix-slots').textContent).toBe('排期位 2 个（1 个账号 × 2 天 × 1 个时刻）');
    expect(screen.getByTestId('matrix-too-few-slots').textContent).toBe('排期位（2）少于任务数（12）：请增加账号、天数或发布时刻，否则创建会被拒绝');

    // 12 days × 1 time × 1 account: as many slots as tasks, no warning.
    const days = screen.getByRole('spinbutton', { name: '天数' });
    fireEvent.change(days, { target: { value: '12' } });
    await waitFor(() => expect(screen.getByTestId('matrix-slots').textContent).toContain('排期位 12 个'));
    expect(screen.queryByTestId('matrix-too-few-slots')).toBeNull();

    // Fission: each task's notes on top.
    fireEvent.change(screen.getByRole('spinbutton', { name: /裂变数/ }), { target: { value: '3' } });
    await waitFor(() => expect(screen.getByTestId('matrix-tasks').textContent).toBe('将创建 12 个任务，另裂变 36 篇笔记'));

    fireEvent.click(screen.getByTestId('matrix-submit'));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0]![0]).toMatchObject({
      product_ids: [1, 2],
      themes: ['通勤', '露营', '开学'],
      tasks_each: 2,
      text_count: 3,
      image_count: 3,
      fission_count: 3,
      account_ids: [3],
      days: 12,
      post_times: ['09:00'],
    });
    expect(onSubmit.mock.calls[0]![0].start_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  }, 60_000);

  it('sends no schedule without accounts, and shows no slots', async () => {
    const onSubmit = vi.fn();
    wrap(<MatrixForm pending={false} onSubmit={onSubmit} initialValues={{ product_ids: [1], themes: ['通勤'] }} />);
    await waitFor(() => expect(screen.getByTestId('matrix-tasks').textContent).toBe('将创建 1 个任务'));
    expect(screen.queryByTestId('matrix-slots')).toBeNull();
    fireEvent.click(screen.getByTestId('matrix-submit'));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0]![0]).toEqual({ product_ids: [1], themes: ['通勤'], tasks_each: 1, text_count: 3, image_count: 3, fission_count: 0 });
  });
});

describe('the idempotency key', () => {
  it('is kept for the same submission and renewed for a changed one', () => {
    const { result } = renderHook(() => useIdempotencyKey());
    const first = result.current({ name: 'a' });
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.current({ name: 'a' })).toBe(first);
    const second = result.current({ name: 'b' });
    expect(second).not.toBe(first);
    expect(result.current({ name: 'b' })).toBe(second);
  });
});

describe('importing a plan', () => {
  beforeEach(() => {
    batches.create.mockReset();
    batches.plan.mockReset();
    navigate.mockReset();
  });

  it('makes a template with the Chinese headers and an example row', () => {
    const csv = planTemplate([...PLAN_HEADERS], ['保温杯', '通勤, 上班', '3', '3', '0', '', '2026-06-01 20:00']);
    expect(csv.startsWith('\uFEFF产品,主题,文案数,图片数,裂变数,账号,发布时间\r\n')).toBe(true);
    expect(csv).toContain('保温杯,"通勤, 上班",3,3,0,,2026-06-01 20:00');
  });

  it('previews the parsed items and each row error in Chinese, and creates the batch from the good rows after confirming', async () => {
    batches.plan.mockResolvedValue({
      items: [
        { product_id: 1, theme: '通勤', text_count: 3, image_count: 3, fission_count: 0, account_id: 3, publish_at: '2026-06-01T12:00:00.000Z' },
        { product_id: 2, theme: '露营', text_count: 2, image_count: 0 },
      ],
      errors: [
        { row: 4, field: 'product', reason: 'plan.unknown_product', params: { value: '不存在的杯子' } },
        { row: 5, field: 'text_count', reason: 'plan.bad_number', params: { field: 'text_count', min: 1, max: 30, value: 'abc' } },
        { row: 6, field: 'publish_at', reason: 'plan.time_past', params: { value: '2020-01-01 12:00' } },
      ],
    });
    batches.create.mockResolvedValue({ id: 42 });
    wrap(<BatchCreatePage />);
    fireEvent.click(screen.getByRole('tab', { name: '导入计划' }));
    const input = (await screen.findByTestId('plan-import')).querySelector('input[type=file]') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(['产品,主题\n'], '计划.csv', { type: 'text/csv' })] } });
    await waitFor(() => expect(batches.plan).toHaveBeenCalledTimes(1));
    expect((batches.plan.mock.calls[0]![0] as File).name).toBe('计划.csv');

    // jsdom is phone-sized: rows are cards.
    const errors = await screen.findByTestId('plan-errors');
    expect(screen.getByText('有问题的行（3）')).toBeTruthy();
    for (const [row, reason] of [
      ['第 4 行', '找不到产品“不存在的杯子”'],
      ['第 5 行', '“文案数”须为 1 到 30 的整数，不能是“abc”'],
      ['第 6 行', '发布时间 2020-01-01 12:00 已经过去'],
    ] as const) {
      const card = within(errors).getByText(reason).closest('.ant-card')!;
      expect(card.textContent).toContain(row);
    }
    const items = screen.getByTestId('plan-items');
    expect(screen.getByText('可创建的任务（2）')).toBeTruthy();
    expect(within(items).getByText('保温杯')).toBeTruthy();
    expect(within(items).getByText('小美的日常')).toBeTruthy();
    expect(within(items).getByText('防晒霜')).toBeTruthy();

    fireEvent.click(screen.getByTestId('plan-submit'));
    expect(await screen.findByText('有 3 行有问题，这些行会被跳过，只创建其余 2 个任务。继续吗？')).toBeTruthy();
    expect(batches.create).not.toHaveBeenCalled();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: /确\s*定/ }));
    });
    await waitFor(() => expect(batches.create).toHaveBeenCalledTimes(1));
    const [body, key] = batches.create.mock.calls[0]! as [Record<string, unknown>, string];
    expect(body.name).toMatch(/批次$/);
    expect(body.matrix).toBeUndefined();
    expect(body.items).toEqual([
      { product_id: 1, theme: '通勤', text_count: 3, image_count: 3, fission_count: 0, account_id: 3, publish_at: '2026-06-01T12:00:00.000Z' },
      { product_id: 2, theme: '露营', text_count: 2, image_count: 0 },
    ]);
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/batches/42'));
  }, 60_000);

  it('enables 创建批次 only with items', async () => {
    batches.plan.mockResolvedValue({ items: [], errors: [{ row: 2, field: 'theme', reason: 'plan.blank_theme', params: {} }] });
    wrap(<BatchCreatePage />);
    fireEvent.click(screen.getByRole('tab', { name: '导入计划' }));
    const input = (await screen.findByTestId('plan-import')).querySelector('input[type=file]') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(['x'], 'plan.xlsx')] } });
    await screen.findByText('主题不能为空');
    expect((screen.getByTestId('plan-submit') as HTMLButtonElement).disabled).toBe(true);
  });

  it('refuses another file type before sending', async () => {
    wrap(<BatchCreatePage />);
    fireEvent.click(screen.getByRole('tab', { name: '导入计划' }));
    const input = (await screen.findByTestId('plan-import')).querySelector('input[type=file]') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(['x'], 'plan.pdf')] } });
    expect((await screen.findByTestId('plan-problem')).textContent).toBe('只能导入 .csv 或 .xlsx 文件');
    expect(batches.plan).not.toHaveBeenCalled();
  });
});
