import type { Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Batches (issue 32): many tasks from one request, each item a task with what was planned for it
 * (a fission of its notes, a post on an account at a time). Tasks and fissions name their batch,
 * so their provider calls are paced as bulk work and their jobs run in the `bulk` lane;
 * `released_at` marks the items handed to the queue (a batch keeps only a few in flight at once).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await t
    .id(db.schema.createTable('batches'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('idempotency_hash', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('finished_at', t.timestamp)
    .execute();
  await db.schema.createIndex('batches_workspace_idx').on('batches').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('batches_idempotency_idx').on('batches').columns(['workspace_id', 'created_by', 'idempotency_key']).unique().execute();
  await db.schema.createIndex('batches_running_idx').on('batches').columns(['status', 'id']).execute();
  await t
    .id(db.schema.createTable('batch_items'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('batch_id', 'integer', (c) => c.notNull().references('batches.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('fission_count', 'integer', (c) => c.notNull())
    .addColumn('publish_at', t.timestamp)
    .addColumn('released_at', t.timestamp)
    .addColumn('fission_id', 'integer')
    .addColumn('post_id', 'integer')
    .addColumn('post_failure', t.json)
    .execute();
  await db.schema.createIndex('batch_items_batch_idx').on('batch_items').columns(['batch_id', 'seq']).unique().execute();
  await db.schema.createIndex('batch_items_task_idx').on('batch_items').columns(['task_id']).unique().execute();
  await db.schema.alterTable('tasks').addColumn('batch_id', 'integer', (c) => c.references('batches.id').onDelete('set null')).execute();
  await db.schema.alterTable('fission_tasks').addColumn('batch_id', 'integer', (c) => c.references('batches.id').onDelete('set null')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('fission_tasks').dropColumn('batch_id').execute();
  await db.schema.alterTable('tasks').dropColumn('batch_id').execute();
  await db.schema.dropTable('batch_items').execute();
  await db.schema.dropTable('batches').execute();
}
