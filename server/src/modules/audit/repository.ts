import type { DbOrTx } from '../../db/database.js';
import type { NewRow } from '../../db/schema.js';

export async function insertAuditRows(db: DbOrTx, rows: Array<NewRow<'task_audit'>>): Promise<void> {
  if (rows.length > 0) await db.insertInto('task_audit').values(rows).execute();
}

export function taskExists(db: DbOrTx, workspaceId: number, taskId: number) {
  return db.selectFrom('tasks').select('id').where('workspace_id', '=', workspaceId).where('id', '=', taskId).executeTakeFirst();
}

/** The task's trail in the order it was written (ids grow with commits of one task: its row lock orders them). */
export function auditRows(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('task_audit')
    .leftJoin('users', 'users.id', 'task_audit.user_id')
    .select(['task_audit.id', 'task_audit.created_at', 'task_audit.kind', 'task_audit.action', 'task_audit.user_id', 'users.username', 'task_audit.detail'])
    .where('task_audit.workspace_id', '=', workspaceId)
    .where('task_audit.task_id', '=', taskId)
    .orderBy('task_audit.id')
    .execute();
}
