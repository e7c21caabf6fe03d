import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import type { DbOrTx } from '../../db/database.js';
import type { AuditKind } from '../../db/schema.js';
import { spreadsheetCsv } from '../../http/csv.js';
import { fail } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import * as repo from './repository.js';

/** One line of a task's trail as the module that acts describes it; who and when are added where it is written. */
export interface AuditEntry {
  kind: AuditKind;
  action: string;
  detail: Record<string, unknown>;
}

/**
 * Appends `entries` to the task's trail, in the caller's transaction so a trail never names
 * what did not happen (contract-decisions §12); `userId` null for the job's own steps.
 */
export async function recordAudit(db: DbOrTx, at: { workspaceId: number; taskId: number; userId: number | null; now: Date }, entries: AuditEntry[]): Promise<void> {
  const created_at = nowIso(at.now);
  await repo.insertAuditRows(
    db,
    entries.map((e) => ({ workspace_id: at.workspaceId, task_id: at.taskId, user_id: at.userId, kind: e.kind, action: e.action, detail: json(e.detail), created_at })),
  );
}

export async function taskAudit(ctx: AppContext, auth: AuthUser, taskId: number) {
  if (!(await repo.taskExists(ctx.db, auth.workspaceId, taskId))) throw fail('task.not_found');
  const rows = await repo.auditRows(ctx.db, auth.workspaceId, taskId);
  return { task_id: taskId, items: rows.map((r) => ({ ...r, username: r.username ?? null })) };
}

export const AUDIT_CSV_COLUMNS = ['id', 'created_at', 'kind', 'action', 'user_id', 'username', 'detail'] as const;

/** The trail as a spreadsheet: one row per entry, its detail as the JSON the API answers. */
export async function taskAuditCsv(ctx: AppContext, auth: AuthUser, taskId: number): Promise<string> {
  const { items } = await taskAudit(ctx, auth, taskId);
  return spreadsheetCsv(
    AUDIT_CSV_COLUMNS,
    items.map((i) => [i.id, i.created_at, i.kind, i.action, i.user_id, i.username, JSON.stringify(i.detail)]),
  );
}
