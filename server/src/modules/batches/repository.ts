import { forUpdate, type Dialect, type DbOrTx } from '../../db/database.js';
import type { BatchStatus, NewRow, Row, RowUpdate } from '../../db/schema.js';
import type { StaleWindow } from '../../jobs/types.js';

export type BatchRow = Row<'batches'>;

export function insertBatch(db: DbOrTx, row: NewRow<'batches'>) {
  return db.insertInto('batches').values(row).returningAll().executeTakeFirstOrThrow();
}

export function insertItems(db: DbOrTx, rows: Array<NewRow<'batch_items'>>) {
  return db.insertInto('batch_items').values(rows).execute();
}

export function findBatch(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('batches').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function findByIdempotencyKey(db: DbOrTx, workspaceId: number, userId: number, key: string) {
  return db
    .selectFrom('batches')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('created_by', '=', userId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

export async function clearIdempotencyKey(db: DbOrTx, workspaceId: number, id: number) {
  await db.updateTable('batches').set({ idempotency_key: null, idempotency_hash: null }).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

export function listBatches(db: DbOrTx, workspaceId: number, page: { offset: number; limit: number }) {
  return db.selectFrom('batches').selectAll().where('workspace_id', '=', workspaceId).orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute();
}

export async function countBatches(db: DbOrTx, workspaceId: number): Promise<number> {
  const row = await db.selectFrom('batches').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Moves a batch only from the statuses named: of two racing moves one wins. */
export async function updateBatchIf(db: DbOrTx, workspaceId: number, id: number, from: BatchStatus[], changes: RowUpdate<'batches'>): Promise<boolean> {
  const result = await db.updateTable('batches').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Items with their task's state, in order: the progress view and the counts. */
export function itemsWithTasks(db: DbOrTx, workspaceId: number, batchIds: number[]) {
  if (batchIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('batch_items as i')
    .innerJoin('tasks as t', 't.id', 'i.task_id')
    .innerJoin('products as p', 'p.id', 't.product_id')
    .leftJoin('accounts as a', 'a.id', 't.account_id')
    .leftJoin('fission_tasks as f', 'f.id', 'i.fission_id')
    .select([
      'i.batch_id',
      'i.seq',
      'i.task_id',
      'i.fission_count',
      'i.publish_at',
      'i.released_at',
      'i.fission_id',
      'i.post_id',
      'i.post_failure',
      't.status as task_status',
      't.failure_key',
      't.failure_params',
      't.theme',
      't.text_count',
      't.image_count',
      't.product_id',
      't.updated_at as task_updated_at',
      'p.name as product_name',
      't.account_id',
      'a.name as account_name',
      'f.status as fission_status',
    ])
    .where('i.workspace_id', '=', workspaceId)
    .where('i.batch_id', 'in', batchIds)
    .orderBy('i.batch_id')
    .orderBy('i.seq')
    .execute();
}

/** Holds the batch's row until the transaction ends: its feeders take turns (PostgreSQL; SQLite's one writer already does). */
export function lockBatch(db: DbOrTx, dialect: Dialect, batchId: number) {
  return forUpdate(db.selectFrom('batches').select('id').where('id', '=', batchId), dialect).executeTakeFirst();
}

/**
 * Feeding a batch: how many of its tasks are in flight (handed to the queue and not settled), and
 * the next ones still held back, in order. Held back means pending and never released.
 */
export async function inFlight(db: DbOrTx, batchId: number): Promise<number> {
  const row = await db
    .selectFrom('batch_items as i')
    .innerJoin('tasks as t', 't.id', 'i.task_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('i.batch_id', '=', batchId)
    .where('i.released_at', 'is not', null)
    .where('t.status', 'in', ['pending', 'generating'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function heldBack(db: DbOrTx, batchId: number, limit: number) {
  return db
    .selectFrom('batch_items as i')
    .innerJoin('tasks as t', 't.id', 'i.task_id')
    .select(['i.id', 'i.task_id'])
    .where('i.batch_id', '=', batchId)
    .where('i.released_at', 'is', null)
    .where('t.status', '=', 'pending')
    .orderBy('i.seq')
    .limit(limit)
    .execute();
}

/** Marks held-back items released; answers those this call released (a racing feed releases the others). */
export async function release(db: DbOrTx, itemIds: number[], at: string): Promise<number> {
  if (itemIds.length === 0) return 0;
  const result = await db.updateTable('batch_items').set({ released_at: at }).where('id', 'in', itemIds).where('released_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Tasks of the batch that have not started, to fail when it is cancelled. */
export function pendingTasks(db: DbOrTx, workspaceId: number, batchId: number) {
  return db.selectFrom('tasks').select(['id', 'workspace_id', 'status']).where('workspace_id', '=', workspaceId).where('batch_id', '=', batchId).where('status', '=', 'pending').execute();
}

/** Batches still running, for the sweeper, across workspaces. */
export function runningBatches(db: DbOrTx, limit: number) {
  return db.selectFrom('batches').select(['id', 'workspace_id', 'created_by']).where('status', '=', 'running').orderBy('id').limit(limit).execute();
}

export function itemOfTask(db: DbOrTx, taskId: number) {
  return db
    .selectFrom('batch_items as i')
    .innerJoin('batches as b', 'b.id', 'i.batch_id')
    .select(['i.id', 'i.batch_id', 'i.workspace_id', 'i.fission_count', 'i.fission_id', 'b.status as batch_status', 'b.created_by'])
    .where('i.task_id', '=', taskId)
    .executeTakeFirst();
}

/** Items whose planned fission can start: the task has written texts and no fission was made for it. */
export function fissionsToStart(db: DbOrTx, batchId: number) {
  return db
    .selectFrom('batch_items as i')
    .innerJoin('tasks as t', 't.id', 'i.task_id')
    .select(['i.id', 'i.task_id', 'i.fission_count'])
    .where('i.batch_id', '=', batchId)
    .where('i.fission_count', '>', 0)
    .where('i.fission_id', 'is', null)
    .where('t.status', 'not in', ['pending', 'generating', 'failed'])
    .orderBy('i.seq')
    .execute();
}

export async function setFission(db: DbOrTx, itemId: number, fissionId: number): Promise<boolean> {
  const result = await db.updateTable('batch_items').set({ fission_id: fissionId }).where('id', '=', itemId).where('fission_id', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Fissions of the batch still generating: the batch is not finished while one runs. */
export async function fissionsRunning(db: DbOrTx, batchId: number): Promise<number> {
  const row = await db
    .selectFrom('fission_tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('batch_id', '=', batchId)
    .where('status', '=', 'generating')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Tasks of the batch not settled yet (pending or generating). */
export async function tasksUnsettled(db: DbOrTx, batchId: number): Promise<number> {
  const row = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('batch_id', '=', batchId)
    .where('status', 'in', ['pending', 'generating'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Planned posts whose note was approved and that are not on the calendar yet, across workspaces
 * (a cancelled batch's plan is off).
 */
export function postsToSchedule(db: DbOrTx, limit: number) {
  return db
    .selectFrom('batch_items as i')
    .innerJoin('tasks as t', 't.id', 'i.task_id')
    .innerJoin('batches as b', 'b.id', 'i.batch_id')
    .select(['i.id', 'i.workspace_id', 'i.task_id', 'i.publish_at', 't.account_id', 'b.created_by'])
    .where('t.status', '=', 'approved')
    .where('i.publish_at', 'is not', null)
    .where('i.post_id', 'is', null)
    .where('i.post_failure', 'is', null)
    .where('b.status', '!=', 'cancelled')
    .orderBy('i.id')
    .limit(limit)
    .execute();
}

export async function setPost(db: DbOrTx, itemId: number, changes: Pick<RowUpdate<'batch_items'>, 'post_id' | 'post_failure'>): Promise<boolean> {
  const result = await db.updateTable('batch_items').set(changes).where('id', '=', itemId).where('post_id', 'is', null).where('post_failure', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The stale-work rule of a batch's tasks, across workspaces: released and still pending, or
 * generating under a lapsed lease, untouched since `staleBeforeIso` (tasks held back are the
 * feeder's, not stale).
 */
export async function findStaleBatchTasks(db: DbOrTx, window: StaleWindow): Promise<number[]> {
  const rows = await db
    .selectFrom('tasks as t')
    .innerJoin('batch_items as i', 'i.task_id', 't.id')
    .select('t.id')
    .where('t.batch_id', 'is not', null)
    .where('t.updated_at', '<', window.staleBeforeIso)
    .where((eb) =>
      eb.or([
        eb.and([eb('t.status', '=', 'pending'), eb('i.released_at', 'is not', null)]),
        eb.and([eb('t.status', '=', 'generating'), eb.or([eb('t.lease_until', 'is', null), eb('t.lease_until', '<', window.nowIso)])]),
      ]),
    )
    .orderBy('t.id')
    .limit(window.limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Lookups a plan file names products and accounts by. */
export function planProducts(db: DbOrTx, workspaceId: number) {
  return db.selectFrom('products').select(['id', 'name']).where('workspace_id', '=', workspaceId).orderBy('id').execute();
}

export function activeAccounts(db: DbOrTx, workspaceId: number) {
  return db.selectFrom('accounts').select(['id', 'name', 'timezone']).where('workspace_id', '=', workspaceId).where('active', '=', true).orderBy('id').execute();
}

/** The set whose text is selected in an approved task (the one a post carries); the first by strategy. */
export async function approvedStrategy(db: DbOrTx, workspaceId: number, taskId: number): Promise<'A' | 'B' | 'C' | null> {
  const row = await db
    .selectFrom('text_candidates')
    .select('strategy')
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .where('is_selected', '=', true)
    .where('strategy', 'is not', null)
    .orderBy('strategy')
    .executeTakeFirst();
  return row?.strategy ?? null;
}

/** The text connection the batch's most recently started task used. */
export async function textConnectionOf(db: DbOrTx, workspaceId: number, batchId: number): Promise<number | null> {
  const row = await db
    .selectFrom('tasks')
    .select('api_key_id')
    .where('workspace_id', '=', workspaceId)
    .where('batch_id', '=', batchId)
    .where('api_key_id', 'is not', null)
    .orderBy('updated_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.api_key_id ?? null;
}
