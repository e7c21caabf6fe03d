import type { DbOrTx } from '../../db/database.js';
import type { NewRow, RowUpdate } from '../../db/schema.js';

export type PostStatus = 'scheduled' | 'due' | 'published' | 'missed' | 'cancelled';
/** Posts that hold their note and their place on the account's calendar. */
export const LIVE_STATUSES: readonly PostStatus[] = ['scheduled', 'due', 'published'];

const columns = [
  'posts.id', 'posts.workspace_id', 'posts.account_id', 'posts.status', 'posts.scheduled_at', 'posts.due_at', 'posts.missed_at', 'posts.published_at',
  'posts.cancelled_at', 'posts.note_url', 'posts.xhs_note_id', 'posts.note_key', 'posts.task_id', 'posts.strategy', 'posts.fission_id', 'posts.fission_seq',
  'posts.product_id', 'posts.angle_label', 'posts.title', 'posts.cover_title', 'posts.body', 'posts.tags', 'posts.warnings', 'posts.created_by',
  'posts.created_at', 'posts.updated_at',
] as const;

export interface PostFilter {
  from?: string | undefined;
  to?: string | undefined;
  accountId?: number | undefined;
  status?: PostStatus | undefined;
}

function filtered(db: DbOrTx, workspaceId: number, filter: PostFilter) {
  let base = db.selectFrom('posts').where('posts.workspace_id', '=', workspaceId);
  if (filter.from) base = base.where('posts.scheduled_at', '>=', filter.from);
  if (filter.to) base = base.where('posts.scheduled_at', '<', filter.to);
  if (filter.accountId) base = base.where('posts.account_id', '=', filter.accountId);
  if (filter.status) base = base.where('posts.status', '=', filter.status);
  return base;
}

export function listPosts(db: DbOrTx, workspaceId: number, filter: PostFilter, page: { offset: number; limit: number }) {
  const base = filtered(db, workspaceId, filter);
  return Promise.all([
    base.innerJoin('accounts', 'accounts.id', 'posts.account_id').select([...columns, 'accounts.name as account_name']).orderBy('posts.scheduled_at').orderBy('posts.id').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

export function findPost(db: DbOrTx, workspaceId: number, id: number) {
  return db
    .selectFrom('posts')
    .innerJoin('accounts', 'accounts.id', 'posts.account_id')
    .select([...columns, 'accounts.name as account_name'])
    .where('posts.workspace_id', '=', workspaceId)
    .where('posts.id', '=', id)
    .executeTakeFirst();
}

export function insertPost(db: DbOrTx, row: NewRow<'posts'>) {
  return db.insertInto('posts').values(row).returning('id').executeTakeFirstOrThrow();
}

export async function insertImages(db: DbOrTx, rows: NewRow<'post_images'>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('post_images').values(rows).execute();
}

export function imagesOf(db: DbOrTx, postIds: readonly number[]) {
  if (postIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('post_images').select(['post_id', 'position', 'role', 'file_key', 'ai_generated']).where('post_id', 'in', postIds).orderBy('post_id').orderBy('position').execute();
}

/** Changes the post only while it is in one of `from`; false when it was not (moved meanwhile). */
export async function updatePostIf(db: DbOrTx, workspaceId: number, id: number, from: readonly PostStatus[], changes: RowUpdate<'posts'>): Promise<boolean> {
  const result = await db.updateTable('posts').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The account's live posts scheduled between the two instants (its neighbours for cap and gap). */
export function accountPostsBetween(db: DbOrTx, workspaceId: number, accountId: number, fromIso: string, toIso: string) {
  return db
    .selectFrom('posts')
    .select(['id', 'scheduled_at'])
    .where('workspace_id', '=', workspaceId)
    .where('account_id', '=', accountId)
    .where('status', 'in', LIVE_STATUSES)
    .where('scheduled_at', '>=', fromIso)
    .where('scheduled_at', '<=', toIso)
    .orderBy('scheduled_at')
    .execute();
}

/** The live post that carries the note, if any. */
export function livePostOfNote(db: DbOrTx, workspaceId: number, noteKey: string) {
  return db
    .selectFrom('posts')
    .innerJoin('accounts', 'accounts.id', 'posts.account_id')
    .select(['posts.id', 'accounts.name as account_name'])
    .where('posts.workspace_id', '=', workspaceId)
    .where('posts.note_key', '=', noteKey)
    .where('posts.status', 'in', LIVE_STATUSES)
    .executeTakeFirst();
}

/** The workspace's live posts scheduled since `sinceIso`, with their text: what a new note is compared with. */
export function recentPostTexts(db: DbOrTx, workspaceId: number, sinceIso: string) {
  return db
    .selectFrom('posts')
    .select(['id', 'title', 'body'])
    .where('workspace_id', '=', workspaceId)
    .where('status', 'in', LIVE_STATUSES)
    .where('scheduled_at', '>=', sinceIso)
    .execute();
}

/** Posts across workspaces in `status` whose moment has come (the sweep serves every workspace). */
export function postsToMove(db: DbOrTx, status: PostStatus, scheduledBy: string, limit: number) {
  return db
    .selectFrom('posts')
    .select(['id', 'workspace_id'])
    .where('status', '=', status)
    .where('scheduled_at', '<=', scheduledBy)
    .orderBy('scheduled_at')
    .limit(limit)
    .execute();
}

export function latestMetrics(db: DbOrTx, postIds: readonly number[]) {
  if (postIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('post_metrics')
    .select(['id', 'post_id', 'captured_at', 'views', 'likes', 'collects', 'comments', 'shares', 'follows', 'source'])
    .where('post_id', 'in', postIds)
    .orderBy('post_id')
    .orderBy('captured_at', 'desc')
    .execute();
}

export function fissionSourceTask(db: DbOrTx, workspaceId: number, fissionId: number) {
  return db
    .selectFrom('fission_tasks')
    .select('source_task_id')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', fissionId)
    .executeTakeFirst()
    .then((r) => r?.source_task_id ?? null);
}
