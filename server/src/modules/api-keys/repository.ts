import type { DbOrTx } from '../../db/database.js';
import type { NewRow, Row } from '../../db/schema.js';

/** Columns safe to hand out: never the ciphertext. */
const publicColumns = [
  'id',
  'provider',
  'key_last4',
  'created_at',
  'created_by',
  'name',
  'base_url',
  'text_model',
  'vision_model',
  'image_model',
  'image_size',
  'concurrency',
  'rpm',
  'tpm',
  'last_test',
  'options',
] as const;
export type PublicKeyRow = Pick<Row<'api_keys'>, (typeof publicColumns)[number]>;

export function listKeys(db: DbOrTx, workspaceId: number, page: { offset: number; limit: number }) {
  const base = db.selectFrom('api_keys').where('workspace_id', '=', workspaceId);
  return Promise.all([
    base.select(publicColumns).orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

export function findKey(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function findPublicKey(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('api_keys').select(publicColumns).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Every connection of a workspace, newest first (a workspace has a handful). */
export function allKeys(db: DbOrTx, workspaceId: number) {
  return db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).orderBy('id', 'desc').execute();
}

export async function insertKey(db: DbOrTx, row: NewRow<'api_keys'>) {
  return db.insertInto('api_keys').values(row).returning(publicColumns).executeTakeFirstOrThrow();
}

export function updateKey(db: DbOrTx, workspaceId: number, id: number, changes: Partial<NewRow<'api_keys'>>) {
  return db.updateTable('api_keys').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).returning(publicColumns).executeTakeFirst();
}

/**
 * Deletes a key and forgets it wherever an id is kept without a foreign key (a task's or
 * fission's image connection), so a later key can never be taken for it.
 */
export async function deleteKey(db: DbOrTx, workspaceId: number, id: number) {
  await db.updateTable('tasks').set({ image_key_id: null }).where('workspace_id', '=', workspaceId).where('image_key_id', '=', id).execute();
  await db.updateTable('fission_tasks').set({ image_key_id: null }).where('workspace_id', '=', workspaceId).where('image_key_id', '=', id).execute();
  await db.deleteFrom('api_keys').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

export function routingOf(db: DbOrTx, workspaceId: number) {
  return db.selectFrom('generation_routing').select(['text_key_id', 'vision_key_id', 'image_key_id']).where('workspace_id', '=', workspaceId).executeTakeFirst();
}

export async function saveRouting(db: DbOrTx, workspaceId: number, routing: { text_key_id: number | null; vision_key_id: number | null; image_key_id: number | null }) {
  await db
    .insertInto('generation_routing')
    .values({ workspace_id: workspaceId, ...routing })
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet(routing))
    .execute();
}
