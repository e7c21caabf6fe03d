import type { Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Provider connections (contract-decisions §7). A key gains its own name, endpoint, models,
 * image size, concurrency, the structured-output mode it was downgraded to and its latest test;
 * null columns mean "the preset's", so every existing key keeps working exactly as before.
 * Routing per capability lives in `generation_routing` (one row per workspace, null = automatic).
 * Tasks and fissions record the connection of each capability they used (the text one stays
 * `api_key_id`); `providers` is the task's snapshot {text, vision, image} for its detail.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  for (const column of ['name', 'base_url', 'text_model', 'vision_model', 'image_model', 'image_size', 'structured_mode']) {
    await db.schema.alterTable('api_keys').addColumn(column, 'text').execute();
  }
  await db.schema.alterTable('api_keys').addColumn('last_test', t.json).execute();
  await db.schema.alterTable('api_keys').addColumn('concurrency', 'integer').execute();
  await db.schema
    .createTable('generation_routing')
    .addColumn('workspace_id', 'integer', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    .addColumn('text_key_id', 'integer', (c) => c.references('api_keys.id').onDelete('set null'))
    .addColumn('vision_key_id', 'integer', (c) => c.references('api_keys.id').onDelete('set null'))
    .addColumn('image_key_id', 'integer', (c) => c.references('api_keys.id').onDelete('set null'))
    .execute();
  await db.schema.alterTable('tasks').addColumn('image_key_id', 'integer').execute();
  await db.schema.alterTable('tasks').addColumn('providers', t.json).execute();
  await db.schema.alterTable('fission_tasks').addColumn('image_key_id', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('fission_tasks').dropColumn('image_key_id').execute();
  await db.schema.alterTable('tasks').dropColumn('providers').execute();
  await db.schema.alterTable('tasks').dropColumn('image_key_id').execute();
  await db.schema.dropTable('generation_routing').execute();
  for (const column of ['concurrency', 'last_test', 'structured_mode', 'image_size', 'image_model', 'vision_model', 'text_model', 'base_url', 'name']) {
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
  }
}
