import type { Kysely } from 'kysely';

/**
 * What a product looks like (issue 29 item 4): form, colour, packaging, label text. Image models
 * are given the product by name otherwise, and those that take no reference photo (Zhipu, custom
 * relays) draw whatever object the name suggests. Null for every existing product: nobody has
 * described it yet, and a guess would be drawn as fact.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('products').addColumn('appearance', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('products').dropColumn('appearance').execute();
}
