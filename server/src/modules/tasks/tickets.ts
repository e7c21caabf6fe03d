import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import { sessionIsCurrent, type AuthUser, type Session } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { hashToken, newOneTimeToken } from '../../security/tokens.js';
import * as repo from './repository.js';

export const TICKET_TTL_SECONDS = 60;

/**
 * SSE tickets (contract: a JWT never appears in a URL). 256 random bits, stored only as their
 * SHA-256, bound to one task and one user, valid 60 s, spent by the first open.
 */
export async function issueTicket(ctx: AppContext, auth: AuthUser, taskId: number) {
  if (!(await repo.findTask(ctx.db, auth.workspaceId, taskId))) throw fail('task.not_found');
  const now = ctx.clock.now();
  const { token, hash } = newOneTimeToken();
  await repo.deleteStaleTickets(ctx.db, nowIso(new Date(now.getTime() - TICKET_TTL_SECONDS * 1000)));
  await repo.insertTicket(ctx.db, {
    token_hash: hash,
    kind: 'sse',
    workspace_id: auth.workspaceId,
    user_id: auth.userId,
    subject_id: taskId,
    token_version: auth.tokenVersion,
    session_version: auth.membershipVersion,
    expires_at: nowIso(new Date(now.getTime() + TICKET_TTL_SECONDS * 1000)),
    used_at: null,
    created_at: nowIso(now),
  });
  return { ticket: token, expires_in: TICKET_TTL_SECONDS };
}

/**
 * Spends the ticket and returns its task with the session the ticket was issued in (the stream
 * ends with it); any unusable ticket is the same 401 (no oracle).
 */
export async function redeemTicket(ctx: AppContext, taskId: number, ticket: string | undefined) {
  const refused = fail('stream.ticket_invalid');
  if (!ticket) throw refused;
  const spent = await repo.consumeTicket(ctx.db, hashToken(ticket), taskId, nowIso(ctx.clock.now()));
  if (!spent?.user_id) throw refused;
  const session: Session = { userId: spent.user_id, workspaceId: spent.workspace_id, tokenVersion: spent.token_version, membershipVersion: spent.session_version };
  if (!(await sessionIsCurrent(ctx, session))) throw refused;
  const task = await repo.findTask(ctx.db, spent.workspace_id, taskId);
  if (!task) throw fail('task.not_found');
  return { task: { id: task.id, status: task.status }, session };
}
