import type { Kysely } from 'kysely';

/**
 * The hash of the request body a task was created with under an Idempotency-Key: a repeat of
 * the key with another body is a client error (409), not a request for the first task.
 * Tasks created before have none and keep answering repeats as before until their key expires.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('idempotency_hash', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('idempotency_hash').execute();
}
