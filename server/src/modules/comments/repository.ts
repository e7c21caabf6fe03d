import type { DbOrTx } from '../../db/database.js';
import type { NewRow } from '../../db/schema.js';

const columns = [
  'review_comments.id', 'review_comments.task_id', 'review_comments.author_id', 'review_comments.anchor_kind', 'review_comments.candidate_id', 'review_comments.line',
  'review_comments.quote', 'review_comments.body', 'review_comments.resolved_at', 'review_comments.resolved_by', 'review_comments.created_at',
] as const;

export function listComments(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('review_comments')
    .innerJoin('users', 'users.id', 'review_comments.author_id')
    .select([...columns, 'users.username as author_name'])
    .where('review_comments.workspace_id', '=', workspaceId)
    .where('review_comments.task_id', '=', taskId)
    .orderBy('review_comments.id')
    .execute();
}

export function findComment(db: DbOrTx, workspaceId: number, taskId: number, id: number) {
  return db
    .selectFrom('review_comments')
    .innerJoin('users', 'users.id', 'review_comments.author_id')
    .select([...columns, 'users.username as author_name'])
    .where('review_comments.workspace_id', '=', workspaceId)
    .where('review_comments.task_id', '=', taskId)
    .where('review_comments.id', '=', id)
    .executeTakeFirst();
}

export function insertComment(db: DbOrTx, row: NewRow<'review_comments'>) {
  return db.insertInto('review_comments').values(row).returning('id').executeTakeFirstOrThrow();
}

export async function setResolved(db: DbOrTx, workspaceId: number, id: number, resolved: { at: string; by: number } | null): Promise<void> {
  await db
    .updateTable('review_comments')
    .set({ resolved_at: resolved?.at ?? null, resolved_by: resolved?.by ?? null })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

export async function deleteComment(db: DbOrTx, workspaceId: number, id: number): Promise<void> {
  await db.deleteFrom('review_comments').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

export function taskExists(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('tasks').select('id').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function textOfTask(db: DbOrTx, workspaceId: number, taskId: number, id: number) {
  return db.selectFrom('text_candidates').select(['id', 'content']).where('workspace_id', '=', workspaceId).where('task_id', '=', taskId).where('id', '=', id).executeTakeFirst();
}

export function imageOfTask(db: DbOrTx, workspaceId: number, taskId: number, id: number) {
  return db.selectFrom('image_candidates').select(['id']).where('workspace_id', '=', workspaceId).where('task_id', '=', taskId).where('id', '=', id).executeTakeFirst();
}
