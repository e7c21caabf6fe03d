import type { Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * The audit trail of a task (contract-decisions §12): one row per generation, prompt, edit,
 * selection, review and package, written in the transaction of what it records and never
 * updated or deleted (only with its task or workspace). `user_id` is null for the job's rows;
 * no foreign key, so a removed user's rows stay. `detail` is the entry's JSON (before and after
 * of an edit, the model and prompt of a call). Tasks before this migration start their trail here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await t
    .id(db.schema.createTable('task_audit'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer')
    .addColumn('detail', t.json, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('task_audit_task_idx').on('task_audit').columns(['workspace_id', 'task_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('task_audit').execute();
}
