import type { Kysely } from 'kysely';

/**
 * Indexes that serve every filter of `GET /tasks` in its order (created_at, id, newest first),
 * so a page is read straight from an index with no sort: PostgreSQL needs `id` in the index
 * (the initial ones ended at created_at, leaving an incremental sort for ties), and status with
 * product together had no index of its own (one filter was applied row by row).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tasks_ws_status_idx').execute();
  await db.schema.dropIndex('tasks_ws_product_idx').execute();
  await db.schema.createIndex('tasks_ws_status_created_idx').on('tasks').columns(['workspace_id', 'status', 'created_at', 'id']).execute();
  await db.schema.createIndex('tasks_ws_product_created_idx').on('tasks').columns(['workspace_id', 'product_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('tasks_ws_product_status_created_idx')
    .on('tasks')
    .columns(['workspace_id', 'product_id', 'status', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tasks_ws_product_status_created_idx').execute();
  await db.schema.dropIndex('tasks_ws_product_created_idx').execute();
  await db.schema.dropIndex('tasks_ws_status_created_idx').execute();
  await db.schema.createIndex('tasks_ws_status_idx').on('tasks').columns(['workspace_id', 'status', 'created_at']).execute();
  await db.schema.createIndex('tasks_ws_product_idx').on('tasks').columns(['workspace_id', 'product_id', 'created_at']).execute();
}
