import type { Kysely } from 'kysely';

/**
 * One-time tokens (SSE tickets, download tokens) carry the session they were issued in (issue
 * 28, finding 5): the user's token version and the membership's session version, like an
 * access token's `ver` and `mv`. A removal, a role change or a password change then ends them
 * too. Rows from before have none and are refused (both kinds live 60 s).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('one_time_tokens').addColumn('token_version', 'integer').execute();
  await db.schema.alterTable('one_time_tokens').addColumn('session_version', 'integer').execute();
}
