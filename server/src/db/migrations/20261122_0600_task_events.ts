import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Tasks and their events. `tasks.event_seq` is the last seq handed out for the task: bumping it
 * with UPDATE … RETURNING inside the transaction that writes the events row-locks the task, so
 * seqs are gap-free and become visible in commit order on both dialects.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await db.schema.alterTable('tasks').addColumn('event_seq', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // At most one selected text per strategy set, whatever the application does.
  await db.schema
    .createIndex('text_candidates_one_selected_uq')
    .on('text_candidates')
    .columns(['task_id', 'strategy'])
    .unique()
    .where(sql.ref('is_selected'), '=', t.pg ? sql.lit(true) : sql.lit(1))
    .execute();
  // Task detail reads the candidates of one task in display order.
  await db.schema.createIndex('text_candidates_task_idx').on('text_candidates').columns(['task_id', 'strategy', 'created_at']).execute();
  await db.schema.createIndex('image_candidates_task_idx').on('image_candidates').columns(['task_id', 'strategy', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('image_candidates_task_idx').execute();
  await db.schema.dropIndex('text_candidates_task_idx').execute();
  await db.schema.dropIndex('text_candidates_one_selected_uq').execute();
  await db.schema.alterTable('tasks').dropColumn('event_seq').execute();
}
