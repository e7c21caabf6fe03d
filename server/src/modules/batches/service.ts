import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import { createOnce } from '../../db/idempotency.js';
import type { AuthUser } from '../../http/auth.js';
import { AppError, fail } from '../../http/errors.js';
import { failure, type FailureReason, type StoredParams } from '../../http/reasons.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { can } from '../../policy/policy.js';
import { requireAccount } from '../accounts/service.js';
import { resolveConnections } from '../api-keys/service.js';
import { paceOf } from '../../providers/factory.js';
import { createFission } from '../fission/service.js';
import { findMembership } from '../memberships/service.js';
import { createPost } from '../posts/service.js';
import { failTaskGeneration, insertPreparedTask, prepareTask, type PreparedTask } from '../tasks/service.js';
import { expandMatrix, MAX_BATCH_ITEMS, readPlan, type BatchItemInput, type BatchMatrix, type PlanAccount } from './plan.js';
import * as repo from './repository.js';

export { MAX_BATCH_ITEMS, type BatchItemInput, type BatchMatrix } from './plan.js';

/** The job that generates a batch's task in the `bulk` lane (jobs.ts). */
export const BATCH_TASK_KIND = 'batch.task';
/** A planned fission copies the task's notes at this distance (the fission form's default). */
const BATCH_FISSION_LEVEL = 'mid';

export interface CreateBatchInput {
  name: string;
  items?: BatchItemInput[] | undefined;
  matrix?: BatchMatrix | undefined;
}

/** The batch as asked for, whatever its spelling: what an Idempotency-Key's repeat must match. */
function requestHash(name: string, items: BatchItemInput[]): string {
  const canonical = items.map((i) => [i.product_id, i.theme.trim(), i.text_count, i.image_count, i.fission_count ?? 0, i.account_id ?? null, i.publish_at ? Date.parse(i.publish_at) : null]);
  return createHash('sha256').update(JSON.stringify([name.trim(), canonical])).digest('hex');
}

async function matrixAccounts(ctx: AppContext, workspaceId: number, ids: number[] | undefined): Promise<PlanAccount[]> {
  const accounts: PlanAccount[] = [];
  for (const id of [...new Set(ids ?? [])]) {
    const account = await requireAccount(ctx, workspaceId, id);
    if (!account.active) throw fail('account.inactive', { account: account.name });
    accounts.push({ id: account.id, name: account.name, timezone: account.timezone });
  }
  return accounts;
}

/** Every item checked as a task would be, before anything is stored: item i's refusal names it. */
async function prepareItems(ctx: AppContext, workspaceId: number, items: BatchItemInput[]): Promise<PreparedTask[]> {
  const now = ctx.clock.now().getTime();
  const prepared: PreparedTask[] = [];
  for (const [i, item] of items.entries()) {
    try {
      if (item.publish_at !== undefined) {
        if (item.account_id === undefined) throw fail('plan.time_without_account');
        if (Date.parse(item.publish_at) <= now) throw fail('plan.time_past', { value: item.publish_at });
      }
      prepared.push(await prepareTask(ctx, workspaceId, { ...item, track: 'ai', overlay_text: true }));
    } catch (err) {
      if (err instanceof AppError) throw fail('batch.item_invalid', { index: i + 1, reason: err.reason, detail: err.message });
      throw err;
    }
  }
  return prepared;
}

/**
 * Creates the batch and its tasks in one transaction (all or nothing: a refused item refuses the
 * request, naming it), then hands the first few tasks to the queue. A repeat with the same
 * Idempotency-Key within a day answers the first batch; the key reused for another request is a 409.
 */
