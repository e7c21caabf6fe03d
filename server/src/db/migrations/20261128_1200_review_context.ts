import type { Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Review with context (issue 30): a submission may carry the operator's note (required for a
 * text below the pass line), and every submission and rejection keeps the selected texts it was
 * about, so the next reviewer sees what changed since the last rejection. Comments anchor to a
 * line of a text, to an image, or to the task, and are resolved when addressed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await db.schema.alterTable('reviews').addColumn('note', 'text').execute();
  await db.schema.alterTable('reviews').addColumn('texts', t.json).execute();
  await t
    .id(db.schema.createTable('review_comments'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (c) => c.notNull())
    .addColumn('anchor_kind', 'text', (c) => c.notNull())
    .addColumn('candidate_id', 'integer')
    .addColumn('line', 'integer')
    .addColumn('quote', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('resolved_at', t.timestamp)
    .addColumn('resolved_by', 'integer')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('review_comments_task_idx').on('review_comments').columns(['workspace_id', 'task_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('review_comments').execute();
  await db.schema.alterTable('reviews').dropColumn('texts').execute();
  await db.schema.alterTable('reviews').dropColumn('note').execute();
}
