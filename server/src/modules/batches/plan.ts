import { zonedInstant } from '../../content/publishing.js';
import { fail } from '../../http/errors.js';
import type { ErrorReason } from '../../http/reasons.js';
import { cellText, normaliseHeader, readCells, type Cell } from '../../spreadsheets/cells.js';

/** One task of a batch as asked for (the API's items, a matrix expanded, a plan file's rows). */
export interface BatchItemInput {
  product_id: number;
  theme: string;
  text_count: number;
  image_count: number;
  fission_count?: number | undefined;
  account_id?: number | undefined;
  publish_at?: string | undefined;
}

/** The console's form: products × themes × tasks_each, spread over accounts and days. */
export interface BatchMatrix {
  product_ids: number[];
  themes: string[];
  tasks_each?: number | undefined;
  text_count: number;
  image_count: number;
  fission_count?: number | undefined;
  account_ids?: number[] | undefined;
  start_date?: string | undefined;
  days?: number | undefined;
  post_times?: string[] | undefined;
}

export const MAX_BATCH_ITEMS = 500;
export const ITEM_LIMITS = {
  text_count: { min: 1, max: 30, default: 3 },
  image_count: { min: 0, max: 9, default: 3 },
  fission_count: { min: 0, max: 20, default: 0 },
} as const;
const DEFAULT_POST_TIMES = ['12:00'];

export interface PlanAccount {
  id: number;
  name: string;
  timezone: string;
}

/**
 * A matrix as items. Consecutive items cycle through the products, then the themes, so a day's
 * slots mix products rather than giving one product a whole day; with a start date, item i takes
 * slot i, slots ordered by day, then time, then account (each account in its own time zone).
 */
export function expandMatrix(matrix: BatchMatrix, accounts: PlanAccount[]): BatchItemInput[] {
  const themes = matrix.themes.map((t) => t.trim()).filter((t) => t !== '');
  if (themes.length === 0) throw fail('validation.blank', { field: 'body.matrix.themes' });
  const each = matrix.tasks_each ?? 1;
  const total = matrix.product_ids.length * themes.length * each;
  if (total > MAX_BATCH_ITEMS) throw fail('batch.too_many_items', { max: MAX_BATCH_ITEMS });
  const items: BatchItemInput[] = [];
  for (let k = 0; k < each; k++) {
    for (const theme of themes) {
      for (const product_id of matrix.product_ids) {
        items.push({ product_id, theme, text_count: matrix.text_count, image_count: matrix.image_count, fission_count: matrix.fission_count });
      }
    }
  }
  if (matrix.start_date !== undefined) {
    if (accounts.length === 0) throw fail('plan.time_without_account');
    const days = matrix.days ?? 7;
    const times = [...new Set(matrix.post_times?.length ? matrix.post_times : DEFAULT_POST_TIMES)].sort();
    const slots: Array<{ account: PlanAccount; at: Date }> = [];
    for (let d = 0; d < days; d++) {
      const day = new Date(Date.parse(`${matrix.start_date}T00:00:00Z`) + d * 86_400_000).toISOString().slice(0, 10);
      for (const time of times) for (const account of accounts) slots.push({ account, at: zonedInstant(day, time, account.timezone) });
    }
    if (slots.length < items.length) throw fail('batch.schedule_too_small', { items: items.length, slots: slots.length });
    items.forEach((item, i) => {
      item.account_id = slots[i]!.account.id;
      item.publish_at = slots[i]!.at.toISOString();
    });
  } else if (accounts.length > 0) {
    items.forEach((item, i) => (item.account_id = accounts[i % accounts.length]!.id));
  }
  return items;
}

export interface PlanRowError {
  /** The row's number as the spreadsheet shows it (1-based, header included). */
  row: number;
  field: string;
  reason: ErrorReason;
  params: Record<string, string | number>;
}

type Column = 'product' | 'theme' | 'text_count' | 'image_count' | 'fission_count' | 'account' | 'publish_at';
const HEADERS: Record<Column, readonly string[]> = {
  product: ['产品', '产品名称', '商品', 'product', 'product_id'],
  theme: ['主题', '选题', 'theme'],
  text_count: ['文案数', '篇数', '文案数量', 'text_count'],
  image_count: ['图片数', '每套图片数', '配图数', 'image_count'],
  fission_count: ['裂变数', '裂变篇数', 'fission_count'],
  account: ['账号', '发布账号', 'account', 'account_id'],
  publish_at: ['发布时间', '计划发布时间', 'publish_at'],
};
const HEADER_INDEX = new Map<string, Column>(Object.entries(HEADERS).flatMap(([column, names]) => names.map((n) => [normaliseHeader(n), column as Column])));

/** Products and accounts a plan may name, by name or by number; accounts active only. */
export interface PlanLookups {
  products: Array<{ id: number; name: string }>;
  accounts: PlanAccount[];
  now: Date;
}

