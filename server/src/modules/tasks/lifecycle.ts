import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB, Row, RowUpdate, TaskStatus, WebhookEvent } from '../../db/schema.js';
import type { NewTaskEvent } from '../../events/types.js';
import { fail } from '../../http/errors.js';
import type { ErrorReason } from '../../http/reasons.js';
import { recordAudit, type AuditEntry } from '../audit/service.js';
import { notifyTaskEvent } from '../webhooks/service.js';
import { can, roleFor, type Actor, type WorkspaceAction } from '../../policy/policy.js';
import * as repo from './repository.js';

/**
 * The one home of the task lifecycle: which action is accepted in which status, which action of
 * the access policy it is (policy/policy.ts decides who may), and where it moves the task. Every status change of a task (by a user, the generation job,
 * the stale-work sweeper) goes through `transition`, and task detail's `allowed_actions` is read
 * from the same table, so the server's rules and what the console offers cannot drift apart.
 */

export type TaskRow = Row<'tasks'>;

interface ActionRule {
  /** The statuses the action is accepted in. */
  from: readonly TaskStatus[];
  /** Where it moves the task; absent: the status stays (the action changes what the task holds). */
  to?: TaskStatus;
  /** The workspace action of the access policy it is; absent: writing tasks (`tasks.write`). */
  needs?: WorkspaceAction;
  /** The error when the status does not accept the action (contract-decisions §2; default 409 / 40900). */
  refusal?: Extract<ErrorReason, 'task.not_finished'>;
  /** The team notification the move sends (contract-decisions §10), written in its transaction. */
  notify?: WebhookEvent;
}

const ALL_STATUSES: readonly TaskStatus[] = ['pending', 'generating', 'pending_selection', 'pending_review', 'approved', 'rejected', 'archived', 'failed'];

/** contract-decisions §4 and §8 name the user actions' states; the worker's are ours (docs/decisions.md). */
export const TASK_RULES = {
  // ---- user actions (their names are those of `allowed_actions`) ----
  select: { from: ['pending_selection'] },
  edit: { from: ['pending_selection'] },
  import_text: { from: ['pending', 'generating', 'pending_selection'] },
  regenerate: { from: ['pending_selection', 'failed'], to: 'generating' },
  regenerate_image: { from: ['pending_selection'] },
  upload_image: { from: ['pending_selection'] },
  retry_images: { from: ['pending_selection'] },
  submit_review: { from: ['pending_selection'], to: 'pending_review', notify: 'task.submitted' },
  approve: { from: ['pending_review'], to: 'approved', needs: 'review.decide', notify: 'task.approved' },
  reject: { from: ['pending_review'], to: 'pending_selection', needs: 'review.decide', notify: 'task.rejected' },
  /** A reject with `final: true` (contract-decisions §6): offered to the client as `reject`. */
  reject_final: { from: ['pending_review'], to: 'rejected', needs: 'review.decide', notify: 'task.rejected' },
  package: { from: ['approved', 'pending_selection'], refusal: 'task.not_finished' },
  archive: { from: ['approved', 'pending_selection', 'failed'], to: 'archived' },
  fission: { from: ALL_STATUSES },
  // ---- the generation job ----
  /** A run starts, or resumes after a crash (a task already generating stays so, without a new status event). */
  start_generation: { from: ['pending', 'generating'], to: 'generating' },
  /** Progress of the running generation: only while it runs. */
  report_progress: { from: ['generating'] },
  complete_generation: { from: ['generating'], to: 'pending_selection', notify: 'task.pending_selection' },
  fail_generation: { from: ['pending', 'generating'], to: 'failed', notify: 'task.failed' },
} as const satisfies Record<string, ActionRule>;

export type TaskAction = keyof typeof TASK_RULES;

/** The actions task detail reports in `allowed_actions` (contract-decisions §8), in this order. */
export const USER_ACTIONS = [
  'select',
  'edit',
  'import_text',
  'regenerate',
  'regenerate_image',
  'upload_image',
  'retry_images',
  'submit_review',
  'approve',
  'reject',
  'package',
  'archive',
  'fission',
] as const satisfies readonly TaskAction[];
export type UserAction = (typeof USER_ACTIONS)[number];

/** Statuses in which a generation is in flight: the stale-work sweeper watches tasks in these. */
export const IN_FLIGHT: readonly TaskStatus[] = TASK_RULES.start_generation.from;

function ruleOf(action: TaskAction): ActionRule {
  return TASK_RULES[action];
}

export function accepts(action: TaskAction, status: TaskStatus): boolean {
  return ruleOf(action).from.includes(status);
}

const mayTake = (actor: Actor, rule: ActionRule) => can(actor, rule.needs ?? 'tasks.write');

/**
 * 403 when the access policy refuses the actor the action, then the action's refusal (409) for a
 * status that does not accept it. Without an actor (the generation job) only the status counts.
 */
export function assertAccepts(action: TaskAction, task: Pick<TaskRow, 'status'>, actor?: Actor): void {
  const rule = ruleOf(action);
  if (actor && !mayTake(actor, rule)) {
    const needs = rule.needs ?? 'tasks.write';
    throw fail('task.action_role', { action, role: roleFor(needs), your_role: actor.role });
  }
  if (!rule.from.includes(task.status)) {
    throw fail(rule.refusal ?? 'task.wrong_status', { action, status: task.status, accepted: rule.from });
  }
}

