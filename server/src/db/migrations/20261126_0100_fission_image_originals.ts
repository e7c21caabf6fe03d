import type { Kysely } from 'kysely';

const COLUMNS = ['raw_file_key', 'raw_mime', 'lettered_title'] as const;

/**
 * A lettered fission image keeps its un-lettered original (`raw_file_key`) and the cover title
 * drawn on it (`lettered_title`), as task images do since 20261125_1300: an edited cover title
 * is lettered again on the original, never drawn over the old one. Images stored before keep
 * none and are never re-lettered (docs/content.md, "Covers").
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('fission_images').addColumn(column, 'text').execute();
  // The unused-file sweep asks whether a key is still some image's original.
  await db.schema.createIndex('fission_images_raw_file_key_idx').on('fission_images').column('raw_file_key').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('fission_images_raw_file_key_idx').execute();
  for (const column of COLUMNS) await db.schema.alterTable('fission_images').dropColumn(column).execute();
}