/**
 * A batch plan file (CSV or XLSX, one task per row) read into items, every row that cannot be an
 * item listed with its reason: a plan of two hundred rows with three mistakes is fixed in three
 * places, not re-sent until it passes.
 */
export async function readPlan(file: Buffer, lookups: PlanLookups): Promise<{ items: BatchItemInput[]; errors: PlanRowError[] }> {
  const cells = await readCells(file, 'batch.plan_unreadable');
  let headerAt = -1;
  let columns = new Map<Column, number>();
  for (let i = 0; i < Math.min(10, cells.length); i++) {
    const found = new Map<Column, number>();
    cells[i]!.forEach((cell, col) => {
      const column = HEADER_INDEX.get(normaliseHeader(cellText(cell)));
      if (column && !found.has(column)) found.set(column, col);
    });
    if (found.has('product') && found.has('theme')) {
      headerAt = i;
      columns = found;
      break;
    }
  }
  if (headerAt < 0) throw fail('batch.plan_no_header');
  const byName = <T extends { id: number; name: string }>(list: T[], value: string) =>
    list.find((x) => x.name.trim() === value) ?? (/^\d+$/.test(value) ? list.find((x) => x.id === Number(value)) : undefined);
  const items: BatchItemInput[] = [];
  const errors: PlanRowError[] = [];
  cells.slice(headerAt + 1).forEach((row, i) => {
    if (row.every((c) => cellText(c) === '')) return;
    const rowNumber = headerAt + 2 + i;
    const at = (column: Column): Cell => (columns.has(column) ? row[columns.get(column)!] : undefined);
    const problems: PlanRowError[] = [];
    const problem = (field: Column, reason: ErrorReason, params: Record<string, string | number> = {}) => problems.push({ row: rowNumber, field, reason, params });

    const productText = cellText(at('product'));
    const product = byName(lookups.products, productText);
    if (!product) problem('product', 'plan.unknown_product', { value: productText });
    const theme = cellText(at('theme'));
    if (!theme) problem('theme', 'plan.blank_theme');
    const number = (column: 'text_count' | 'image_count' | 'fission_count', label: string) => {
      const limits = ITEM_LIMITS[column];
      const text = cellText(at(column));
      if (text === '') return limits.default;
      const n = Number(text);
      if (!Number.isInteger(n) || n < limits.min || n > limits.max) {
        problem(column, 'plan.bad_number', { field: label, value: text, min: limits.min, max: limits.max });
        return limits.default;
      }
      return n;
    };
    const text_count = number('text_count', '文案数');
    const image_count = number('image_count', '图片数');
    const fission_count = number('fission_count', '裂变数');
    const accountText = cellText(at('account'));
    const account = accountText ? byName(lookups.accounts, accountText) : undefined;
    if (accountText && !account) problem('account', 'plan.unknown_account', { value: accountText });
    const publish_at = publishTime(at('publish_at'), account, accountText !== '', lookups.now, problem);

    if (problems.length > 0) {
      errors.push(...problems);
      return;
    }
    items.push({ product_id: product!.id, theme, text_count, image_count, fission_count, account_id: account?.id, publish_at });
  });
  if (items.length === 0 && errors.length === 0) throw fail('batch.plan_empty');
  if (items.length > MAX_BATCH_ITEMS) throw fail('batch.too_many_items', { max: MAX_BATCH_ITEMS });
  return { items, errors };
}

/**
 * A publishing time in the account's zone: "2026-12-01 12:00" (or with a T, or a /), or an Excel
 * date cell, which exceljs gives as the wall-clock time in UTC.
 */
function publishTime(
  cell: Cell,
  account: PlanAccount | undefined,
  accountNamed: boolean,
  now: Date,
  problem: (field: Column, reason: ErrorReason, params?: Record<string, string | number>) => void,
): string | undefined {
  const text = cell instanceof Date ? cell.toISOString().slice(0, 16).replace('T', ' ') : cellText(cell);
  if (text === '') return undefined;
  const match = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})[ T](\d{1,2}):(\d{2})$/.exec(text);
  if (!match) {
    problem('publish_at', 'plan.bad_time', { value: text });
    return undefined;
  }
  if (!account) {
    if (!accountNamed) problem('publish_at', 'plan.time_without_account');
    return undefined;
  }
  const [, y, mo, d, h, mi] = match;
  const day = `${y}-${mo!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
  const realDay = new Date(`${day}T00:00:00Z`).getTime() >= 0 && new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;
  if (!realDay || Number(h) > 23 || Number(mi) > 59) {
    problem('publish_at', 'plan.bad_time', { value: text });
    return undefined;
  }
  const when = zonedInstant(day, `${h!.padStart(2, '0')}:${mi}`, account.timezone);
  if (when.getTime() <= now.getTime()) {
    problem('publish_at', 'plan.time_past', { value: text });
    return undefined;
  }
  return when.toISOString();
}