export async function createBatch(ctx: AppContext, auth: AuthUser, input: CreateBatchInput, idempotencyKey: string | undefined) {
  if ((input.items === undefined) === (input.matrix === undefined)) throw fail('batch.items_or_matrix');
  const name = input.name.trim();
  if (!name) throw fail('validation.blank', { field: 'body.name' });
  const items = input.items ?? expandMatrix(input.matrix!, await matrixAccounts(ctx, auth.workspaceId, input.matrix!.account_ids));
  if (items.length > MAX_BATCH_ITEMS) throw fail('batch.too_many_items', { max: MAX_BATCH_ITEMS });
  if (items.length === 0) throw fail('batch.plan_empty');

  const now = ctx.clock.now();
  const stamp = nowIso(now);
  const hash = idempotencyKey ? requestHash(name, items) : null;
  const created = await createOnce(ctx.db, now, {
    key: idempotencyKey,
    hash,
    reused: () => fail('batch.idempotency_reused'),
    find: (db) => repo.findByIdempotencyKey(db, auth.workspaceId, auth.userId, idempotencyKey!),
    release: (db, id) => repo.clearIdempotencyKey(db, auth.workspaceId, id),
    prepare: () => prepareItems(ctx, auth.workspaceId, items),
    insert: async (trx, prepared) => {
      const batch = await repo.insertBatch(trx, {
        workspace_id: auth.workspaceId,
        name,
        created_by: auth.userId,
        status: 'running',
        idempotency_key: idempotencyKey ?? null,
        idempotency_hash: hash,
        created_at: stamp,
        updated_at: stamp,
        finished_at: null,
      });
      const rows = [];
      for (const [i, task] of prepared.entries()) {
        const taskId = await insertPreparedTask(trx, auth, task, stamp, { idempotency_key: null, idempotency_hash: null, batch_id: batch.id });
        rows.push({
          workspace_id: auth.workspaceId,
          batch_id: batch.id,
          seq: i + 1,
          task_id: taskId,
          fission_count: items[i]!.fission_count ?? 0,
          publish_at: items[i]!.publish_at ? new Date(items[i]!.publish_at!).toISOString() : null,
          released_at: null,
          fission_id: null,
          post_id: null,
          post_failure: undefined,
        });
      }
      // SQLite takes at most 32,766 bound values per statement: 10 columns × 500 rows is well inside.
      await repo.insertItems(trx, rows);
      return batch.id;
    },
  });
  if (created.isNew) await feedBatch(ctx, created.id);
  return getBatch(ctx, auth, created.id);
}

/**
 * Hands the batch's next tasks to the queue, keeping BATCH_PARALLEL_TASKS of them queued or
 * generating: batches sharing the `bulk` lane then take turns instead of the first one filling
 * it. Feeders of one batch take turns on its row: two tasks finishing at once (or a task and the
 * sweep) would otherwise each count the same tasks in flight and each fill the window. A released
 * task whose job is lost is the stale-work sweeper's (findStaleBatchTasks).
 */
export async function feedBatch(ctx: AppContext, batchId: number): Promise<number> {
  const window = ctx.config.jobs.batchParallelTasks;
  const released = await ctx.db.transaction().execute(async (trx) => {
    await repo.lockBatch(trx, ctx.dialect, batchId);
    const running = await repo.inFlight(trx, batchId);
    if (running >= window) return [];
    const next = await repo.heldBack(trx, batchId, window - running);
    const at = nowIso(ctx.clock.now());
    const taken: number[] = [];
    for (const item of next) if (await repo.release(trx, [item.id], at)) taken.push(item.task_id);
    return taken;
  });
  for (const taskId of released) {
    await ctx.queue.enqueue(BATCH_TASK_KIND, taskId).catch((err: unknown) => ctx.log.error({ err, taskId, batchId }, 'batch task released but not queued; the sweeper will queue it'));
  }
  return released.length;
}

/** The batch's creator as the one who starts its planned fissions and posts; null once they left the workspace. */
async function actingAs(ctx: AppContext, workspaceId: number, userId: number): Promise<AuthUser | null> {
  const membership = await findMembership(ctx.db, workspaceId, userId);
  if (!membership) return null;
  return { userId, username: '', workspaceId, role: membership.role, tokenVersion: 0, membershipVersion: membership.session_version, taskListVersion: 0 };
}

/**
 * What follows a batch task's run (and every sweep): the next tasks are released, fissions planned
 * for tasks whose notes are written are started, and a batch with nothing left is finished.
 */
