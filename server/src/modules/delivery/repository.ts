import type { DbOrTx } from '../../db/database.js';
import type { NewRow, RowUpdate } from '../../db/schema.js';
import type { StaleWindow } from '../../jobs/types.js';

export function findTask(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('tasks')
    .innerJoin('products', 'products.id', 'tasks.product_id')
    .select(['tasks.id', 'tasks.status', 'tasks.theme', 'products.name as product_name'])
    .where('tasks.workspace_id', '=', workspaceId)
    .where('tasks.id', '=', taskId)
    .executeTakeFirst();
}

const textColumns = [
  'id',
  'strategy',
  'angle_label',
  'title',
  'content',
  'tags',
  'score_total',
  'is_selected',
  'banned_word_status',
  'banned_hits',
] as const;

export function taskTexts(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('text_candidates')
    .select(textColumns)
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .orderBy('id')
    .execute();
}

export function textsByIds(db: DbOrTx, workspaceId: number, taskId: number, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('text_candidates')
    .select(textColumns)
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .where('id', 'in', ids)
    .execute();
}

export function taskImages(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('image_candidates')
    .select(['id', 'strategy', 'role', 'seq', 'file_key', 'mime', 'is_selected', 'generation'])
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    // Only finished images: one being made or failed has no file.
    .where('status', '=', 'done')
    .where('file_key', 'is not', null)
    .orderBy('id')
    .$narrowType<{ file_key: string; mime: string }>()
    .execute();
}

export function insertPackage(db: DbOrTx, row: NewRow<'delivery_packages'>) {
  return db.insertInto('delivery_packages').values(row).returning('id').executeTakeFirstOrThrow();
}

/** The notes a package packs, in folder order. */
export async function insertPackageNotes(db: DbOrTx, workspaceId: number, packageId: number, textIds: number[]) {
  await db
    .insertInto('package_notes')
    .values(textIds.map((text_candidate_id, position) => ({ workspace_id: workspaceId, package_id: packageId, text_candidate_id, position })))
    .execute();
}

/** The notes of each of `packageIds`, in folder order. */
export async function packageNoteIds(db: DbOrTx, workspaceId: number, packageIds: number[]): Promise<Map<number, number[]>> {
  const notes = new Map<number, number[]>(packageIds.map((id) => [id, []]));
  if (packageIds.length === 0) return notes;
  const rows = await db
    .selectFrom('package_notes')
    .select(['package_id', 'text_candidate_id'])
    .where('workspace_id', '=', workspaceId)
    .where('package_id', 'in', packageIds)
    .orderBy('package_id')
    .orderBy('position')
    .execute();
  for (const row of rows) notes.get(row.package_id)?.push(row.text_candidate_id);
  return notes;
}

export function findPackage(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('delivery_packages').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** For the build job, which receives only the id; the row names its workspace. */
export function findPackageForBuild(db: DbOrTx, id: number) {
  return db.selectFrom('delivery_packages').selectAll().where('id', '=', id).executeTakeFirst();
}

export function taskPackages(db: DbOrTx, workspaceId: number, taskId: number, page: { offset: number; limit: number }) {
  const base = db.selectFrom('delivery_packages').where('workspace_id', '=', workspaceId).where('task_id', '=', taskId);
  return Promise.all([
    base.selectAll().orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

/**
 * Moves a package on only from the status the caller saw, so a late or repeated build attempt
 * cannot overwrite a finished one, and two clicks on "downloaded" write once.
 * Returns whether this call made the change.
 */
export async function transition(
  db: DbOrTx,
  workspaceId: number,
  id: number,
  from: 'pending' | 'ready',
  change: RowUpdate<'delivery_packages'> & { updated_at: string },
): Promise<boolean> {
  const result = await db
    .updateTable('delivery_packages')
    .set(change)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertDownloadToken(db: DbOrTx, row: NewRow<'one_time_tokens'>) {
  await db.insertInto('one_time_tokens').values(row).execute();
}

export async function purgeDownloadTokens(db: DbOrTx, expiredBefore: string) {
  await db.deleteFrom('one_time_tokens').where('kind', '=', 'download').where('expires_at', '<', expiredBefore).execute();
}

/**
 * Consumes a download token in one conditional UPDATE: of any number of concurrent requests
 * with the same token exactly one sees a row come back.
 */
export function consumeDownloadToken(db: DbOrTx, tokenHash: string, packageId: number, now: string) {
  return db
    .updateTable('one_time_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', 'download')
    .where('subject_id', '=', packageId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['workspace_id', 'user_id', 'token_version', 'session_version'])
    .executeTakeFirst();
}

/** The stale-work sweeper's rule for packages, across workspaces: still pending, untouched since `staleBeforeIso`. */
export async function findStalePackages(db: DbOrTx, window: StaleWindow): Promise<number[]> {
  const rows = await db
    .selectFrom('delivery_packages')
    .select('id')
    .where('updated_at', '<', window.staleBeforeIso)
    .where('status', '=', 'pending')
    .orderBy('id')
    .limit(window.limit)
    .execute();
  return rows.map((r) => r.id);
}
