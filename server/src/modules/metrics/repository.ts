import type { DbOrTx } from '../../db/database.js';
import type { NewRow } from '../../db/schema.js';

const snapshotColumns = ['id', 'post_id', 'captured_at', 'views', 'likes', 'collects', 'comments', 'shares', 'follows', 'source'] as const;

export function findSnapshotAt(db: DbOrTx, workspaceId: number, postId: number, capturedAt: string) {
  return db.selectFrom('post_metrics').select(snapshotColumns).where('workspace_id', '=', workspaceId).where('post_id', '=', postId).where('captured_at', '=', capturedAt).executeTakeFirst();
}

export function latestSnapshot(db: DbOrTx, workspaceId: number, postId: number) {
  return db.selectFrom('post_metrics').select(snapshotColumns).where('workspace_id', '=', workspaceId).where('post_id', '=', postId).orderBy('captured_at', 'desc').limit(1).executeTakeFirst();
}

export function insertSnapshot(db: DbOrTx, row: NewRow<'post_metrics'>) {
  return db.insertInto('post_metrics').values(row).returning(snapshotColumns).executeTakeFirstOrThrow();
}

export function updateSnapshot(db: DbOrTx, workspaceId: number, id: number, changes: Partial<Pick<NewRow<'post_metrics'>, 'views' | 'likes' | 'collects' | 'comments' | 'shares' | 'follows' | 'source'>>) {
  return db.updateTable('post_metrics').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).returning(snapshotColumns).executeTakeFirstOrThrow();
}

/** A published post with what its performance signal names. */
export function publishedPost(db: DbOrTx, workspaceId: number, postId: number) {
  return db
    .selectFrom('posts')
    .leftJoin('fission_tasks', 'fission_tasks.id', 'posts.fission_id')
    .select(['posts.id', 'posts.status', 'posts.account_id', 'posts.product_id', 'posts.task_id', 'posts.strategy', 'posts.angle_label', 'fission_tasks.source_task_id'])
    .where('posts.workspace_id', '=', workspaceId)
    .where('posts.id', '=', postId)
    .executeTakeFirst();
}

/** The latest snapshot of each published post of the workspace (optionally of one account), with the post's facts. */
export async function latestOfPublished(db: DbOrTx, workspaceId: number, filter: { accountId?: number | undefined; productId?: number | undefined; from?: string | undefined; to?: string | undefined } = {}) {
  let posts = db
    .selectFrom('posts')
    .select(['id', 'account_id', 'product_id', 'strategy', 'angle_label', 'published_at'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'published');
  if (filter.accountId) posts = posts.where('account_id', '=', filter.accountId);
  if (filter.productId) posts = posts.where('product_id', '=', filter.productId);
  if (filter.from) posts = posts.where('published_at', '>=', filter.from);
  if (filter.to) posts = posts.where('published_at', '<', filter.to);
  const rows = await posts.execute();
  if (rows.length === 0) return [];
  const snapshots = await db
    .selectFrom('post_metrics')
    .select(snapshotColumns)
    .where('workspace_id', '=', workspaceId)
    .where('post_id', 'in', rows.map((r) => r.id))
    .orderBy('post_id')
    .orderBy('captured_at', 'desc')
    .execute();
  const latest = new Map<number, (typeof snapshots)[number]>();
  for (const s of snapshots) if (!latest.has(s.post_id)) latest.set(s.post_id, s);
  return rows.map((post) => ({ post, snapshot: latest.get(post.id) ?? null }));
}

/** Published posts an import row may name: by note id, by exact title. */
export function publishedCandidates(db: DbOrTx, workspaceId: number) {
  return db
    .selectFrom('posts')
    .innerJoin('accounts', 'accounts.id', 'posts.account_id')
    .select(['posts.id', 'posts.account_id', 'posts.title', 'posts.xhs_note_id', 'posts.note_url', 'posts.published_at', 'accounts.timezone'])
    .where('posts.workspace_id', '=', workspaceId)
    .where('posts.status', '=', 'published')
    .execute();
}

export async function setNoteId(db: DbOrTx, workspaceId: number, postId: number, noteId: string): Promise<void> {
  await db.updateTable('posts').set({ xhs_note_id: noteId }).where('workspace_id', '=', workspaceId).where('id', '=', postId).where('xhs_note_id', 'is', null).execute();
}

/**
 * Posts by status in a window: a published post counts when it went out (as its engagement does),
 * one not published when it is planned for, so a note posted ahead of its slot is in the window it
 * was posted in.
 */
export function postCounts(db: DbOrTx, workspaceId: number, filter: { accountId?: number | undefined; productId?: number | undefined; from?: string | undefined; to?: string | undefined }) {
  let q = db.selectFrom('posts').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).where('workspace_id', '=', workspaceId);
  if (filter.accountId) q = q.where('account_id', '=', filter.accountId);
  if (filter.productId) q = q.where('product_id', '=', filter.productId);
  if (filter.from) q = q.where((eb) => eb(eb.fn.coalesce('published_at', 'scheduled_at'), '>=', filter.from!));
  if (filter.to) q = q.where((eb) => eb(eb.fn.coalesce('published_at', 'scheduled_at'), '<', filter.to!));
  return q.groupBy('status').execute();
}

export function labels(db: DbOrTx, workspaceId: number) {
  return Promise.all([
    db.selectFrom('products').select(['id', 'name']).where('workspace_id', '=', workspaceId).execute(),
    db.selectFrom('accounts').select(['id', 'name']).where('workspace_id', '=', workspaceId).execute(),
  ]);
}

/** Tasks of the window (created in it), with when they were submitted and decided. */
export function tasksInWindow(db: DbOrTx, workspaceId: number, filter: { productId?: number | undefined; from?: string | undefined; to?: string | undefined }) {
  let q = db.selectFrom('tasks').select(['id', 'status', 'submitted_at', 'reviewed_at']).where('workspace_id', '=', workspaceId);
  if (filter.productId) q = q.where('product_id', '=', filter.productId);
  if (filter.from) q = q.where('created_at', '>=', filter.from);
  if (filter.to) q = q.where('created_at', '<', filter.to);
  return q.execute();
}

/** Paid provider calls of the window from the ledger: all of them, and those that made an image. */
export function ledgerCounts(db: DbOrTx, workspaceId: number, filter: { from?: string | undefined; to?: string | undefined }) {
  let q = db
    .selectFrom('provider_calls')
    .select((eb) => [eb.fn.countAll<number>().as('calls'), eb.fn.count<number>('file_key').as('images')])
    .where('workspace_id', '=', workspaceId);
  if (filter.from) q = q.where('created_at', '>=', filter.from);
  if (filter.to) q = q.where('created_at', '<', filter.to);
  return q.executeTakeFirstOrThrow().then((r) => ({ calls: Number(r.calls), images: Number(r.images) }));
}