export async function advanceBatch(ctx: AppContext, batch: { id: number; workspace_id: number; created_by: number }): Promise<void> {
  await feedBatch(ctx, batch.id);
  const fissions = await repo.fissionsToStart(ctx.db, batch.id);
  const creator = fissions.length > 0 ? await actingAs(ctx, batch.workspace_id, batch.created_by) : null;
  for (const item of fissions) {
    if (!creator) break;
    try {
      const started = await createFission(ctx, creator, { source_task_id: item.task_id, reference_level: BATCH_FISSION_LEVEL, fanout_count: item.fission_count, batch_id: batch.id });
      await repo.setFission(ctx.db, item.id, started.fission_id);
    } catch (err) {
      ctx.log.warn({ err, batchId: batch.id, taskId: item.task_id }, 'planned fission not started');
    }
  }
  if ((await repo.tasksUnsettled(ctx.db, batch.id)) > 0 || (await repo.fissionsRunning(ctx.db, batch.id)) > 0) return;
  if ((await repo.fissionsToStart(ctx.db, batch.id)).length > 0 && creator) return;
  const at = nowIso(ctx.clock.now());
  await repo.updateBatchIf(ctx.db, batch.workspace_id, batch.id, ['running'], { status: 'finished', finished_at: at, updated_at: at });
}

/** Called when a batch task's job ends (done or failed for good). */
export async function afterBatchTask(ctx: AppContext, taskId: number): Promise<void> {
  const item = await repo.itemOfTask(ctx.db, taskId);
  if (!item || item.batch_status !== 'running') return;
  await advanceBatch(ctx, { id: item.batch_id, workspace_id: item.workspace_id, created_by: item.created_by });
}

/**
 * Puts approved notes whose batch planned a post on the calendar at the planned time, as the
 * batch's creator; a refusal (the account's cap or gap, the time passed, a near-duplicate) is kept
 * on the item with its reason, for a person to place the post by hand.
 */
export async function schedulePlannedPosts(ctx: AppContext): Promise<number> {
  const due = await repo.postsToSchedule(ctx.db, 50);
  let scheduled = 0;
  for (const item of due) {
    const creator = await actingAs(ctx, item.workspace_id, item.created_by);
    const refuse = (reason: string, params: Record<string, unknown>) => repo.setPost(ctx.db, item.id, { post_failure: json({ reason, params }) });
    if (!creator) {
      await refuse('auth.not_member', { workspace_id: item.workspace_id });
      continue;
    }
    const strategy = await repo.approvedStrategy(ctx.db, item.workspace_id, item.task_id);
    try {
      if (!strategy || item.account_id === null) throw fail('post.no_text', { task_id: item.task_id, strategy: strategy ?? '-' });
      const post = await createPost(ctx, creator, { account_id: item.account_id, scheduled_at: item.publish_at!, task_id: item.task_id, strategy });
      if (await repo.setPost(ctx.db, item.id, { post_id: post.id })) scheduled++;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await refuse(err.reason, err.params);
    }
  }
  return scheduled;
}

/**
 * Cancels a running batch: its tasks that have not started fail as `failure.batch_cancelled` (a
 * person may still regenerate one), no planned fission or post follows; tasks already generating
 * finish, since their calls are under way and paid for.
 */
export async function cancelBatch(ctx: AppContext, auth: AuthUser, id: number) {
  const batch = await repo.findBatch(ctx.db, auth.workspaceId, id);
  if (!batch) throw fail('batch.not_found');
  const at = nowIso(ctx.clock.now());
  if (!(await repo.updateBatchIf(ctx.db, auth.workspaceId, id, ['running'], { status: 'cancelled', finished_at: at, updated_at: at }))) {
    throw fail('batch.not_running', { id, status: batch.status });
  }
  for (const task of await repo.pendingTasks(ctx.db, auth.workspaceId, id)) {
    await failTaskGeneration(ctx, task, failure('failure.batch_cancelled'));
  }
  return getBatch(ctx, auth, id);
}

export type ItemState = 'waiting' | 'running' | 'done' | 'failed' | 'cancelled';

function stateOf(item: { task_status: string; failure_key: string | null }): ItemState {
  if (item.task_status === 'pending') return 'waiting';
  if (item.task_status === 'generating') return 'running';
  if (item.task_status === 'failed') return item.failure_key === 'failure.batch_cancelled' ? 'cancelled' : 'failed';
  return 'done';
}

type ItemRow = Awaited<ReturnType<typeof repo.itemsWithTasks>>[number];

/**
 * Counts, the measured rate (tasks settled per minute since the batch started) and the finish it
 * predicts for the tasks left: the rate already holds the provider's pace, whatever limits it.
 */
