import type { AppContext } from '../context.js';
import { preparedQuery } from '../db/database.js';
import { nowIso } from '../db/codec.js';
import { hashPersonalToken } from '../security/personal-tokens.js';
import type { AuthUser } from './auth.js';
import { fail } from './errors.js';

/** How stale `last_used_at` may get before a request writes it again (one write a minute at most). */
const LAST_USE_GRANULARITY_MS = 60_000;

/** The token with its user and membership: the unique hash, then primary keys. */
const tokenSession = preparedQuery((db, hash: string) =>
  db
    .selectFrom('access_tokens')
    .innerJoin('users', 'users.id', 'access_tokens.user_id')
    .innerJoin('memberships', (join) => join.onRef('memberships.user_id', '=', 'access_tokens.user_id').onRef('memberships.workspace_id', '=', 'access_tokens.workspace_id'))
    .select([
      'access_tokens.id as token_id',
      'access_tokens.workspace_id',
      'access_tokens.scopes',
      'access_tokens.token_version as issued_token_version',
      'access_tokens.session_version as issued_session_version',
      'access_tokens.expires_at',
      'access_tokens.revoked_at',
      'access_tokens.last_used_at',
      'users.id',
      'users.username',
      'users.is_active',
      'users.token_version',
      'users.must_change_password',
      'memberships.role',
      'memberships.session_version',
    ])
    .select((eb) =>
      eb.selectFrom('task_list_versions').select('task_list_versions.version').whereRef('task_list_versions.workspace_id', '=', 'access_tokens.workspace_id').as('task_list_version'),
    )
    .where('access_tokens.token_hash', '=', hash),
);

/**
 * A personal access token to the user it acts for, checked against the database on every request
 * like a session: revoked, expired, or issued before a password change, a role change or a
 * removal (the versions moved), it is refused with the same 401 / 40101 as a dead session.
 */
export async function authenticatePersonalToken(ctx: AppContext, token: string): Promise<AuthUser & { mustChangePassword: boolean }> {
  const [row] = await tokenSession(ctx.db, hashPersonalToken(token));
  const now = ctx.clock.now();
  if (
    !row ||
    row.revoked_at !== null ||
    (row.expires_at !== null && new Date(row.expires_at).getTime() <= now.getTime()) ||
    !row.is_active ||
    row.token_version !== row.issued_token_version ||
    row.session_version !== row.issued_session_version
  ) {
    throw fail('token.invalid');
  }
  if (row.last_used_at === null || now.getTime() - new Date(row.last_used_at).getTime() >= LAST_USE_GRANULARITY_MS) {
    await ctx.db.updateTable('access_tokens').set({ last_used_at: nowIso(now) }).where('id', '=', row.token_id).execute();
  }
  return {
    userId: row.id,
    username: row.username,
    workspaceId: row.workspace_id,
    role: row.role,
    tokenVersion: row.token_version,
    membershipVersion: row.session_version,
    taskListVersion: row.task_list_version ?? 0,
    mustChangePassword: row.must_change_password,
    scopes: row.scopes,
    accessTokenId: row.token_id,
  };
}
