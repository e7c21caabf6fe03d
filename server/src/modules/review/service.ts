import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import type { DB, ReviewedText, Row, RowUpdate } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { noteExcerpt } from '../../content/text.js';
import { recordSignal } from '../preferences/service.js';
import { runTaskAction, syncCovers, TASK_RULES, type TaskAction, type TaskRow } from '../tasks/service.js';
import { imageCandidateView, providersView, textCandidateView } from '../tasks/views.js';
import * as repo from './repository.js';

const SETS = ['A', 'B', 'C'] as const;

/** What a review action answers: the task's review fields after the change. */
function reviewState(task: Pick<Row<'tasks'>, 'id' | 'status' | 'review_status' | 'reject_reason' | 'reviewed_at' | 'submitted_at'>) {
  return {
    task_id: task.id,
    status: task.status,
    review_status: task.review_status,
    reject_reason: task.reject_reason,
    reviewed_at: task.reviewed_at,
    submitted_at: task.submitted_at,
  };
}

type ReviewChanges = Pick<RowUpdate<'tasks'>, 'review_status' | 'reject_reason' | 'reviewed_at' | 'submitted_at' | 'submitted_by'>;

/**
 * One review step, a task lifecycle action (modules/tasks/lifecycle.ts): the task locked, the
 * status checked, the step's own writes, then the conditional move with its `status` event, all
 * in one transaction, so of two concurrent reviewers exactly one moves the task.
 */
function reviewStep(
  ctx: AppContext,
  auth: AuthUser,
  taskId: number,
  action: Extract<TaskAction, 'submit_review' | 'approve' | 'reject' | 'reject_final'>,
  step: (trx: Transaction<DB>, task: TaskRow, now: string) => Promise<ReviewChanges>,
) {
  return runTaskAction(ctx, auth, taskId, action, async (trx, task, at) => {
    const now = nowIso(at);
    const changes = { ...(await step(trx, task, now)), updated_at: now };
    const next = { ...task, ...changes, status: TASK_RULES[action].to };
    const reason = action === 'reject' || action === 'reject_final' ? (changes.reject_reason ?? null) : null;
    return { result: reviewState(next), changes, audit: [{ kind: 'review' as const, action, detail: { reason, status: next.status } }] };
  });
}

/** The text a reviewer decides on: the best-scored selected text (its angle and set get the signal). */
async function decidedText(trx: Transaction<DB>, workspaceId: number, taskId: number) {
  const [best] = await repo.selectedTexts(trx, workspaceId, [taskId]);
  return best;
}

/** The selected texts as a review saw them: what a later reviewer compares with. */
async function reviewedTexts(trx: Transaction<DB>, workspaceId: number, taskId: number): Promise<ReviewedText[]> {
  return (await repo.selectedTexts(trx, workspaceId, [taskId]))
    .map((t) => ({ strategy: t.strategy, title: t.title, content: t.content, tags: t.tags, cover_title: t.cover_title, score_total: t.score_total }))
    .sort((a, b) => String(a.strategy).localeCompare(String(b.strategy)));
}

/**
 * pending_selection → pending_review, with the operator's note for the reviewer (the console asks
 * for one when a selected text is below the pass line; API clients of the contract send none).
 * Every submission keeps the texts it was about.
 */
export function submitForReview(ctx: AppContext, auth: AuthUser, taskId: number, note?: string) {
  const said = note?.trim() || null;
  return reviewStep(ctx, auth, taskId, 'submit_review', async (trx, task, now) => {
    if (!(await decidedText(trx, auth.workspaceId, task.id))) throw fail('task.select_first');
    const texts = await reviewedTexts(trx, auth.workspaceId, task.id);
    await repo.insertReview(trx, { workspace_id: auth.workspaceId, task_id: task.id, user_id: auth.userId, action: 'submit', reason: null, note: said, texts: json(texts), final: false, created_at: now });
    return { review_status: 'pending', submitted_at: now, submitted_by: auth.userId };
  });
}

export function approve(ctx: AppContext, auth: AuthUser, taskId: number) {
  return reviewStep(ctx, auth, taskId, 'approve', async (trx, task, now) => {
    const text = await decidedText(trx, auth.workspaceId, task.id);
    await repo.insertReview(trx, { workspace_id: auth.workspaceId, task_id: task.id, user_id: auth.userId, action: 'approve', reason: null, final: false, created_at: now });
    await recordSignal(trx, {
      workspaceId: auth.workspaceId,
      productId: task.product_id,
      taskId: task.id,
      userId: auth.userId,
      type: 'approve',
      candidateId: text?.id ?? null,
      candidateKind: text ? 'text' : null,
      strategy: text?.strategy ?? null,
      angleLabel: text?.angle_label ?? null,
      // Its opening becomes a positive example for the next generations of the product.
      excerpt: text ? noteExcerpt(text.title, text.content) : null,
      at: ctx.clock.now(),
    });
    return { review_status: 'approved', reject_reason: null, reviewed_at: now };
  });
}

