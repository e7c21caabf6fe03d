import type { Transaction } from 'kysely';
import { forUpdate, preparedQuery, type DbOrTx, type Dialect } from '../../db/database.js';
import type { DB, NewRow, Row, RowUpdate, TaskStatus } from '../../db/schema.js';

export type TaskRow = Row<'tasks'>;
export type TextCandidateRow = Row<'text_candidates'>;
export type ImageCandidateRow = Row<'image_candidates'>;
type Strategy = TextCandidateRow['strategy'];

/** The list-item columns, product_name by join (one query for a whole page). */
const listColumns = [
  'tasks.id',
  'tasks.product_id',
  'products.name as product_name',
  'tasks.theme',
  'tasks.status',
  'tasks.created_at',
  'tasks.text_count',
  'tasks.image_count',
  'tasks.track',
  'tasks.need_product_image',
  'tasks.review_status',
  'tasks.reject_reason',
  'tasks.reviewed_at',
] as const;

const detailColumns = [...listColumns, 'tasks.benchmark_ids', 'tasks.progress', 'tasks.generation', 'tasks.failure_reason'] as const;

export interface TaskFilters {
  status?: TaskStatus | undefined;
  productId?: number | undefined;
  from?: { value: string; inclusive: true } | undefined;
  to?: { value: string; inclusive: boolean } | undefined;
}

/**
 * One page and its total. Both are compiled once per combination of filters (preparedQuery), so
 * a request pays for running them, not for building SQL. The page reads an index that matches
 * its filters and order (tasks_ws_{created,status,product}_idx, each ending in created_at, id)
 * and joins products by primary key; the total comes from the trigger-kept counters unless a
 * date range asks for a count over that range.
 */
export function listTasks(db: DbOrTx, workspaceId: number, filters: TaskFilters, page: { offset: number; limit: number }) {
  const to = filters.to?.value;
  const [toIncl, toExcl] = filters.to?.inclusive ? [to, undefined] : [undefined, to];
  const args = [workspaceId, filters.status, filters.productId, filters.from?.value, toIncl, toExcl] as const;
  return Promise.all([
    pageQuery(db, page.limit, page.offset, ...args),
    (filters.from || filters.to
      ? rangeCount(db, ...args)
      : counterTotal(db, workspaceId, filters.status, filters.productId)
    ).then(([row]) => Number(row?.n ?? 0)),
  ]);
}

type FilterArgs = [
  workspaceId: number,
  status: TaskStatus | undefined,
  productId: number | undefined,
  from: string | undefined,
  toIncl: string | undefined,
  toExcl: string | undefined,
];

function filteredTasks(db: DbOrTx, ...[workspaceId, status, productId, from, toIncl, toExcl]: FilterArgs) {
  let query = db.selectFrom('tasks').where('tasks.workspace_id', '=', workspaceId);
  if (status !== undefined) query = query.where('tasks.status', '=', status);
  if (productId !== undefined) query = query.where('tasks.product_id', '=', productId);
  if (from !== undefined) query = query.where('tasks.created_at', '>=', from);
  if (toIncl !== undefined) query = query.where('tasks.created_at', '<=', toIncl);
  if (toExcl !== undefined) query = query.where('tasks.created_at', '<', toExcl);
  return query;
}

const pageQuery = preparedQuery((db, limit: number, offset: number, ...filters: FilterArgs) =>
  filteredTasks(db, ...filters)
    .innerJoin('products', 'products.id', 'tasks.product_id')
    .select(listColumns)
    .orderBy('tasks.created_at', 'desc')
    .orderBy('tasks.id', 'desc')
    .limit(limit)
    .offset(offset),
);

const rangeCount = preparedQuery((db, ...args: FilterArgs) =>
  filteredTasks(db, ...args).select((eb) => eb.fn.countAll<number>().as('n')),
);

/** The total without a date range, from the trigger-kept counters: a few rows, not every task. */
const counterTotal = preparedQuery((db, workspaceId: number, status: TaskStatus | undefined, productId: number | undefined) => {
  let query = db
    .selectFrom('task_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n'))
    .where('workspace_id', '=', workspaceId);
  if (status !== undefined) query = query.where('status', '=', status);
  if (productId !== undefined) query = query.where('product_id', '=', productId);
  return query;
});

const listVersion = preparedQuery((db, workspaceId: number) =>
  db.selectFrom('task_list_versions').select('version').where('workspace_id', '=', workspaceId),
);

/** The workspace's task-list version (see the task_list_versions migration); 0 before its first task. */
export async function taskListVersion(db: DbOrTx, workspaceId: number): Promise<number> {
  const [row] = await listVersion(db, workspaceId);
  return row?.version ?? 0;
}

export function findTaskDetail(db: DbOrTx, workspaceId: number, id: number) {
  return db
    .selectFrom('tasks')
    .innerJoin('products', 'products.id', 'tasks.product_id')
    .select(detailColumns)
    .where('tasks.workspace_id', '=', workspaceId)
    .where('tasks.id', '=', id)
    .executeTakeFirst();
}

export function findTask(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('tasks').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** The task row, locked until the transaction ends (PostgreSQL; SQLite serialises writers anyway). */
export function lockTask(trx: Transaction<DB>, dialect: Dialect, workspaceId: number, id: number) {
  return forUpdate(
    trx.selectFrom('tasks').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id),
    dialect,
  ).executeTakeFirst();
}

