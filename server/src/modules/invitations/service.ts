import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Role } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { findMembership, upsertMembership } from '../memberships/service.js';
import { findUserByUsername } from '../users/service.js';
import { assertAdminOf, findWorkspace } from '../workspaces/service.js';
import * as repo from './repository.js';

/**
 * Membership by consent (issue 17, finding 1; issue 28, finding 2; docs/decisions.md). An admin
 * invites a username, which the account of that name sees and accepts or declines; the admin's
 * answer is the same whether it exists. Or the admin invites by email address: addresses are
 * never verified, so one names no account; the invitation is a one-time link whose token the
 * admin sees once, in the answer, and hands over, and whoever redeems it joins.
 */

export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** Pending invitations one workspace may have out at once: enough for a team, not for spam. */
export const MAX_PENDING_INVITATIONS = 100;

type InvitationRow = NonNullable<Awaited<ReturnType<typeof repo.findInvitationInWorkspace>>>;

function statusOf(row: Pick<InvitationRow, 'status' | 'expires_at'>, now: string) {
  return row.status === 'pending' && row.expires_at <= now ? ('expired' as const) : row.status;
}

function adminView(row: InvitationRow, now: string) {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    invitee: row.invitee,
    invitee_kind: row.invitee_kind,
    role: row.role,
    status: statusOf(row, now),
    invited_by: row.invited_by_username,
    created_at: row.created_at,
    expires_at: row.expires_at,
    responded_at: row.responded_at,
  };
}

/** `username` as typed; an email address lower-cased: addresses are matched without case. */
function inviteeOf(who: { username?: string | undefined; email?: string | undefined }) {
  if ((who.username === undefined) === (who.email === undefined)) throw fail('invitation.who');
  return who.username !== undefined
    ? { kind: 'username' as const, invitee: who.username }
    : { kind: 'email' as const, invitee: who.email!.trim().toLowerCase() };
}

/** The account a username invitation is for, decided when it is made (none: the answer is the same). */
async function accountNamed(ctx: AppContext, invitee: ReturnType<typeof inviteeOf>): Promise<number | null> {
  if (invitee.kind === 'email') return null;
  const user = await findUserByUsername(ctx.db, invitee.invitee);
  return user?.is_active ? user.id : null;
}

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export async function invite(
  ctx: AppContext,
  auth: AuthUser,
  workspaceId: number,
  input: { username?: string | undefined; email?: string | undefined; role: Role },
) {
  await assertAdminOf(ctx, auth, workspaceId);
  const invitee = inviteeOf(input);
  const inviteeUserId = await accountNamed(ctx, invitee);
  const now = ctx.clock.now();
  const stamp = nowIso(now);
  // A renewal issues a new link: the one handed over before stops working.
  const token = invitee.kind === 'email' ? randomBytes(32).toString('base64url') : null;
  const fields = {
    role: input.role,
    invited_by: auth.userId,
    invitee_user_id: inviteeUserId,
    token_hash: token && hashToken(token),
    created_at: stamp,
    expires_at: nowIso(new Date(now.getTime() + INVITATION_LIFETIME_MS)),
  };
  const write = () =>
    ctx.db.transaction().execute(async (trx) => {
      const pending = await repo.findPendingByInvitee(trx, workspaceId, invitee.kind, invitee.invitee);
      if (pending) {
        await repo.renewInvitation(trx, pending.id, fields);
        return pending.id;
      }
      if ((await repo.countLivePending(trx, workspaceId, stamp)) >= MAX_PENDING_INVITATIONS) {
        throw fail('invitation.too_many', { max: MAX_PENDING_INVITATIONS });
      }
      return repo.insertInvitation(trx, { workspace_id: workspaceId, invitee: invitee.invitee, invitee_kind: invitee.kind, status: 'pending', ...fields });
    });
  // Two admins inviting the same name at once: the second renews the first's invitation.
  const id = await write().catch((err: unknown) => (isUniqueViolation(err) ? write() : Promise.reject(err)));
  return { ...adminView((await repo.findInvitationInWorkspace(ctx.db, workspaceId, id))!, stamp), token };
}

