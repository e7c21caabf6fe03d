import type { AppContext } from '../../context.js';
import type { DbOrTx } from '../../db/database.js';
import { nowIso } from '../../db/codec.js';
import type { Role } from '../../db/schema.js';
import { fail } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { workspaceActions } from '../../policy/policy.js';
import { hashPassword, imitateVerification, needsRehash, verifyPassword } from '../../security/passwords.js';
import { GateFull } from '../../security/work-gate.js';
import { findMembership, listMembershipsOfUser } from '../memberships/service.js';
import { findUserById, findUserByUsername, updateUser, type UserRow } from '../users/service.js';
import { findWorkspace } from '../workspaces/service.js';
import * as repo from './repository.js';

export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_WINDOW_MS = 15 * 60 * 1000;

export interface UserView {
  id: number;
  username: string;
  email: string;
  current_workspace_id: number | null;
  role: Role;
  must_change_password: boolean;
}

export function userView(user: UserRow, workspaceId: number, role: Role): UserView {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    current_workspace_id: workspaceId,
    role,
    must_change_password: user.must_change_password,
  };
}

/** A token for one membership: the user's token version and that membership's session version. */
export async function issueToken(
  ctx: AppContext,
  user: Pick<UserRow, 'id' | 'token_version'>,
  membership: { workspaceId: number; role: Role; sessionVersion: number },
) {
  return ctx.tokens.sign({ sub: user.id, ws: membership.workspaceId, role: membership.role, ver: user.token_version, mv: membership.sessionVersion });
}

/** The workspace a login lands in: the last one used while still a member, else the first. */
async function loginWorkspace(db: DbOrTx, user: UserRow) {
  const memberships = await listMembershipsOfUser(db, user.id);
  return memberships.find((m) => m.id === user.current_workspace_id) ?? memberships[0];
}

/**
 * `from`: the client's address and the request's abort signal. Password checks wait for a slot
 * (ctx.logins): a login beyond the line is a 429 at once, one whose client left is dropped before
 * it hashes. An unknown username takes a hash's time but no slot and no work, so a flood of
 * made-up names cannot crowd out real users (issue 28, finding 7).
 */
export async function login(ctx: AppContext, username: string, password: string, from: { client: string; signal?: AbortSignal }) {
  const now = ctx.clock.now();
  await assertNotLocked(ctx, username, now);
  const user = await findUserByUsername(ctx.db, username);
  // The same answer whether the user is unknown, inactive or the password wrong.
  const passwordOk = user
    ? await ctx.logins.run(from.client, from.signal, () => verifyPassword(password, user.password_hash)).catch((err: unknown) => {
        if (err instanceof GateFull) throw fail('auth.login_busy', {}, { 'retry-after': '1' });
        throw err;
      })
    : await imitateVerification(from.signal);
  if (!user || !user.is_active || !passwordOk) {
    await recordFailure(ctx, username, now);
    throw fail('auth.wrong_credentials');
  }
  // A hash made with older parameters is replaced now that the password is at hand.
  if (needsRehash(user.password_hash, ctx.config.passwordHashCost)) {
    await updateUser(ctx.db, user.id, { password_hash: await hashPassword(password, ctx.config.passwordHashCost), now: nowIso(now) });
  }
  const workspace = await loginWorkspace(ctx.db, user);
  if (!workspace) throw fail('auth.no_workspace');
  await repo.clearThrottle(ctx.db, username);
  if (user.current_workspace_id !== workspace.id) {
    await updateUser(ctx.db, user.id, { current_workspace_id: workspace.id, now: nowIso(now) });
  }
  const token = await issueToken(ctx, user, { workspaceId: workspace.id, role: workspace.role, sessionVersion: workspace.session_version });
  return { token, user: userView(user, workspace.id, workspace.role) };
}

async function assertNotLocked(ctx: AppContext, username: string, now: Date) {
  const row = await repo.findThrottle(ctx.db, username);
  if (row?.locked_until && row.locked_until > now.toISOString()) {
    const retryAfter = Math.max(1, Math.ceil((Date.parse(row.locked_until) - now.getTime()) / 1000));
    throw fail('auth.login_locked', { minutes: Math.ceil(retryAfter / 60) }, {
      'retry-after': String(retryAfter),
    });
  }
}

/**
 * Counts failures per username in a 15-minute window; the fifth locks the username for 15
 * minutes. Unknown usernames are throttled the same way, so the lock reveals nothing.
 */
async function recordFailure(ctx: AppContext, username: string, now: Date) {
  const nowText = now.toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.lockThrottle(trx, ctx.dialect, username);
    const windowOpen = row && now.getTime() - Date.parse(row.window_started_at) < LOCKOUT_WINDOW_MS;
    const failures = windowOpen ? row.failures + 1 : 1;
    const lockedUntil = failures >= LOCKOUT_FAILURES ? new Date(now.getTime() + LOCKOUT_WINDOW_MS).toISOString() : null;
    await repo.saveThrottle(trx, {
      username,
      failures: lockedUntil ? 0 : failures,
      window_started_at: windowOpen ? row.window_started_at : nowText,
      locked_until: lockedUntil,
    });
  });
}

export async function changePassword(ctx: AppContext, auth: AuthUser, currentPassword: string, newPassword: string) {
  const user = await findUserById(ctx.db, auth.userId);
  if (!user) throw fail('auth.token_invalid');
  if (!(await verifyPassword(currentPassword, user.password_hash))) {
    throw fail('auth.wrong_current_password');
  }
  if (currentPassword === newPassword) throw fail('auth.same_password');
  await updateUser(ctx.db, user.id, {
    password_hash: await hashPassword(newPassword, ctx.config.passwordHashCost),
    must_change_password: false,
    bumpTokenVersion: true,
    now: nowIso(ctx.clock.now()),
  });
  // Every older token stops working; hand back a fresh one so this client carries on.
  const fresh = (await findUserById(ctx.db, user.id))!;
  const token = await issueToken(ctx, fresh, { workspaceId: auth.workspaceId, role: auth.role, sessionVersion: auth.membershipVersion });
  return { token, user: userView(fresh, auth.workspaceId, auth.role) };
}

export async function currentUserView(ctx: AppContext, auth: AuthUser) {
  const [user, workspace] = await Promise.all([findUserById(ctx.db, auth.userId), findWorkspace(ctx.db, auth.workspaceId)]);
  if (!user || !workspace) throw fail('auth.token_invalid');
  return {
    ...userView(user, auth.workspaceId, auth.role),
    workspace: { id: workspace.id, name: workspace.name, slug: workspace.slug },
    allowed_actions: workspaceActions(auth),
  };
}

export async function switchWorkspace(ctx: AppContext, auth: AuthUser, workspaceId: number) {
  const membership = await findMembership(ctx.db, workspaceId, auth.userId);
  if (!membership) throw fail('auth.not_member', { workspace_id: workspaceId });
  await updateUser(ctx.db, auth.userId, { current_workspace_id: workspaceId, now: nowIso(ctx.clock.now()) });
  const token = await ctx.tokens.sign({ sub: auth.userId, ws: workspaceId, role: membership.role, ver: auth.tokenVersion, mv: membership.session_version });
  return { current_workspace_id: workspaceId, role: membership.role, token };
}
