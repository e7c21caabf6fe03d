import type { DbOrTx } from '../../db/database.js';

/**
 * Whether any row still points at a stored file. Keys are content-addressed, so two records
 * (even in two workspaces) can share one file; it may be deleted only when none is left.
 */
export async function isFileReferenced(db: DbOrTx, key: string): Promise<boolean> {
  const hit = await db
    .selectFrom('product_images')
    .select('id')
    .where((eb) => eb.or([eb('file_key', '=', key), eb('thumb_key', '=', key)]))
    .unionAll(db.selectFrom('benchmarks').select('id').where('screenshot_key', '=', key))
    .unionAll(db.selectFrom('image_candidates').select('id').where('file_key', '=', key))
    .unionAll(db.selectFrom('delivery_packages').select('id').where('file_key', '=', key))
    .limit(1)
    .executeTakeFirst();
  return hit !== undefined;
}
