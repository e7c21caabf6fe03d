import type { DbOrTx } from '../../db/database.js';
import type { NewRow } from '../../db/schema.js';

export async function insertAuditRows(db: DbOrTx, rows: Array<NewRow<'task_audit'>>): Promise<void> {
  if (rows.length > 0) await db.insertInto('task_audit').values(rows).execute();
}

export function taskExists(db: DbOrTx, workspaceId: number, taskId: number) {
  return db.selectFrom('tasks').select('id').where('workspace_id', '=', workspaceId).where('id', '=', taskId).executeTakeFirst();
}

/**
 * The task's trail, oldest first: by when each step happened, then in the order it was written.
 * Steps of one task that run at once (a set's images) stamp their time before they commit, so
 * the order of ids alone can put a step a millisecond older after a newer one.
 */
export function auditRows(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('task_audit')
    .leftJoin('users', 'users.id', 'task_audit.user_id')
    .select(['task_audit.id', 'task_audit.created_at', 'task_audit.kind', 'task_audit.action', 'task_audit.user_id', 'users.username', 'task_audit.detail'])
    .where('task_audit.workspace_id', '=', workspaceId)
    .where('task_audit.task_id', '=', taskId)
    .orderBy('task_audit.created_at')
    .orderBy('task_audit.id')
    .execute();
}
