import type { Kysely } from 'kysely';

/**
 * Invitations by link (issue 28, finding 2). Email addresses are never verified, so one no
 * longer names an account: an email invitation is reached through a one-time link whose token
 * only the admin sees, once, and hands to the invitee. `token_hash` is its SHA-256 (the token
 * itself is never stored). Pending email invitations were bound to whatever account carried
 * the address when they were made, the hole itself: they are revoked, to be sent again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invitations').addColumn('token_hash', 'text').execute();
  await db.schema.createIndex('invitations_token_uq').on('invitations').column('token_hash').unique().execute();
  await db.updateTable('invitations').set({ status: 'revoked', invitee_user_id: null }).where('invitee_kind', '=', 'email').where('status', '=', 'pending').execute();
}
