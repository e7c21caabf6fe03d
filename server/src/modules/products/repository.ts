import type { DbOrTx, Dialect } from '../../db/database.js';
import { forUpdate } from '../../db/database.js';
import { json } from '../../db/codec.js';
import { containsText } from '../../db/search.js';
import type { NewRow, RowUpdate } from '../../db/schema.js';

const productColumns = [
  'id',
  'workspace_id',
  'name',
  'category',
  'source',
  'selling_points',
  'style_tone',
  'text_angles',
  'custom_prompt',
  'banned_word_ids',
  'created_at',
  'updated_at',
] as const;

export function listProducts(db: DbOrTx, workspaceId: number, q: string | undefined, page: { offset: number; limit: number }) {
  let base = db.selectFrom('products').where('workspace_id', '=', workspaceId);
  if (q) base = base.where(containsText('name', q));
  return Promise.all([
    base.select(productColumns).orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

export function allProducts(db: DbOrTx, workspaceId: number) {
  return db.selectFrom('products').select(productColumns).where('workspace_id', '=', workspaceId).orderBy('id').execute();
}

export function findProduct(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('products').select(productColumns).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Locks the product row (PostgreSQL) so concurrent image writes of one product serialise. */
export function lockProduct(db: DbOrTx, dialect: Dialect, workspaceId: number, id: number) {
  return forUpdate(db.selectFrom('products').select('id').where('workspace_id', '=', workspaceId).where('id', '=', id), dialect).executeTakeFirst();
}

export function insertProduct(db: DbOrTx, row: NewRow<'products'>) {
  return db.insertInto('products').values(row).returning(productColumns).executeTakeFirstOrThrow();
}

export function updateProduct(db: DbOrTx, workspaceId: number, id: number, changes: RowUpdate<'products'>) {
  return db.updateTable('products').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).returning(productColumns).executeTakeFirst();
}

export async function deleteProduct(db: DbOrTx, workspaceId: number, id: number) {
  await db.deleteFrom('products').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

export function countTasksOfProduct(db: DbOrTx, workspaceId: number, productId: number) {
  return db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('product_id', '=', productId)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

/** Every product of the workspace with the banned words attached to it. */
export function bannedWordAttachments(db: DbOrTx, workspaceId: number) {
  return db.selectFrom('products').select(['id', 'banned_word_ids']).where('workspace_id', '=', workspaceId).execute();
}

/** Drops a deleted banned word's id from every product of the workspace that lists it. */
export async function removeBannedWordFromProducts(db: DbOrTx, workspaceId: number, wordId: number, now: string) {
  const rows = await bannedWordAttachments(db, workspaceId);
  for (const row of rows) {
    if (!row.banned_word_ids.includes(wordId)) continue;
    await db
      .updateTable('products')
      .set({ banned_word_ids: json(row.banned_word_ids.filter((id) => id !== wordId)), updated_at: now })
      .where('id', '=', row.id)
      .execute();
  }
}

// ---- product images

const imageColumns = ['id', 'product_id', 'file_key', 'thumb_key', 'mime', 'width', 'height', 'scene', 'is_primary', 'created_at'] as const;

export function listImages(db: DbOrTx, workspaceId: number, productId: number) {
  return db
    .selectFrom('product_images')
    .select(imageColumns)
    .where('workspace_id', '=', workspaceId)
    .where('product_id', '=', productId)
    .orderBy('id')
    .execute();
}

export function listImagesOfProducts(db: DbOrTx, workspaceId: number, productIds: number[]) {
  if (productIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('product_images')
    .select(imageColumns)
    .where('workspace_id', '=', workspaceId)
    .where('product_id', 'in', productIds)
    .orderBy('id')
    .execute();
}

export function findImage(db: DbOrTx, workspaceId: number, productId: number, imageId: number) {
  return db
    .selectFrom('product_images')
    .select(imageColumns)
    .where('workspace_id', '=', workspaceId)
    .where('product_id', '=', productId)
    .where('id', '=', imageId)
    .executeTakeFirst();
}

export function insertImage(db: DbOrTx, row: NewRow<'product_images'>) {
  return db.insertInto('product_images').values(row).returning(imageColumns).executeTakeFirstOrThrow();
}

export async function updateImageScene(db: DbOrTx, workspaceId: number, imageId: number, scene: string) {
  await db.updateTable('product_images').set({ scene }).where('workspace_id', '=', workspaceId).where('id', '=', imageId).execute();
}

/** Clears the old primary first: the partial unique index allows one primary per product. */
export async function setPrimaryImage(db: DbOrTx, workspaceId: number, productId: number, imageId: number) {
  await db.updateTable('product_images').set({ is_primary: false }).where('workspace_id', '=', workspaceId).where('product_id', '=', productId).where('is_primary', '=', true).execute();
  await db.updateTable('product_images').set({ is_primary: true }).where('id', '=', imageId).execute();
}

export async function deleteImage(db: DbOrTx, workspaceId: number, imageId: number) {
  await db.deleteFrom('product_images').where('workspace_id', '=', workspaceId).where('id', '=', imageId).execute();
}

/** Which of `ids` are banned words of the workspace (a product may list only those; the banned-words module owns the table). */
export async function existingBannedWordIds(db: DbOrTx, workspaceId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('banned_words').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}
