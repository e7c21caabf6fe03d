import type { DbOrTx } from '../../db/database.js';

/**
 * Which of `keys` a row still uses. Keys are content-addressed, so two records (even in two
 * workspaces) can share one file. A delivery package past its `expires_at` (`now`, business
 * time, as the download checks it) no longer holds its zip. Across workspaces: the sweep serves
 * the whole store.
 */
export async function keysInUse(db: DbOrTx, keys: string[], now: string): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .selectFrom('product_images')
    .select('thumb_key as key')
    .where('thumb_key', 'in', keys)
    .union(db.selectFrom('product_images').select('file_key as key').where('file_key', 'in', keys))
    .union(db.selectFrom('benchmarks').select('screenshot_key as key').where('screenshot_key', 'in', keys))
    .union(db.selectFrom('image_candidates').select('file_key as key').where('file_key', 'in', keys))
    .union(db.selectFrom('image_candidates').select('raw_file_key as key').where('raw_file_key', 'in', keys))
    .union(db.selectFrom('fission_images').select('file_key as key').where('file_key', 'in', keys))
    .union(db.selectFrom('fission_images').select('raw_file_key as key').where('raw_file_key', 'in', keys))
    .union(db.selectFrom('provider_calls').select('file_key as key').where('file_key', 'in', keys))
    .union(
      db
        .selectFrom('delivery_packages')
        .select('file_key as key')
        .where('file_key', 'in', keys)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])),
    )
    .execute();
  return new Set(rows.map((r) => r.key).filter((k): k is string => k !== null));
}
