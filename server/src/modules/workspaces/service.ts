import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import type { Role } from '../../db/schema.js';
import { AppError, badRequest, conflict, notFound } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { findUserById, findUserByUsername, updateUser } from '../users/repository.js';
import * as repo from './repository.js';

export async function listMyWorkspaces(ctx: AppContext, auth: AuthUser) {
  return repo.listMembershipsOfUser(ctx.db, auth.userId);
}

export async function createWorkspace(ctx: AppContext, auth: AuthUser, name: string, slug: string) {
  const now = nowIso(ctx.clock.now());
  return ctx.db.transaction().execute(async (trx) => {
    if (await repo.findWorkspaceBySlug(trx, slug)) throw conflict(`a workspace with slug "${slug}" already exists`);
    const id = await repo.insertWorkspace(trx, { name, slug, now });
    await repo.upsertMembership(trx, { workspaceId: id, userId: auth.userId, role: 'admin', now });
    return { id, name, slug, role: 'admin' as Role };
  });
}

/**
 * Membership changes need the admin role in the target workspace, whatever the current one is.
 * A workspace the caller does not belong to does not exist for them (404).
 */
async function assertAdminOf(ctx: AppContext, auth: AuthUser, workspaceId: number) {
  const membership = await repo.findMembership(ctx.db, workspaceId, auth.userId);
  if (!membership) throw notFound('workspace');
  if (membership.role !== 'admin') throw new AppError('forbidden', 'only an admin of that workspace can change its members');
}

export async function addMember(
  ctx: AppContext,
  auth: AuthUser,
  workspaceId: number,
  who: { user_id?: number | undefined; username?: string | undefined },
  role: Role,
) {
  await assertAdminOf(ctx, auth, workspaceId);
  const user =
    who.user_id !== undefined
      ? await findUserById(ctx.db, who.user_id)
      : who.username !== undefined
        ? await findUserByUsername(ctx.db, who.username)
        : undefined;
  if (who.user_id === undefined && who.username === undefined) throw badRequest('body must have user_id or username');
  if (!user) throw notFound('user');
  const now = nowIso(ctx.clock.now());
  await ctx.db.transaction().execute(async (trx) => {
    const existing = await repo.findMembership(trx, workspaceId, user.id);
    if (existing?.role === 'admin' && role !== 'admin' && (await repo.countAdmins(trx, workspaceId)) <= 1) {
      throw conflict('a workspace must keep at least one admin');
    }
    await repo.upsertMembership(trx, { workspaceId, userId: user.id, role, now });
    // A changed role must not linger in tokens already issued.
    if (existing && existing.role !== role) await updateUser(trx, user.id, { bumpTokenVersion: true, now });
  });
  return { workspace_id: workspaceId, user_id: user.id, username: user.username, role };
}

export async function removeMember(ctx: AppContext, auth: AuthUser, workspaceId: number, userId: number) {
  await assertAdminOf(ctx, auth, workspaceId);
  const now = nowIso(ctx.clock.now());
  await ctx.db.transaction().execute(async (trx) => {
    const existing = await repo.findMembership(trx, workspaceId, userId);
    if (!existing) throw notFound('member');
    if (existing.role === 'admin' && (await repo.countAdmins(trx, workspaceId)) <= 1) {
      throw conflict('a workspace must keep at least one admin');
    }
    await repo.deleteMembership(trx, workspaceId, userId);
    const user = await findUserById(trx, userId);
    const fallback = (await repo.listMembershipsOfUser(trx, userId))[0];
    await updateUser(trx, userId, {
      bumpTokenVersion: true,
      ...(user?.current_workspace_id === workspaceId ? { current_workspace_id: fallback?.id ?? null } : {}),
      now,
    });
  });
}
