import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { BatchItemState, BatchStatus } from '../../api/types';
import { tone } from '../../components/tags';

const STATUS_COLOR: Record<BatchStatus, string> = { running: 'processing', finished: 'green', cancelled: 'default' };
const STATE_COLOR: Record<BatchItemState, string> = { waiting: 'gold', running: 'processing', done: 'green', failed: 'error', cancelled: 'default' };

export function BatchStatusTag({ status, testId }: { status: BatchStatus; testId?: string }) {
  const { t } = useTranslation();
  return (
    <Tag color={tone(STATUS_COLOR[status])} data-testid={testId}>
      {t(`batches.statuses.${status}`)}
    </Tag>
  );
}

export function ItemStateTag({ state }: { state: BatchItemState }) {
  const { t } = useTranslation();
  return (
    <Tag color={tone(STATE_COLOR[state])} data-testid="item-state">
      {t(`batches.states.${state}`)}
    </Tag>
  );
}

/** What a matrix makes: tasks (products × themes × tasks each), and, with accounts, the posting slots (accounts × days × times). */
export function matrixCounts(v: { products: number; themes: number; tasksEach: number; fission: number; accounts: number; days: number; times: number }) {
  const tasks = v.products * v.themes * v.tasksEach;
  const slots = v.accounts > 0 ? v.accounts * v.days * v.times : null;
  return { tasks, fissions: tasks * v.fission, slots, tooFewSlots: slots !== null && slots < tasks };
}

/** A posting time as HH:mm (00:00–23:59). */
export const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** A fresh Idempotency-Key (crypto.randomUUID where the browser has it). */
export function newIdempotencyKey(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const hex = Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** One CSV field, quoted when it holds a comma, a quote or a line break. */
const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** The plan template: UTF-8 with a BOM (Excel reads the Chinese headers), the headers and one example row. */
export function planTemplate(headers: string[], example: string[]): string {
  return `\uFEFF${[headers, example].map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}
