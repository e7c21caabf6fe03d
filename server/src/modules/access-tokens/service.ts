import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import type { Scope } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { roleAllows } from '../../policy/policy.js';
import { newPersonalToken } from '../../security/personal-tokens.js';
import * as repo from './repository.js';

/** Live tokens a user may hold in one workspace: enough for every tool, few enough to review. */
export const MAX_TOKENS = 50;

export interface CreateTokenInput {
  name: string;
  scopes: Scope[];
  expires_at?: string | null | undefined;
}

function view(row: repo.AccessTokenRow, versions: { token_version: number; session_version: number } | undefined, now: Date) {
  const expired = row.expires_at !== null && new Date(row.expires_at).getTime() <= now.getTime();
  const invalidated = !versions || versions.token_version !== row.token_version || versions.session_version !== row.session_version;
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    token_hint: row.token_hint,
    status: invalidated ? ('invalidated' as const) : expired ? ('expired' as const) : ('active' as const),
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
  };
}

export async function listTokens(ctx: AppContext, auth: AuthUser) {
  const [rows, versions] = await Promise.all([repo.listTokens(ctx.db, auth.workspaceId, auth.userId), repo.currentVersions(ctx.db, auth.workspaceId, auth.userId)]);
  const now = ctx.clock.now();
  return { items: rows.map((row) => view(row, versions, now)) };
}

/**
 * A new token for the caller in the current workspace, bound to their password, role and
 * membership as they are now. The token is in this answer only.
 */
export async function createToken(ctx: AppContext, auth: AuthUser, input: CreateTokenInput) {
  const now = ctx.clock.now();
  const scopes = [...new Set(input.scopes)];
  // A scope the role can never use would only mislead whoever configures the assistant.
  if (scopes.includes('review') && !roleAllows(auth, 'review.decide')) {
    throw fail('token.review_not_allowed', { role: auth.role });
  }
  let expiresAt: string | null = null;
  if (input.expires_at) {
    const at = new Date(input.expires_at);
    if (Number.isNaN(at.getTime()) || at.getTime() <= now.getTime()) throw fail('token.expiry_past');
    expiresAt = nowIso(at);
  }
  return ctx.db.transaction().execute(async (tx) => {
    const versions = await repo.currentVersions(tx, auth.workspaceId, auth.userId);
    // The session is checked per request, but it may have died since: a token must not outlive it.
    if (!versions || versions.token_version !== auth.tokenVersion || versions.session_version !== auth.membershipVersion) {
      throw fail('auth.token_invalid');
    }
    if ((await repo.countLive(tx, auth.workspaceId, auth.userId)) >= MAX_TOKENS) {
      throw fail('token.too_many', { max: MAX_TOKENS });
    }
    const secret = newPersonalToken();
    const row = await repo.insertToken(tx, {
      workspace_id: auth.workspaceId,
      user_id: auth.userId,
      name: input.name.trim(),
      token_hash: secret.hash,
      token_hint: secret.hint,
      scopes: json(scopes),
      token_version: versions.token_version,
      session_version: versions.session_version,
      expires_at: expiresAt,
      last_used_at: null,
      revoked_at: null,
      created_at: nowIso(now),
    });
    return { ...view(row, versions, now), token: secret.token };
  });
}

/** Revokes one of the caller's tokens; another user's, or another workspace's, is a 404. */
export async function revokeToken(ctx: AppContext, auth: AuthUser, id: number) {
  if (!(await repo.revokeToken(ctx.db, auth.workspaceId, auth.userId, id, nowIso(ctx.clock.now())))) throw fail('token.not_found');
}
