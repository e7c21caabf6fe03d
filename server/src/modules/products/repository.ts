import type { DbOrTx, Dialect } from '../../db/database.js';
import { forUpdate } from '../../db/database.js';
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
  'appearance',
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

/** The banned words attached to each of `productIds`, ascending. */
export async function attachedBannedWords(db: DbOrTx, workspaceId: number, productIds: number[]): Promise<Map<number, number[]>> {
  const attached = new Map<number, number[]>(productIds.map((id) => [id, []]));
  if (productIds.length === 0) return attached;
  const rows = await db
    .selectFrom('product_banned_words')
    .select(['product_id', 'banned_word_id'])
    .where('workspace_id', '=', workspaceId)
    .where('product_id', 'in', productIds)
    .orderBy('banned_word_id')
    .execute();
  for (const row of rows) attached.get(row.product_id)?.push(row.banned_word_id);
  return attached;
}

/** Makes `wordIds` the product's attached banned words. */
export async function setAttachedBannedWords(db: DbOrTx, workspaceId: number, productId: number, wordIds: number[]) {
  await db.deleteFrom('product_banned_words').where('workspace_id', '=', workspaceId).where('product_id', '=', productId).execute();
  if (wordIds.length === 0) return;
  await db
    .insertInto('product_banned_words')
    .values(wordIds.map((banned_word_id) => ({ workspace_id: workspaceId, product_id: productId, banned_word_id })))
    .execute();
}

/**
 * Words attached to some product of the workspace but not to `productId`: they do not apply to
 * its texts. A word attached to no product applies to every product.
 */
export async function wordsOfOtherProductsOnly(db: DbOrTx, workspaceId: number, productId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('product_banned_words')
    .select('banned_word_id')
    .distinct()
    .where('workspace_id', '=', workspaceId)
    .where('banned_word_id', 'not in', (eb) =>
      eb.selectFrom('product_banned_words').select('banned_word_id').where('workspace_id', '=', workspaceId).where('product_id', '=', productId),
    )
    .execute();
  return rows.map((r) => r.banned_word_id);
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
