import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import type { AuthUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { can } from '../../policy/policy.js';
import * as repo from './repository.js';

/**
 * Comments on a task under review (issue 30): a reviewer's or operator's remark anchored to a
 * line of a text's body (its words kept as `quote`, so the anchor still reads after an edit), to
 * an image, or to the task; visible to everyone on the task, resolved when addressed.
 */
export type CommentAnchor = { kind: 'task' } | { kind: 'text'; candidate_id: number; line: number } | { kind: 'image'; candidate_id: number };

type CommentRow = NonNullable<Awaited<ReturnType<typeof repo.findComment>>>;

const view = (row: CommentRow) => ({
  id: row.id,
  task_id: row.task_id,
  author_id: row.author_id,
  author_name: row.author_name,
  anchor: row.anchor_kind === 'text' ? { kind: 'text' as const, candidate_id: row.candidate_id!, line: row.line! } : row.anchor_kind === 'image' ? { kind: 'image' as const, candidate_id: row.candidate_id! } : { kind: 'task' as const },
  quote: row.quote,
  body: row.body,
  resolved: row.resolved_at !== null,
  resolved_at: row.resolved_at,
  resolved_by: row.resolved_by,
  created_at: row.created_at,
});

async function requireTask(ctx: AppContext, auth: AuthUser, taskId: number) {
  if (!(await repo.taskExists(ctx.db, auth.workspaceId, taskId))) throw fail('task.not_found');
}

async function requireComment(ctx: AppContext, auth: AuthUser, taskId: number, id: number) {
  const row = await repo.findComment(ctx.db, auth.workspaceId, taskId, id);
  if (!row) throw fail('comment.not_found');
  return row;
}

export async function listComments(ctx: AppContext, auth: AuthUser, taskId: number) {
  await requireTask(ctx, auth, taskId);
  return { items: (await repo.listComments(ctx.db, auth.workspaceId, taskId)).map(view) };
}

/** The line's words, when the anchor names a line the text has (1-based, blank lines count). */
function lineOf(content: string, line: number): string | undefined {
  return content.split('\n')[line - 1];
}

export async function addComment(ctx: AppContext, auth: AuthUser, taskId: number, input: { body: string; anchor?: CommentAnchor | undefined }) {
  await requireTask(ctx, auth, taskId);
  const body = input.body.trim();
  if (!body) throw fail('validation.blank', { field: 'body.body' });
  const anchor = input.anchor ?? { kind: 'task' as const };
  let quote: string | null = null;
  if (anchor.kind === 'text') {
    const text = await repo.textOfTask(ctx.db, auth.workspaceId, taskId, anchor.candidate_id);
    if (!text) throw fail('comment.candidate_not_found', { id: anchor.candidate_id, kind: 'text' });
    const words = lineOf(text.content, anchor.line);
    if (words === undefined) throw fail('comment.anchor', { kind: 'text', needs: `a line from 1 to ${text.content.split('\n').length}` });
    quote = words.slice(0, 200);
  }
  if (anchor.kind === 'image' && !(await repo.imageOfTask(ctx.db, auth.workspaceId, taskId, anchor.candidate_id))) {
    throw fail('comment.candidate_not_found', { id: anchor.candidate_id, kind: 'image' });
  }
  const { id } = await repo.insertComment(ctx.db, {
    workspace_id: auth.workspaceId,
    task_id: taskId,
    author_id: auth.userId,
    anchor_kind: anchor.kind,
    candidate_id: anchor.kind === 'task' ? null : anchor.candidate_id,
    line: anchor.kind === 'text' ? anchor.line : null,
    quote,
    body,
    resolved_at: null,
    resolved_by: null,
    created_at: nowIso(ctx.clock.now()),
  });
  return view(await requireComment(ctx, auth, taskId, id));
}

/** Resolved when addressed (or opened again); anyone on the task may. */
export async function resolveComment(ctx: AppContext, auth: AuthUser, taskId: number, id: number, resolved: boolean) {
  await requireComment(ctx, auth, taskId, id);
  await repo.setResolved(ctx.db, auth.workspaceId, id, resolved ? { at: nowIso(ctx.clock.now()), by: auth.userId } : null);
  return view(await requireComment(ctx, auth, taskId, id));
}

/** A comment is its author's to withdraw; supervisors and admins may remove any. */
export async function deleteComment(ctx: AppContext, auth: AuthUser, taskId: number, id: number): Promise<void> {
  const row = await requireComment(ctx, auth, taskId, id);
  if (row.author_id !== auth.userId && !can(auth, 'review.decide')) throw fail('comment.not_author');
  await repo.deleteComment(ctx.db, auth.workspaceId, id);
}
