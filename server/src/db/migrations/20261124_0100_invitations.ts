import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Membership by consent (issue 17, finding 1) and sessions per workspace.
 *
 * - `invitations`: an admin invites a username or an email address into a workspace with a
 *   role; the account it named when it was made (`invitee_user_id`, null when none) accepts or
 *   declines. One pending invitation per workspace and invitee as typed: a repeat refreshes it.
 * - `memberships.session_version`: access tokens carry the version of the membership they were
 *   issued for (claim `mv`), so removing a member or changing their role ends their sessions in
 *   that workspace only. Versions come from `workspaces.membership_seq`, which only grows, so a
 *   membership removed and given again never revives a token of the old one. Existing
 *   memberships start at 0, which tokens issued before (without `mv`) carry implicitly.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await db.schema.alterTable('workspaces').addColumn('membership_seq', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('memberships').addColumn('session_version', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await t
    .id(db.schema.createTable('invitations'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('invitee', 'text', (c) => c.notNull())
    .addColumn('invitee_kind', 'text', (c) => c.notNull())
    .addColumn('invitee_user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('invited_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('responded_at', t.timestamp)
    .execute();
  await db.schema
    .createIndex('invitations_pending_uq')
    .on('invitations')
    .columns(['workspace_id', 'invitee_kind', 'invitee'])
    .unique()
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .execute();
  await db.schema.createIndex('invitations_workspace_idx').on('invitations').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('invitations_invitee_idx').on('invitations').columns(['invitee_user_id', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('invitations').execute();
  await db.schema.alterTable('memberships').dropColumn('session_version').execute();
  await db.schema.alterTable('workspaces').dropColumn('membership_seq').execute();
}