/** Moves a task only if it is still in one of `from`: a double submit cannot move it twice. */
export async function transitionTask(db: DbOrTx, id: number, from: readonly TaskStatus[], changes: RowUpdate<'tasks'>): Promise<boolean> {
  const result = await db.updateTable('tasks').set(changes).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function findTaskByIdempotencyKey(db: DbOrTx, workspaceId: number, operatorId: number, key: string) {
  return db
    .selectFrom('tasks')
    .select(['id', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('operator_id', '=', operatorId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** Frees an expired key for reuse (the unique index would refuse it otherwise). */
export async function clearIdempotencyKey(db: DbOrTx, taskId: number) {
  await db.updateTable('tasks').set({ idempotency_key: null }).where('id', '=', taskId).execute();
}

export async function insertTask(db: DbOrTx, row: NewRow<'tasks'>): Promise<number> {
  const inserted = await db.insertInto('tasks').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

export function findBenchmarks(db: DbOrTx, workspaceId: number, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('benchmarks')
    .select(['id', 'product_id', 'highlights'])
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .execute();
}

/** Display order of task detail: by strategy set (legacy null last), then creation. */
export function listTextCandidates(db: DbOrTx, taskId: number) {
  return db
    .selectFrom('text_candidates')
    .selectAll()
    .where('task_id', '=', taskId)
    .orderBy((eb) => eb.case().when('strategy', 'is', null).then(1).else(0).end())
    .orderBy('strategy')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function listImageCandidates(db: DbOrTx, taskId: number) {
  return db
    .selectFrom('image_candidates')
    .selectAll()
    .where('task_id', '=', taskId)
    .orderBy('strategy')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findTextCandidate(db: DbOrTx, taskId: number, id: number) {
  return db.selectFrom('text_candidates').selectAll().where('task_id', '=', taskId).where('id', '=', id).executeTakeFirst();
}

export function findImageCandidate(db: DbOrTx, taskId: number, id: number) {
  return db.selectFrom('image_candidates').selectAll().where('task_id', '=', taskId).where('id', '=', id).executeTakeFirst();
}

/** Clears the other selected text of the candidate's set (one selected text per set). */
export async function deselectOtherTexts(db: DbOrTx, taskId: number, strategy: Strategy, keepId: number, now: string) {
  let query = db
    .updateTable('text_candidates')
    .set({ is_selected: false, updated_at: now })
    .where('task_id', '=', taskId)
    .where('is_selected', '=', true)
    .where('id', '!=', keepId);
  query = strategy === null ? query.where('strategy', 'is', null) : query.where('strategy', '=', strategy);
  await query.execute();
}

/** Flips the flag only when it differs; true when this call changed it (one signal per change). */
export async function setTextSelected(db: DbOrTx, id: number, selected: boolean, now: string): Promise<boolean> {
  const result = await db
    .updateTable('text_candidates')
    .set({ is_selected: selected, updated_at: now })
    .where('id', '=', id)
    .where('is_selected', '=', !selected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function setImageSelected(db: DbOrTx, id: number, selected: boolean): Promise<boolean> {
  const result = await db
    .updateTable('image_candidates')
    .set({ is_selected: selected })
    .where('id', '=', id)
    .where('is_selected', '=', !selected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function updateTextCandidate(db: DbOrTx, id: number, changes: RowUpdate<'text_candidates'>) {
  return db.updateTable('text_candidates').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function insertTextCandidate(db: DbOrTx, row: NewRow<'text_candidates'>) {
  return db.insertInto('text_candidates').values(row).returningAll().executeTakeFirstOrThrow();
}

export function countTextsByStrategy(db: DbOrTx, taskId: number) {
  return db
    .selectFrom('text_candidates')
    .select(['strategy', (eb) => eb.fn.countAll<number>().as('n')])
    .where('task_id', '=', taskId)
    .groupBy('strategy')
    .execute();
}

export async function nextTextSlot(db: DbOrTx, taskId: number, generation: number): Promise<number> {
  const row = await db
    .selectFrom('text_candidates')
    .select((eb) => eb.fn.max('slot').as('slot'))
    .where('task_id', '=', taskId)
    .where('generation', '=', generation)
    .executeTakeFirst();
  return row?.slot === null || row?.slot === undefined ? 0 : Number(row.slot) + 1;
}

export async function insertTicket(db: DbOrTx, row: NewRow<'one_time_tokens'>) {
  await db.insertInto('one_time_tokens').values(row).execute();
}

/** Spent and expired SSE tickets are of no use to anyone; keep the table small. */
export async function deleteStaleTickets(db: DbOrTx, before: string) {
  await db.deleteFrom('one_time_tokens').where('kind', '=', 'sse').where('expires_at', '<', before).execute();
}

/**
 * Spends a ticket in one statement: of two concurrent opens, exactly one UPDATE finds
 * used_at still null. Returns who it was issued to, or undefined for any unusable ticket.
 */
export function consumeTicket(db: DbOrTx, hash: string, taskId: number, now: string) {
  return db
    .updateTable('one_time_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', hash)
    .where('kind', '=', 'sse')
    .where('subject_id', '=', taskId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['workspace_id', 'user_id'])
    .executeTakeFirst();
}

/** The ticket's user must still be active and a member of the ticket's workspace. */
export async function userActiveInWorkspace(db: DbOrTx, userId: number, workspaceId: number): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .innerJoin('memberships', 'memberships.user_id', 'users.id')
    .select('users.is_active')
    .where('users.id', '=', userId)
    .where('memberships.workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row?.is_active === true;
}
