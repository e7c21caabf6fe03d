import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import type { Role } from '../../db/schema.js';
import { fail } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { can } from '../../policy/policy.js';
import { seedLegalBaseline } from '../banned-words/service.js';
import * as memberships from '../memberships/service.js';
import { findUserById, findUserByUsername, updateUser } from '../users/service.js';
import * as repo from './repository.js';

export async function listMyWorkspaces(ctx: AppContext, auth: AuthUser) {
  return memberships.listMembershipsOfUser(ctx.db, auth.userId);
}

export async function createWorkspace(ctx: AppContext, auth: AuthUser, name: string, slug: string) {
  const now = nowIso(ctx.clock.now());
  return ctx.db.transaction().execute(async (trx) => {
    if (await repo.findWorkspaceBySlug(trx, slug)) throw fail('workspace.slug_taken', { slug });
    const id = await repo.insertWorkspace(trx, { name, slug, now });
    await memberships.upsertMembership(trx, { workspaceId: id, userId: auth.userId, role: 'admin', now });
    await seedLegalBaseline(trx, id, now);
    return { id, name, slug, role: 'admin' as Role };
  });
}

/**
 * Membership changes need the admin role in the target workspace, whatever the current one is.
 * A workspace the caller does not belong to does not exist for them (404).
 */
export async function assertAdminOf(ctx: AppContext, auth: AuthUser, workspaceId: number) {
  const membership = await memberships.findMembership(ctx.db, workspaceId, auth.userId);
  if (!membership) throw fail('workspace.not_found');
  if (!can({ userId: auth.userId, role: membership.role }, 'workspaces.manage')) throw fail('workspace.admin_only');
}

/**
 * Adds a member directly, or changes a member's role. Only a user who already shares a
 * workspace the caller administers can be added so (docs/decisions.md, "Membership by
 * consent"); anyone else is invited and accepts. An unknown user and one the caller shares no
 * such workspace with get the same 404, so the route tells nothing about other tenants' users.
 */
export async function addMember(
  ctx: AppContext,
  auth: AuthUser,
  workspaceId: number,
  who: { user_id?: number | undefined; username?: string | undefined },
  role: Role,
) {
  await assertAdminOf(ctx, auth, workspaceId);
  if (who.user_id === undefined && who.username === undefined) throw fail('member.who');
  const user =
    who.user_id !== undefined ? await findUserById(ctx.db, who.user_id) : await findUserByUsername(ctx.db, who.username!);
  if (!user || !(await memberships.sharesWorkspaceAdministeredBy(ctx.db, user.id, auth.userId))) {
    throw fail('member.user_not_found');
  }
  const now = nowIso(ctx.clock.now());
  await ctx.db.transaction().execute(async (trx) => {
    const existing = await memberships.findMembership(trx, workspaceId, user.id);
    await memberships.assertAnAdminRemains(trx, workspaceId, existing?.role, role);
    // A new or changed membership gets a new session version: a changed role must not linger
    // in tokens already issued for this workspace.
    await memberships.upsertMembership(trx, { workspaceId, userId: user.id, role, now });
  });
  return { workspace_id: workspaceId, user_id: user.id, username: user.username, role };
}

/** Ends a membership, and with it the member's sessions in this workspace only. */
export async function removeMember(ctx: AppContext, auth: AuthUser, workspaceId: number, userId: number) {
  await assertAdminOf(ctx, auth, workspaceId);
  const now = nowIso(ctx.clock.now());
  await ctx.db.transaction().execute(async (trx) => {
    const existing = await memberships.findMembership(trx, workspaceId, userId);
    if (!existing) throw fail('member.not_found');
    await memberships.assertAnAdminRemains(trx, workspaceId, existing.role, null);
    await memberships.deleteMembership(trx, workspaceId, userId);
    // Tokens for this workspace fail from here on (no membership row); the user's token
    // version is left alone, so their sessions in other workspaces go on.
    const user = await findUserById(trx, userId);
    if (user?.current_workspace_id === workspaceId) {
      const fallback = (await memberships.listMembershipsOfUser(trx, userId))[0];
      await updateUser(trx, userId, { current_workspace_id: fallback?.id ?? null, now });
    }
  });
}

// Other identity modules (auth, invitations) read workspaces by id in their own transactions.
export { findWorkspace } from './repository.js';