export async function listWorkspaceInvitations(ctx: AppContext, auth: AuthUser, workspaceId: number, query: PageQuery) {
  await assertAdminOf(ctx, auth, workspaceId);
  const [rows, total] = await repo.listWorkspaceInvitations(ctx.db, workspaceId, pageWindow(query));
  const now = nowIso(ctx.clock.now());
  return pageOf(rows.map((r) => adminView(r, now)), total, query);
}

export async function revoke(ctx: AppContext, auth: AuthUser, workspaceId: number, id: number) {
  await assertAdminOf(ctx, auth, workspaceId);
  const row = await repo.findInvitationInWorkspace(ctx.db, workspaceId, id);
  if (!row) throw fail('invitation.not_found');
  const now = nowIso(ctx.clock.now());
  if (!(await repo.settleInvitation(ctx.db, id, 'revoked', now))) throw fail('invitation.not_revocable', { status: statusOf(row, now) });
  return adminView((await repo.findInvitationInWorkspace(ctx.db, workspaceId, id))!, now);
}

export async function listMine(ctx: AppContext, auth: AuthUser, query: PageQuery) {
  const [rows, total] = await repo.listPendingForUser(ctx.db, auth.userId, nowIso(ctx.clock.now()), pageWindow(query));
  const items = rows.map((r) => ({
    id: r.id,
    workspace: { id: r.workspace_id, name: r.workspace_name, slug: r.workspace_slug },
    role: r.role,
    invited_by: r.invited_by_username,
    created_at: r.created_at,
    expires_at: r.expires_at,
  }));
  return pageOf(items, total, query);
}

/**
 * The invitation addressed to the caller, still open; another user's is a 404 like one that
 * does not exist, an answered or expired one a 409.
 */
async function openInvitationFor(ctx: AppContext, auth: AuthUser, id: number, now: string) {
  const row = await repo.findInvitationFor(ctx.db, auth.userId, id);
  if (!row) throw fail('invitation.not_found');
  const status = statusOf(row, now);
  if (status !== 'pending') throw fail('invitation.not_pending', { status });
  return row;
}

/** Joins the workspace with the invited role (a member already keeps the role they have). */
export async function accept(ctx: AppContext, auth: AuthUser, id: number) {
  const now = nowIso(ctx.clock.now());
  return join(ctx, auth, await openInvitationFor(ctx, auth, id, now), now);
}

/**
 * Redeems an invitation link: the token's invitation joins the caller, whoever they are (the
 * link is what the admin handed over). An unknown token is a 404 like a foreign id.
 */
export async function redeem(ctx: AppContext, auth: AuthUser, token: string) {
  const now = nowIso(ctx.clock.now());
  const row = await repo.findByTokenHash(ctx.db, hashToken(token));
  if (!row) throw fail('invitation.not_found');
  const status = statusOf(row, now);
  if (status !== 'pending') throw fail('invitation.not_pending', { status });
  return join(ctx, auth, row, now);
}

async function join(ctx: AppContext, auth: AuthUser, row: repo.InvitationRow, now: string) {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.settleInvitation(trx, row.id, 'accepted', now, { unexpired: true, by: auth.userId }))) throw fail('invitation.answered');
    if (!(await findMembership(trx, row.workspace_id, auth.userId))) {
      await upsertMembership(trx, { workspaceId: row.workspace_id, userId: auth.userId, role: row.role, now });
    }
    await repo.settleOthersOf(trx, row.workspace_id, auth.userId, now);
  });
  const [workspace, membership] = await Promise.all([findWorkspace(ctx.db, row.workspace_id), findMembership(ctx.db, row.workspace_id, auth.userId)]);
  return { id: workspace!.id, name: workspace!.name, slug: workspace!.slug, role: membership!.role };
}

export async function decline(ctx: AppContext, auth: AuthUser, id: number) {
  const now = nowIso(ctx.clock.now());
  await openInvitationFor(ctx, auth, id, now);
  if (!(await repo.settleInvitation(ctx.db, id, 'declined', now, { unexpired: true }))) throw fail('invitation.answered');
}
