import { fail } from '../../http/errors.js';
import type { TaskCursor, TaskPageStart } from './repository.js';

/**
 * How deep `GET /tasks` pages by number: page × page_size up to this many tasks, as search APIs
 * bound from + size (Elasticsearch's max_result_window is the same 10,000). Deeper, a list is
 * read by cursor: each page answers `next_cursor`, the position of its last task, and
 * `cursor=<next_cursor>` returns the tasks after it, newest first, at the same cost however far in.
 */
export const PAGE_WINDOW = 10_000;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Opaque to clients: the last task's created_at and id, base64url. */
export function encodeCursor(task: { created_at: string; id: number }): string {
  return Buffer.from(`${task.created_at}|${task.id}`, 'utf8').toString('base64url');
}

function decodeCursor(raw: string): TaskCursor {
  const [createdAt, id, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  const n = Number(id);
  if (rest.length > 0 || !createdAt || !ISO_UTC.test(createdAt) || Number.isNaN(Date.parse(createdAt)) || !Number.isInteger(n) || n < 1 || n > 2147483647) {
    throw fail('task.cursor_invalid');
  }
  return { createdAt, id: n };
}

/** Where the requested page starts: after a cursor, or at an offset within PAGE_WINDOW. */
export function pageStart(query: { page: number; page_size: number; cursor?: string | undefined }): TaskPageStart {
  if (query.cursor !== undefined) {
    if (query.page !== 1) throw fail('task.cursor_page');
    return { after: decodeCursor(query.cursor), limit: query.page_size };
  }
  if (query.page * query.page_size > PAGE_WINDOW) {
    throw fail('task.page_window', { max: PAGE_WINDOW });
  }
  return { offset: (query.page - 1) * query.page_size, limit: query.page_size };
}

/** The cursor after a full page; null when the page was not full (nothing after it). */
export function nextCursor(items: Array<{ created_at: string; id: number }>, pageSize: number): string | null {
  const last = items.at(-1);
  return items.length === pageSize && last ? encodeCursor(last) : null;
}
