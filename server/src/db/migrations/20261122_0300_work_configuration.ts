import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Exactly one primary image per product, held by the database rather than by care in the
  // service: two concurrent uploads cannot both become primary. `true` is 1 in SQLite ≥ 3.23.
  await sql`CREATE UNIQUE INDEX product_images_one_primary_uq ON product_images (product_id) WHERE is_primary = true`.execute(db);
  await db.schema.createIndex('benchmarks_ws_idx').on('benchmarks').columns(['workspace_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('benchmarks_ws_idx').execute();
  await db.schema.dropIndex('product_images_one_primary_uq').execute();
}