/** What the task holds beyond its status that decides whether an action makes sense now. */
export interface TaskFacts {
  track: TaskRow['track'];
  hasTexts: boolean;
  hasSelectedText: boolean;
  hasFailedImages: boolean;
}

/**
 * `allowed_actions` of task detail: the user actions the access policy lets the actor take in the
 * task's status, less those the task's content rules out (an import needs the import track, a
 * submission a selected text, a fission some text, a retry a failed image).
 */
export function allowedActions(actor: Actor, task: Pick<TaskRow, 'status'>, facts: TaskFacts): UserAction[] {
  return USER_ACTIONS.filter((action) => {
    const rule = ruleOf(action);
    if (!mayTake(actor, rule)) return false;
    if (!rule.from.includes(task.status)) return false;
    switch (action) {
      case 'import_text':
        return facts.track === 'import';
      case 'submit_review':
        return facts.hasSelectedText;
      case 'fission':
        return facts.hasTexts;
      case 'retry_images':
        return facts.hasFailedImages;
      default:
        return true;
    }
  });
}

export const statusEvent = (taskId: number, status: TaskStatus): NewTaskEvent => ({ name: 'status', data: { task_id: taskId, status } });

/**
 * Moves a locked (or just read) task by `action`: one conditional UPDATE on the statuses the
 * action accepts (and, when given, the generation the caller works on), so of two concurrent
 * callers exactly one moves it. Returns the status event to store with the change (none when
 * the status stays the same), or null when the task had already moved on. A move that notifies
 * the team writes its webhook outbox rows in the same transaction.
 */
export async function transition(
  trx: Transaction<DB>,
  task: Pick<TaskRow, 'id' | 'workspace_id' | 'status'>,
  action: TaskAction,
  changes: Omit<RowUpdate<'tasks'>, 'status'> = {},
  opts: { generation?: number } = {},
): Promise<NewTaskEvent[] | null> {
  const rule = ruleOf(action);
  const moved = await repo.updateTaskIf(trx, task.workspace_id, task.id, rule.from, rule.to ? { ...changes, status: rule.to } : changes, opts.generation);
  if (!moved) return null;
  if (!rule.to || rule.to === task.status) return [];
  if (rule.notify) await notifyTaskEvent(trx, task.workspace_id, task.id, rule.notify, { final: action === 'reject_final' });
  return [statusEvent(task.id, rule.to)];
}

/** What a user action's work hands back: its answer, the events it produced, and the changes of the task row. */
export interface ActionOutcome<T> {
  result: T;
  events?: NewTaskEvent[];
  changes?: Omit<RowUpdate<'tasks'>, 'status'>;
  /** The lines of the task's audit trail the action adds, written as the caller's. */
  audit?: AuditEntry[];
}

/**
 * One user action on one task, in one transaction with the events, signals and audit lines it produces:
 * the task locked, another workspace's task a 404, the role and status checked (403, 409),
 * `work` done, then the task moved (for actions that change its status) with its `status`
 * event. Another request that moved the task meanwhile makes this one a 409.
 */
export function runTaskAction<T>(
  ctx: AppContext,
  caller: Actor & { workspaceId: number },
  taskId: number,
  action: TaskAction,
  work: (trx: Transaction<DB>, task: TaskRow, now: Date) => Promise<ActionOutcome<T>>,
): Promise<T> {
  return ctx.events.commit(taskId, async (trx) => {
    const task = await repo.lockTask(trx, ctx.dialect, caller.workspaceId, taskId);
    if (!task) throw fail('task.not_found');
    assertAccepts(action, task, caller);
    const now = ctx.clock.now();
    const outcome = await work(trx, task, now);
    const events = [...(outcome.events ?? [])];
    if (ruleOf(action).to || outcome.changes) {
      const moved = await transition(trx, task, action, outcome.changes);
      if (!moved) throw fail('task.changed_meanwhile');
      events.unshift(...moved);
    }
    if (outcome.audit?.length) await recordAudit(trx, { workspaceId: task.workspace_id, taskId: task.id, userId: caller.userId, now }, outcome.audit);
    return { result: outcome.result, events };
  });
}

/**
 * A move of the generation job (no caller: the job carries the task id, the row its
 * workspace), in its own event transaction, with the events that describe it stored around its
 * `status` event only when the task moved. False when the task had already moved on (a late or
 * duplicate run).
 */
export function moveTask(
  ctx: AppContext,
  task: Pick<TaskRow, 'id' | 'workspace_id' | 'status'>,
  action: TaskAction,
  changes: Omit<RowUpdate<'tasks'>, 'status'>,
  opts: { generation?: number; before?: NewTaskEvent[]; after?: NewTaskEvent[] } = {},
): Promise<boolean> {
  return ctx.events.commit(task.id, async (trx) => {
    const moved = await transition(trx, task, action, changes, opts);
    return { result: moved !== null, events: moved ? [...(opts.before ?? []), ...moved, ...(opts.after ?? [])] : [] };
  });
}
