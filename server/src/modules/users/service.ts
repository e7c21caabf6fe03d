import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Role } from '../../db/schema.js';
import { fail } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { hashPassword } from '../../security/passwords.js';
import { assertAnAdminRemains, countMembershipsOutsideAdminOf, upsertMembership } from '../memberships/service.js';
import * as repo from './repository.js';

export async function listUsers(ctx: AppContext, auth: AuthUser, query: PageQuery) {
  const [items, total] = await repo.listWorkspaceUsers(ctx.db, auth.workspaceId, pageWindow(query));
  return pageOf(items, total, query);
}

/**
 * Usernames are one login namespace across tenants, so a name in use anywhere cannot be given
 * again. The refusal is the same wherever the name is used (this workspace, another tenant's, a
 * deactivated account) and names nothing, and it comes after the same work (issue 28, finding
 * 9; docs/decisions.md): reason `user.username_unavailable`.
 *
 * Creates an account in the caller's workspace; used by the API, the CLI and the bootstrap.
 */
export async function createUser(
  ctx: AppContext,
  input: { username: string; email: string; password: string; role: Role; workspaceId: number; mustChangePassword?: boolean },
) {
  const now = nowIso(ctx.clock.now());
  const passwordHash = await hashPassword(input.password, ctx.config.passwordHashCost);
  const create = () => ctx.db.transaction().execute(async (trx) => {
    if (await repo.findUserByUsername(trx, input.username)) throw fail('user.username_unavailable');
    const userId = await repo.insertUser(trx, {
      username: input.username,
      email: input.email,
      passwordHash,
      mustChangePassword: input.mustChangePassword ?? true,
      workspaceId: input.workspaceId,
      now,
    });
    await upsertMembership(trx, { workspaceId: input.workspaceId, userId, role: input.role, now });
    return userId;
  });
  // Two creations of one name at once: the second meets the unique index, and the same answer.
  const id = await create().catch((err: unknown) => Promise.reject(isUniqueViolation(err) ? fail('user.username_unavailable') : err));
  return (await repo.findWorkspaceUser(ctx.db, input.workspaceId, id))!;
}

export async function updateWorkspaceUser(
  ctx: AppContext,
  auth: AuthUser,
  userId: number,
  changes: { email?: string | undefined; role?: Role | undefined; is_active?: boolean | undefined; password?: string | undefined },
) {
  const target = await repo.findWorkspaceUser(ctx.db, auth.workspaceId, userId);
  if (!target) throw fail('user.not_found');
  // Email, password and the active flag belong to the account, which may also be a member (even
  // an admin) of workspaces this admin does not run: changing them there would hand this admin
  // that account. The role is per workspace and stays changeable.
  const accountWide = changes.email !== undefined || changes.password !== undefined || changes.is_active !== undefined;
  if (accountWide && userId !== auth.userId && (await countMembershipsOutsideAdminOf(ctx.db, userId, auth.userId)) > 0) {
    throw fail('user.other_workspaces');
  }
  const now = nowIso(ctx.clock.now());
  const passwordHash = changes.password !== undefined ? await hashPassword(changes.password, ctx.config.passwordHashCost) : undefined;
  await ctx.db.transaction().execute(async (trx) => {
    await assertAnAdminRemains(trx, auth.workspaceId, target.role, changes.is_active === false ? null : (changes.role ?? target.role));
    // A role is per workspace: its change ends the user's sessions here only (a new membership
    // session version). Deactivation and a password reset are account-wide: every session ends.
    if (changes.role !== undefined) await upsertMembership(trx, { workspaceId: auth.workspaceId, userId, role: changes.role, now });
    await repo.updateUser(trx, userId, {
      ...(changes.email !== undefined ? { email: changes.email } : {}),
      ...(changes.is_active !== undefined ? { is_active: changes.is_active } : {}),
      ...(passwordHash ? { password_hash: passwordHash, must_change_password: true } : {}),
      bumpTokenVersion: changes.is_active === false || passwordHash !== undefined,
      now,
    });
  });
  return (await repo.findWorkspaceUser(ctx.db, auth.workspaceId, userId))!;
}

export async function resetPasswordByUsername(ctx: AppContext, username: string, password: string) {
  const user = await repo.findUserByUsername(ctx.db, username);
  if (!user) throw fail('user.named_not_found', { username });
  await repo.updateUser(ctx.db, user.id, {
    password_hash: await hashPassword(password, ctx.config.passwordHashCost),
    must_change_password: true,
    is_active: true,
    bumpTokenVersion: true,
    now: nowIso(ctx.clock.now()),
  });
  await ctx.db.deleteFrom('login_throttle').where('username', '=', username).execute();
}

// The account rows the other identity modules (auth, workspaces, invitations) read and update in their transactions.
export { findUserById, findUserByUsername, updateUser, type UserRow } from './repository.js';
