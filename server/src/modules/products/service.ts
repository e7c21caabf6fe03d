import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import type { DbOrTx } from '../../db/database.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.js';
import { fail } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { fileUrl } from '../../storage/signed-url.js';
import { cleanUploadedImage, thumbnailOf } from '../../images/clean.js';
import * as repo from './repository.js';

export interface ProductInput {
  name: string;
  category: string;
  source: 'preset' | 'custom';
  selling_points?: string[] | undefined;
  style_tone?: string | null | undefined;
  text_angles?: string[] | undefined;
  custom_prompt?: string | null | undefined;
  appearance?: string | null | undefined;
  banned_word_ids?: number[] | undefined;
}

/** A product may hold this many images; more adds nothing to generation but storage. */
export const MAX_IMAGES_PER_PRODUCT = 20;

const cleanList = (items: string[] | undefined) => (items ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
const optionalText = (value: string | null | undefined) => (value?.trim() ? value.trim() : null);

async function productValues(ctx: AppContext, workspaceId: number, input: ProductInput) {
  const name = input.name.trim();
  const category = input.category.trim();
  if (!name) throw fail('validation.blank', { field: 'body.name' });
  if (!category) throw fail('validation.blank', { field: 'body.category' });
  const bannedIds = [...new Set(input.banned_word_ids ?? [])];
  const known = await repo.existingBannedWordIds(ctx.db, workspaceId, bannedIds);
  const unknown = bannedIds.filter((id) => !known.has(id));
  if (unknown.length > 0) throw fail('product.unknown_banned_words', { ids: unknown.map(String) });
  return {
    row: {
      name,
      category,
      source: input.source,
      selling_points: json(cleanList(input.selling_points)),
      style_tone: optionalText(input.style_tone),
      text_angles: json(cleanList(input.text_angles)),
      custom_prompt: optionalText(input.custom_prompt),
      appearance: optionalText(input.appearance),
    },
    bannedWordIds: bannedIds,
  };
}

type ProductRow = NonNullable<Awaited<ReturnType<typeof repo.findProduct>>>;

/** Products as the API shows them: with the ids of the banned words attached to each. */
async function productViews(db: DbOrTx, workspaceId: number, rows: ProductRow[]) {
  const attached = await repo.attachedBannedWords(db, workspaceId, rows.map((r) => r.id));
  return rows.map((row) => ({ ...row, banned_word_ids: attached.get(row.id) ?? [] }));
}

export async function listProducts(ctx: AppContext, auth: AuthUser, query: PageQuery & { q?: string | undefined }) {
  const q = query.q?.trim();
  const [items, total] = await repo.listProducts(ctx.db, auth.workspaceId, q || undefined, pageWindow(query));
  return pageOf(await productViews(ctx.db, auth.workspaceId, items), total, query);
}

async function requireProduct(ctx: AppContext, auth: AuthUser, id: number) {
  const product = await repo.findProduct(ctx.db, auth.workspaceId, id);
  if (!product) throw fail('product.not_found');
  return product;
}

export async function getProduct(ctx: AppContext, auth: AuthUser, id: number) {
  const [view] = await productViews(ctx.db, auth.workspaceId, [await requireProduct(ctx, auth, id)]);
  return view!;
}

export async function createProduct(ctx: AppContext, auth: AuthUser, input: ProductInput) {
  const { row, bannedWordIds } = await productValues(ctx, auth.workspaceId, input);
  const now = nowIso(ctx.clock.now());
  return ctx.db.transaction().execute(async (trx) => {
    const created = await repo.insertProduct(trx, { workspace_id: auth.workspaceId, ...row, created_at: now, updated_at: now });
    await repo.setAttachedBannedWords(trx, auth.workspaceId, created.id, bannedWordIds);
    return { ...created, banned_word_ids: bannedWordIds.sort((a, b) => a - b) };
  });
}

export async function updateProduct(ctx: AppContext, auth: AuthUser, id: number, input: ProductInput) {
  await requireProduct(ctx, auth, id);
  const { row, bannedWordIds } = await productValues(ctx, auth.workspaceId, input);
  return ctx.db.transaction().execute(async (trx) => {
    const updated = await repo.updateProduct(trx, auth.workspaceId, id, { ...row, updated_at: nowIso(ctx.clock.now()) });
    if (!updated) throw fail('product.not_found');
    await repo.setAttachedBannedWords(trx, auth.workspaceId, id, bannedWordIds);
    return { ...updated, banned_word_ids: bannedWordIds.sort((a, b) => a - b) };
  });
}

/**
 * Refused while tasks refer to the product: their candidates, reviews and packages depend on it.
 * The images' files are left to the unused-file sweep (modules/files/service.ts), like every
 * file a deleted row leaves behind.
 */
export async function deleteProduct(ctx: AppContext, auth: AuthUser, id: number) {
  await requireProduct(ctx, auth, id);
  const refused = () => fail('product.in_use');
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await repo.lockProduct(trx, ctx.dialect, auth.workspaceId, id);
      if ((await repo.countTasksOfProduct(trx, auth.workspaceId, id)) > 0) throw refused();
      await repo.deleteProduct(trx, auth.workspaceId, id);
    });
  } catch (err) {
    // A task created between the count and the delete still holds the row (foreign key).
    if (isForeignKeyViolation(err)) throw refused();
    throw err;
  }
}

// ---- product images