/**
 * Back to pending_selection with the reason on the task, or, with `final`, the end of the task
 * (status rejected). The reason is kept exactly as written: it is injected into the next
 * generation of the product verbatim, with the start of the note it rejected.
 */
export function reject(ctx: AppContext, auth: AuthUser, taskId: number, reason: string, final: boolean) {
  if (reason.trim() === '') throw fail('validation.blank', { field: 'body.reason' });
  return reviewStep(ctx, auth, taskId, final ? 'reject_final' : 'reject', async (trx, task, now) => {
    const text = await decidedText(trx, auth.workspaceId, task.id);
    const texts = await reviewedTexts(trx, auth.workspaceId, task.id);
    await repo.insertReview(trx, { workspace_id: auth.workspaceId, task_id: task.id, user_id: auth.userId, action: 'reject', reason, texts: json(texts), final, created_at: now });
    await recordSignal(trx, {
      workspaceId: auth.workspaceId,
      productId: task.product_id,
      taskId: task.id,
      userId: auth.userId,
      type: 'reject',
      candidateId: text?.id ?? null,
      candidateKind: text ? 'text' : null,
      strategy: text?.strategy ?? null,
      angleLabel: text?.angle_label ?? null,
      reason,
      excerpt: text ? noteExcerpt(text.title, text.content) : null,
      at: ctx.clock.now(),
    });
    return { review_status: 'rejected', reject_reason: reason, reviewed_at: now };
  });
}

/** Review queue items exactly as the contract's "Review queue item", oldest submission first. */
export async function reviewQueue(ctx: AppContext, auth: AuthUser, query: PageQuery) {
  const [tasks, total] = await repo.reviewQueue(ctx.db, auth.workspaceId, pageWindow(query));
  const ids = tasks.map((t) => t.id);
  for (const id of ids) await syncCovers(ctx, auth.workspaceId, id);
  const [texts, images, sets, contexts] = await Promise.all([
    repo.selectedTexts(ctx.db, auth.workspaceId, ids),
    repo.selectedImages(ctx.db, auth.workspaceId, ids),
    repo.taskSets(ctx.db, auth.workspaceId, ids),
    repo.reviewContexts(ctx.db, auth.workspaceId, ids),
  ]);
  const items = tasks.map((task) => {
    const taskTexts = texts.filter((t) => t.task_id === task.id);
    const taskImages = images.filter((i) => i.task_id === task.id);
    const best = taskTexts[0];
    const firstImage = best ? taskImages.find((i) => i.strategy === best.strategy) : undefined;
    const present = new Set(sets.filter((s) => s.task_id === task.id).map((s) => s.strategy));
    return {
      task_id: task.id,
      product_name: task.product_name,
      theme: task.theme,
      submitted_at: task.submitted_at ?? task.created_at,
      operator_name: task.operator_name,
      providers: providersView(task.providers),
      submit_note: contexts.get(task.id)?.submitNote ?? null,
      previous_rejection: contexts.get(task.id)?.rejection ?? null,
      open_comments: contexts.get(task.id)?.openComments ?? 0,
      selected_text: best ? textCandidateView(best) : null,
      selected_image: firstImage ? imageCandidateView(ctx, firstImage) : null,
      selected_sets: SETS.filter((s) => present.has(s)).map((strategy) => {
        const text = taskTexts.find((t) => t.strategy === strategy);
        return {
          strategy,
          selected_text: text ? textCandidateView(text) : null,
          selected_images: taskImages.filter((i) => i.strategy === strategy).map((i) => imageCandidateView(ctx, i)),
        };
      }),
    };
  });
  return pageOf(items, total, query);
}

export async function reviewHistory(ctx: AppContext, auth: AuthUser, taskId: number, query: PageQuery) {
  if (!(await repo.taskExists(ctx.db, auth.workspaceId, taskId))) throw fail('task.not_found');
  const [items, total] = await repo.reviewHistory(ctx.db, auth.workspaceId, taskId, pageWindow(query));
  return pageOf(items, total, query);
}
