import type { Kysely } from 'kysely';

/**
 * A task or a fission meant for one of the team's accounts (contract-decisions §11): its persona
 * (positioning and voice) is given to generation. Null: meant for no account in particular.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null')).execute();
  await db.schema.alterTable('fission_tasks').addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('fission_tasks').dropColumn('account_id').execute();
  await db.schema.alterTable('tasks').dropColumn('account_id').execute();
}