type ImageRow = Awaited<ReturnType<typeof repo.listImages>>[number];

export function imageView(ctx: AppContext, row: ImageRow) {
  return {
    id: row.id,
    product_id: row.product_id,
    url: fileUrl(ctx, row.file_key),
    thumb_url: row.thumb_key ? fileUrl(ctx, row.thumb_key) : null,
    scene: row.scene,
    is_primary: row.is_primary,
    mime: row.mime,
    width: row.width,
    height: row.height,
    created_at: row.created_at,
  };
}

export async function listProductImages(ctx: AppContext, auth: AuthUser, productId: number) {
  await getProduct(ctx, auth, productId);
  const rows = await repo.listImages(ctx.db, auth.workspaceId, productId);
  return rows.map((row) => imageView(ctx, row));
}

/**
 * The ids of the workspace's banned words that do not apply to a product's texts: the words
 * attached to other products and not to this one. A word attached to no product applies to
 * every product; a word attached to some is those products' extra word (`banned_word_ids`).
 */
export async function bannedWordsOfOtherProducts(db: DbOrTx, workspaceId: number, productId: number): Promise<Set<number>> {
  return new Set(await repo.wordsOfOtherProductsOnly(db, workspaceId, productId));
}

/** What kind of product it is (the legal baseline exempts medical products from the medical-claim words); null when it is gone. */
export async function productCategory(db: DbOrTx, workspaceId: number, productId: number): Promise<string | null> {
  return (await repo.findProduct(db, workspaceId, productId))?.category ?? null;
}

/** The product row as generation reads it (a background job: no caller, only the workspace of its record). */
export function productForGeneration(ctx: AppContext, workspaceId: number, productId: number) {
  return repo.findProduct(ctx.db, workspaceId, productId);
}

/** The product images as rows, for the generation pipeline (see pickProductImages). */
export function productImagesForGeneration(ctx: AppContext, workspaceId: number, productId: number): Promise<ImageRow[]> {
  return repo.listImages(ctx.db, workspaceId, productId);
}

async function findImageOr404(ctx: AppContext, auth: AuthUser, productId: number, imageId: number) {
  const image = await repo.findImage(ctx.db, auth.workspaceId, productId, imageId);
  if (!image) throw fail('product.image_not_found');
  return image;
}

export async function uploadProductImage(ctx: AppContext, auth: AuthUser, productId: number, data: Buffer, scene: string) {
  await getProduct(ctx, auth, productId);
  const image = await cleanUploadedImage(data);
  const thumb = await thumbnailOf(image.data);
  const stored = await ctx.storage.put(image.data, { contentType: image.mime, extension: image.extension });
  const storedThumb = await ctx.storage.put(thumb, { contentType: 'image/webp', extension: 'webp' });
  try {
    const row = await ctx.db.transaction().execute(async (trx) => {
      if (!(await repo.lockProduct(trx, ctx.dialect, auth.workspaceId, productId))) throw fail('product.not_found');
      const existing = await repo.listImages(trx, auth.workspaceId, productId);
      if (existing.length >= MAX_IMAGES_PER_PRODUCT) throw fail('product.too_many_images', { max: MAX_IMAGES_PER_PRODUCT });
      return repo.insertImage(trx, {
        workspace_id: auth.workspaceId,
        product_id: productId,
        file_key: stored.key,
        thumb_key: storedThumb.key,
        mime: image.mime,
        width: image.width,
        height: image.height,
        scene,
        is_primary: !existing.some((i) => i.is_primary),
        created_at: nowIso(ctx.clock.now()),
      });
    });
    return imageView(ctx, row);
  } catch (err) {
    // The files stored above stay until the unused-file sweep: another upload may share them.
    if (isUniqueViolation(err)) throw fail('product.primary_race');
    throw err;
  }
}

export async function changeImageScene(ctx: AppContext, auth: AuthUser, productId: number, imageId: number, scene: string) {
  await findImageOr404(ctx, auth, productId, imageId);
  await repo.updateImageScene(ctx.db, auth.workspaceId, imageId, scene);
  return imageView(ctx, await findImageOr404(ctx, auth, productId, imageId));
}

export async function makeImagePrimary(ctx: AppContext, auth: AuthUser, productId: number, imageId: number) {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.lockProduct(trx, ctx.dialect, auth.workspaceId, productId))) throw fail('product.not_found');
    if (!(await repo.findImage(trx, auth.workspaceId, productId, imageId))) throw fail('product.image_not_found');
    await repo.setPrimaryImage(trx, auth.workspaceId, productId, imageId);
  });
  return imageView(ctx, await findImageOr404(ctx, auth, productId, imageId));
}

/** Deleting the primary promotes the oldest remaining image, so a product with images always has one. */
export async function deleteProductImage(ctx: AppContext, auth: AuthUser, productId: number, imageId: number) {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.lockProduct(trx, ctx.dialect, auth.workspaceId, productId))) throw fail('product.not_found');
    const image = await repo.findImage(trx, auth.workspaceId, productId, imageId);
    if (!image) throw fail('product.image_not_found');
    await repo.deleteImage(trx, auth.workspaceId, imageId);
    if (image.is_primary) {
      const next = (await repo.listImages(trx, auth.workspaceId, productId))[0];
      if (next) await repo.setPrimaryImage(trx, auth.workspaceId, productId, next.id);
    }
  });
}