function progressOf(batch: repo.BatchRow, items: ItemRow[], now: Date) {
  const counts: Record<ItemState, number> = { waiting: 0, running: 0, done: 0, failed: 0, cancelled: 0 };
  let lastSettled = 0;
  for (const item of items) {
    const state = stateOf(item);
    counts[state]++;
    if (state === 'done' || state === 'failed') lastSettled = Math.max(lastSettled, Date.parse(item.task_updated_at));
  }
  const settled = counts.done + counts.failed;
  const left = counts.waiting + counts.running;
  const started = Date.parse(batch.created_at);
  const minutes = ((left > 0 ? now.getTime() : lastSettled) - started) / 60_000;
  const rate = settled > 0 && minutes > 0 ? settled / minutes : null;
  const eta = batch.status === 'running' && rate && left > 0 ? new Date(now.getTime() + (left / rate) * 60_000).toISOString() : null;
  return { counts, rate_per_minute: rate === null ? null : Math.round(rate * 100) / 100, eta };
}

function batchView(ctx: AppContext, auth: AuthUser, batch: repo.BatchRow, items: ItemRow[]) {
  return {
    id: batch.id,
    name: batch.name,
    status: batch.status,
    total: items.length,
    ...progressOf(batch, items, ctx.clock.now()),
    created_at: batch.created_at,
    created_by: batch.created_by,
    finished_at: batch.finished_at,
    allowed_actions: batch.status === 'running' && can(auth, 'tasks.write') ? ['cancel' as const] : [],
  };
}

function itemView(item: ItemRow) {
  return {
    seq: item.seq,
    task_id: item.task_id,
    product_id: item.product_id,
    product_name: item.product_name,
    theme: item.theme,
    text_count: item.text_count,
    image_count: item.image_count,
    account_id: item.account_id,
    account_name: item.account_name,
    publish_at: item.publish_at,
    fission_count: item.fission_count,
    fission_id: item.fission_id,
    fission_status: item.fission_status,
    post_id: item.post_id,
    state: stateOf(item),
    task_status: item.task_status,
    failure: item.failure_key ? { reason: item.failure_key as FailureReason, params: (item.failure_params ?? {}) as StoredParams } : null,
    post_failure: item.post_failure as { reason: string; params: StoredParams } | null,
  };
}

/**
 * The pace of the connection the batch's tasks write with, as the pacer holds it now (its budget
 * and how far a 429 turned it down); null where this process cannot see it (an API process
 * without Redis beside separate worker processes) or no task has started. npm start's job thread
 * tells the API thread (providers/pacer-thread.ts).
 */
async function paceOfBatch(ctx: AppContext, batch: repo.BatchRow) {
  const keyId = await repo.textConnectionOf(ctx.db, batch.workspace_id, batch.id);
  if (keyId === null) return null;
  const routes = await resolveConnections(ctx, { workspaceId: batch.workspace_id, operatorId: batch.created_by, recorded: { text: keyId } });
  const state = routes.text ? await paceOf(ctx.providers, routes.text.creds) : null;
  return state && { rpm: state.rpm, factor: state.factor, blocked_until: state.blocked_until };
}

export async function getBatch(ctx: AppContext, auth: AuthUser, id: number) {
  const batch = await repo.findBatch(ctx.db, auth.workspaceId, id);
  if (!batch) throw fail('batch.not_found');
  const items = await repo.itemsWithTasks(ctx.db, auth.workspaceId, [id]);
  return { ...batchView(ctx, auth, batch, items), pace: await paceOfBatch(ctx, batch), items: items.map(itemView) };
}

export async function listBatches(ctx: AppContext, auth: AuthUser, query: PageQuery) {
  const [batches, total] = await Promise.all([repo.listBatches(ctx.db, auth.workspaceId, pageWindow(query)), repo.countBatches(ctx.db, auth.workspaceId)]);
  const items = await repo.itemsWithTasks(ctx.db, auth.workspaceId, batches.map((b) => b.id));
  return pageOf(
    batches.map((b) => batchView(ctx, auth, b, items.filter((i) => i.batch_id === b.id))),
    total,
    query,
  );
}

/** A plan file read against the workspace's products and active accounts; nothing is created. */
export async function readBatchPlan(ctx: AppContext, auth: AuthUser, file: Buffer) {
  const [products, accounts] = await Promise.all([repo.planProducts(ctx.db, auth.workspaceId), repo.activeAccounts(ctx.db, auth.workspaceId)]);
  return readPlan(file, { products, accounts, now: ctx.clock.now() });
}
