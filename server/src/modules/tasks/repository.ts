import { sql, type Compilable, type Transaction } from 'kysely';
import { forUpdate, preparedQuery, type DbOrTx, type Dialect } from '../../db/database.js';
import { containsText } from '../../db/search.js';
import type { DB, NewRow, Row, RowUpdate, TaskStatus } from '../../db/schema.js';
import type { StaleWindow } from '../../jobs/types.js';

export type TaskRow = Row<'tasks'>;
export type TextCandidateRow = Row<'text_candidates'>;
export type ImageCandidateRow = Row<'image_candidates'>;
type Strategy = TextCandidateRow['strategy'];

/**
 * The list-item columns, product_name by join (one query for a whole page). Migration
 * 20261123_0200's triggers bump the task-list version when any of these changes (a test ties them).
 */
export const LIST_COLUMNS = [
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

const detailColumns = [...LIST_COLUMNS, 'tasks.progress', 'tasks.generation', 'tasks.failure_reason', 'tasks.failure_key', 'tasks.failure_params', 'tasks.overlay_text', 'tasks.providers'] as const;

export interface TaskFilters {
  status?: TaskStatus | undefined;
  productId?: number | undefined;
  from?: { value: string; inclusive: true } | undefined;
  to?: { value: string; inclusive: boolean } | undefined;
  /** Leave archived tasks out (when no status is asked for). */
  hideArchived?: boolean | undefined;
  keyword?: TaskKeyword | undefined;
}

/**
 * A keyword search (`q`): the task's theme or its product's name contains `text` (case ignored).
 * `gram` is the keyword's character pair that fewest themes hold (the service picks it), or its
 * one character as a prefix of the pairs (task_theme_grams, migration 20261125_1500).
 */
export interface TaskKeyword {
  text: string;
  gram: { equals: string } | { prefix: string };
}

/** A position in the list order (created_at, id), newest first: the page starts after it. */
export interface TaskCursor {
  createdAt: string;
  id: number;
}

/** Where a page starts: an offset (kept within a window by the service) or after a cursor. */
export type TaskPageStart = { offset: number; limit: number } | { after: TaskCursor; limit: number };

/**
 * One page and its total: on PostgreSQL one statement (one round trip; a second one only for a
 * page with no rows), on SQLite two. Compiled once per combination of filters (preparedQuery),
 * so a request pays for running them, not for building SQL. The page reads an index that matches its filters and order
 * (tasks_ws_{created,status,product}_idx, each ending in created_at, id): the first page and a
 * page after a cursor read only their rows; a page at an offset first picks its ids from the
 * index alone and only then reads those rows and their products. The total comes from
 * trigger-kept counters (totalTerms).
 */
export async function listTasks(db: DbOrTx, dialect: Dialect, workspaceId: number, filters: TaskFilters, page: TaskPageStart) {
  if (filters.keyword) return keywordSearch(db, workspaceId, filters, filters.keyword, page);
  const to = filters.to?.value;
  const [toIncl, toExcl] = filters.to?.inclusive ? [to, undefined] : [undefined, to];
  const hideArchived = filters.hideArchived && filters.status === undefined ? true : undefined;
  const after = 'after' in page ? page.after : undefined;
  const offset = 'offset' in page && page.offset > 0 ? page.offset : undefined;
  const filterArgs: FilterArgs = [workspaceId, filters.status, filters.productId, filters.from?.value, toIncl, toExcl, hideArchived];
  const args = [...totalTerms(filters), ...filterArgs] as const;
  if (dialect === 'sqlite') {
    // A statement is a function call here, not a round trip: the plain page and the total alone
    // cost less than the page carrying the total on every row.
    const [rows, [total]] = await Promise.all([pageAlone(db, page.limit, offset, after?.createdAt, after?.id, ...filterArgs), totalAlone(db, ...args)]);
    return [rows, Number(total?.total ?? 0)] as const;
  }
  const rows = await pageWithTotal(db, page.limit, offset, after?.createdAt, after?.id, ...args);
  const total = rows.length > 0 ? rows[0]!.total : (await totalAlone(db, ...args))[0]?.total;
  return [rows.map(({ total: _, ...item }) => item), Number(total ?? 0)] as const;
}

/** The largest number of a pair's themes counted when choosing the rarest pair of a keyword. */
const GRAM_COUNT_CAP = 5000;

/** How many tasks of the workspace hold each pair, up to GRAM_COUNT_CAP: an index range each. */
export function gramFrequencies(db: DbOrTx, workspaceId: number, grams: string[]) {
  return Promise.all(
    grams.map((gram) =>
      db
        .selectFrom((eb) =>
          eb.selectFrom('task_theme_grams').select('task_id').where('workspace_id', '=', workspaceId).where('gram', '=', gram).limit(GRAM_COUNT_CAP).as('hits'),
        )
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((row) => ({ gram, n: Number(row.n) })),
    ),
  );
}

/** Past the last character (U+10FFFF in UTF-8 sorts after every other): the end of a prefix range. */
const LAST_CHARACTER = '\u{10FFFF}';

/**
 * A keyword's page and total. Candidates are read from two indexes, never from every task of the
 * workspace: the task ids holding the keyword's chosen pair (a primary-key range of
 * task_theme_grams) and the tasks of the products whose name contains it (products of the
 * workspace, then tasks_ws_product_created_idx). Only those rows are checked for the whole keyword
 * and the other filters, sorted newest first and cut into the page, so the cost follows how many
 * tasks the keyword's rarest pair and matching products hold, not the size of the workspace.
 * The total is exact (counted on the same candidates): counters cannot know a keyword.
 */
async function keywordSearch(db: DbOrTx, workspaceId: number, filters: TaskFilters, keyword: TaskKeyword, page: TaskPageStart) {
  const themePairs = db.selectFrom('task_theme_grams').select('task_id as id').where('workspace_id', '=', workspaceId);
  const byTheme =
    'equals' in keyword.gram
      ? themePairs.where('gram', '=', keyword.gram.equals)
      : themePairs.where('gram', '>=', keyword.gram.prefix).where('gram', '<', `${keyword.gram.prefix}${LAST_CHARACTER}`);
  // The products first (a workspace has few): a product branch planned blind would be estimated
  // at every task of the workspace, and PostgreSQL would then scan them all.
  const productIds = (
    await db.selectFrom('products').select('products.id').where('products.workspace_id', '=', workspaceId).where(containsText('products.name', keyword.text)).execute()
  ).map((p) => p.id);
  const candidates =
    productIds.length === 0
      ? byTheme
      : byTheme.union(db.selectFrom('tasks').select('tasks.id').where('tasks.workspace_id', '=', workspaceId).where('tasks.product_id', 'in', productIds));
  const to = filters.to?.value;
  const matching = filteredTasks(
    db,
    workspaceId,
    filters.status,
    filters.productId,
    filters.from?.value,
    filters.to?.inclusive ? to : undefined,
    filters.to && !filters.to.inclusive ? to : undefined,
    filters.hideArchived && filters.status === undefined ? true : undefined,
  )
    .innerJoin('products', 'products.id', 'tasks.product_id')
    .where('tasks.id', 'in', candidates)
    .where((eb) =>
      productIds.length === 0 ? containsText('tasks.theme', keyword.text) : eb.or([containsText('tasks.theme', keyword.text), eb('tasks.product_id', 'in', productIds)]),
    );
  let pageRows = matching;
  if ('after' in page) {
    const { createdAt, id } = page.after;
    pageRows = pageRows.where((eb) => eb(eb.refTuple('tasks.created_at', 'tasks.id'), '<', eb.tuple(createdAt, id)));
  }
  const offset = 'offset' in page ? page.offset : 0;
  return Promise.all([
    pageRows.select(LIST_COLUMNS).orderBy('tasks.created_at', 'desc').orderBy('tasks.id', 'desc').limit(page.limit).offset(offset).execute(),
    // Every match of the filters, wherever the page starts (as without a keyword).
    matching.select((eb) => eb.fn.countAll<number>().as('n')).execute().then(count),
  ]);
}

type FilterArgs = [
  workspaceId: number,
  status: TaskStatus | undefined,
  productId: number | undefined,
  from: string | undefined,
  toIncl: string | undefined,
  toExcl: string | undefined,
  hideArchived?: true | undefined,
];

function filteredTasks(db: DbOrTx, ...[workspaceId, status, productId, from, toIncl, toExcl, hideArchived]: FilterArgs) {
  let query = db.selectFrom('tasks').where('tasks.workspace_id', '=', workspaceId);
  if (status !== undefined) query = query.where('tasks.status', '=', status);
  if (hideArchived !== undefined) query = query.where('tasks.status', '!=', 'archived');
  if (productId !== undefined) query = query.where('tasks.product_id', '=', productId);
  if (from !== undefined) query = query.where('tasks.created_at', '>=', from);
  if (toIncl !== undefined) query = query.where('tasks.created_at', '<=', toIncl);
  if (toExcl !== undefined) query = query.where('tasks.created_at', '<', toExcl);
  return query;
}

const MIDNIGHT = 'T00:00:00.000Z';
const nextDay = (day: string) => new Date(Date.parse(`${day}${MIDNIGHT}`) + 86_400_000).toISOString().slice(0, 10);

/** A part of a date range counted exactly on the index: [lower, upper]. */
type ExactTerm = [lower: string | undefined, upperIncl: string | undefined, upperExcl: string | undefined];
const NO_TERM: ExactTerm = [undefined, undefined, undefined];

type TotalTerms = [
  /** No date range: the (product, status) counters of task_counts. */
  counters: true | undefined,
  /** Whole UTC days [firstDay, endDay) from task_day_counts (either end open). */
  days: true | undefined,
  firstDay: string | undefined,
  endDay: string | undefined,
  ...head: ExactTerm,
  ...tail: ExactTerm,
];

/**
 * How the total of a list is counted, in O(days) however many tasks it holds: without a date
 * range from task_counts (a row per product and status); with one, the whole UTC days inside it
 * from task_day_counts, and the tasks of a partial first or last day (a date-time bound inside a
 * day) counted exactly on the index, which reads that one day's rows at most. Bounds are ISO UTC
 * (parseDateBound).
 */
function totalTerms(filters: TaskFilters): TotalTerms {
  const from = filters.from?.value;
  const to = filters.to;
  if (from === undefined && to === undefined) return [true, undefined, undefined, undefined, ...NO_TERM, ...NO_TERM];
  const exact = (lower: string | undefined, upper: { value: string; inclusive: boolean } | undefined): ExactTerm => [
    lower,
    upper?.inclusive ? upper.value : undefined,
    upper && !upper.inclusive ? upper.value : undefined,
  ];
  // Whole days start at from's day if from is its midnight, else the day after (from's day is partial).
  const fromDay = from?.slice(0, 10);
  const firstDay = from === undefined ? undefined : from === `${fromDay}${MIDNIGHT}` ? fromDay : nextDay(fromDay!);
  // Whole days end before to's day; to's day is partial unless to is an exclusive midnight.
  const toDay = to?.value.slice(0, 10);
  const tailIsPartial = to !== undefined && (to.inclusive || to.value !== `${toDay}${MIDNIGHT}`);
  // Inside one day (or two partial ones): no whole day, one exact count.
  if (firstDay !== undefined && toDay !== undefined && firstDay > toDay) return [undefined, undefined, undefined, undefined, ...exact(from, to), ...NO_TERM];
  const head = from !== undefined && firstDay !== fromDay ? exact(from, { value: `${firstDay}${MIDNIGHT}`, inclusive: false }) : NO_TERM;
  const tail = tailIsPartial ? exact(`${toDay}${MIDNIGHT}`, to) : NO_TERM;
  return [undefined, true, firstDay, toDay, ...head, ...tail];
}

const count = ([row]: Array<{ n: number | string | null }>) => Number(row?.n ?? 0);

/** Product 0 and status '*' of task_day_counts stand for any product, any status. */
const ANY_PRODUCT = 0;
const ANY_STATUS = '*';

/** The total as one expression: a sum of scalar subqueries over the counters and the partial days. */
function totalExpression(db: DbOrTx, terms: TotalTerms, filters: FilterArgs) {
  const [counters, days, firstDay, endDay, headLower, headIncl, headExcl, tailLower, tailIncl, tailExcl] = terms;
  const [workspaceId, status, productId, , , , hideArchived] = filters;
  const sum = (table: 'task_counts' | 'task_day_counts') =>
    db.selectFrom(table).select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n')).where('workspace_id', '=', workspaceId);
  const parts: Array<Compilable<{ n: number }>> = [];
  if (counters) {
    let query = sum('task_counts');
    if (status !== undefined) query = query.where('status', '=', status);
    if (hideArchived !== undefined) query = query.where('status', '!=', 'archived');
    if (productId !== undefined) query = query.where('product_id', '=', productId);
    parts.push(query);
  }
  if (days) {
    // Each status has its own rows beside '*': without archived tasks, every status but those two.
    let query = sum('task_day_counts').where('product_id', '=', productId ?? ANY_PRODUCT);
    if (status !== undefined) query = query.where('status', '=', status);
    else if (hideArchived !== undefined) query = query.where('status', 'not in', [ANY_STATUS, 'archived'] as TaskStatus[]);
    else query = query.where('status', '=', ANY_STATUS as TaskStatus);
    if (firstDay !== undefined) query = query.where('day', '>=', firstDay);
    if (endDay !== undefined) query = query.where('day', '<', endDay);
    parts.push(query);
  }
  for (const [lower, upperIncl, upperExcl] of [[headLower, headIncl, headExcl], [tailLower, tailIncl, tailExcl]] as const) {
    if (lower === undefined && upperIncl === undefined && upperExcl === undefined) continue;
    parts.push(filteredTasks(db, workspaceId, status, productId, lower, upperIncl, upperExcl, hideArchived).select((eb) => eb.fn.countAll<number>().as('n')));
  }
  return sql<number>`${sql.join(parts, sql` + `)}`;
}

const TERMS = 10;
const splitArgs = (args: [...TotalTerms, ...FilterArgs]) => [args.slice(0, TERMS) as TotalTerms, args.slice(TERMS) as FilterArgs] as const;

/** The page's rows, newest first (afterAt and afterId: after a cursor). */
function pageQuery(db: DbOrTx, limit: number, offset: number | undefined, afterAt: string | undefined, afterId: number | undefined, filters: FilterArgs) {
  let matching = filteredTasks(db, ...filters);
  if (afterAt !== undefined && afterId !== undefined) {
    matching = matching.where((eb) => eb(eb.refTuple('tasks.created_at', 'tasks.id'), '<', eb.tuple(afterAt, afterId)));
  }
  const newestFirst = <Q extends { orderBy: (...a: any[]) => any }>(query: Q): Q =>
    query.orderBy('tasks.created_at', 'desc').orderBy('tasks.id', 'desc');
  if (offset === undefined) return newestFirst(matching.innerJoin('products', 'products.id', 'tasks.product_id').select(LIST_COLUMNS)).limit(limit);
  // Skipping rows costs an index entry each, not a table row and a product lookup each.
  const ids = newestFirst(matching.select('tasks.id')).limit(limit).offset(offset);
  return newestFirst(db.selectFrom('tasks').innerJoin('products', 'products.id', 'tasks.product_id').select(LIST_COLUMNS).where('tasks.id', 'in', ids));
}

const pageAlone = preparedQuery(
  (db, limit: number, offset: number | undefined, afterAt: string | undefined, afterId: number | undefined, ...filters: FilterArgs) =>
    pageQuery(db, limit, offset, afterAt, afterId, filters),
);

/**
 * The page with its total on every row: the total's subqueries do not depend on the row, so
 * PostgreSQL runs them once for the statement (an InitPlan).
 */
const pageWithTotal = preparedQuery(
  (db, limit: number, offset: number | undefined, afterAt: string | undefined, afterId: number | undefined, ...args: [...TotalTerms, ...FilterArgs]) => {
    const [terms, filters] = splitArgs(args);
    return pageQuery(db, limit, offset, afterAt, afterId, filters).select(totalExpression(db, terms, filters).as('total'));
  },
);

/** The total alone, for a page with no row to carry it (past the end, or nothing matches). */
const totalAlone = preparedQuery((db, ...args: [...TotalTerms, ...FilterArgs]) => {
  const [terms, filters] = splitArgs(args);
  return db.selectNoFrom(totalExpression(db, terms, filters).as('total'));
});

/**
 * The finished first image of every set of the given tasks (seq 1, every generation and variant),
 * with whether it is selected: the service picks each task's cover among them. Tasks of another
 * workspace yield none.
 */
export function coverImages(db: DbOrTx, workspaceId: number, taskIds: number[]) {
  return db
    .selectFrom('image_candidates')
    .select(['task_id', 'strategy', 'file_key', 'is_selected', 'generation', 'id'])
    .where('workspace_id', '=', workspaceId)
    .where('task_id', 'in', taskIds)
    .where('seq', '=', 1)
    .where('status', '=', 'done')
    .where('file_key', 'is not', null)
    .$narrowType<{ task_id: number }>()
    .execute();
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

/**
 * Changes a task only while it is in one of `from` (and, when given, still on `generation`): a
 * double submit cannot move it twice, a late run cannot touch a newer generation.
 */
export async function updateTaskIf(
  db: DbOrTx,
  workspaceId: number,
  id: number,
  from: readonly TaskStatus[],
  changes: RowUpdate<'tasks'>,
  generation?: number,
): Promise<boolean> {
  let query = db.updateTable('tasks').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).where('status', 'in', from);
  if (generation !== undefined) query = query.where('generation', '=', generation);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A task by id alone, across workspaces: for background jobs, which carry only the id (everything they read next is scoped by its workspace). */
export function findTaskById(db: DbOrTx, id: number) {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findTaskByIdempotencyKey(db: DbOrTx, workspaceId: number, operatorId: number, key: string) {
  return db
    .selectFrom('tasks')
    .select(['id', 'created_at', 'idempotency_hash'])
    .where('workspace_id', '=', workspaceId)
    .where('operator_id', '=', operatorId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** Frees an expired key for reuse (the unique index would refuse it otherwise). */
export async function clearIdempotencyKey(db: DbOrTx, workspaceId: number, taskId: number) {
  await db.updateTable('tasks').set({ idempotency_key: null, idempotency_hash: null }).where('workspace_id', '=', workspaceId).where('id', '=', taskId).execute();
}

export async function insertTask(db: DbOrTx, row: NewRow<'tasks'>): Promise<number> {
  const inserted = await db.insertInto('tasks').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

/** Links the task to its benchmarks, in the order given. */
export async function insertTaskBenchmarks(db: DbOrTx, workspaceId: number, taskId: number, benchmarkIds: number[]) {
  if (benchmarkIds.length === 0) return;
  await db
    .insertInto('task_benchmarks')
    .values(benchmarkIds.map((benchmark_id, position) => ({ workspace_id: workspaceId, task_id: taskId, benchmark_id, position })))
    .execute();
}

export async function taskBenchmarkIds(db: DbOrTx, workspaceId: number, taskId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('task_benchmarks')
    .select('benchmark_id')
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .orderBy('position')
    .execute();
  return rows.map((r) => r.benchmark_id);
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
export function listTextCandidates(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('text_candidates')
    .selectAll()
    .where('workspace_id', '=', workspaceId).where('task_id', '=', taskId)
    .orderBy((eb) => eb.case().when('strategy', 'is', null).then(1).else(0).end())
    .orderBy('strategy')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function listImageCandidates(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('image_candidates')
    .selectAll()
    .where('workspace_id', '=', workspaceId).where('task_id', '=', taskId)
    .orderBy('strategy')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findTextCandidate(db: DbOrTx, workspaceId: number, taskId: number, id: number) {
  return db.selectFrom('text_candidates').selectAll().where('workspace_id', '=', workspaceId).where('task_id', '=', taskId).where('id', '=', id).executeTakeFirst();
}

export function findImageCandidate(db: DbOrTx, workspaceId: number, taskId: number, id: number) {
  return db.selectFrom('image_candidates').selectAll().where('workspace_id', '=', workspaceId).where('task_id', '=', taskId).where('id', '=', id).executeTakeFirst();
}

/** Clears the other selected text of the candidate's set (one selected text per set). */
export async function deselectOtherTexts(db: DbOrTx, workspaceId: number, taskId: number, strategy: Strategy, keepId: number, now: string) {
  let query = db
    .updateTable('text_candidates')
    .set({ is_selected: false, updated_at: now })
    .where('workspace_id', '=', workspaceId).where('task_id', '=', taskId)
    .where('is_selected', '=', true)
    .where('id', '!=', keepId);
  query = strategy === null ? query.where('strategy', 'is', null) : query.where('strategy', '=', strategy);
  await query.execute();
}

/** Flips the flag only when it differs; true when this call changed it (one signal per change). */
export async function setTextSelected(db: DbOrTx, workspaceId: number, id: number, selected: boolean, now: string): Promise<boolean> {
  const result = await db
    .updateTable('text_candidates')
    .set({ is_selected: selected, updated_at: now })
    .where('workspace_id', '=', workspaceId).where('id', '=', id)
    .where('is_selected', '=', !selected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function setImageSelected(db: DbOrTx, workspaceId: number, id: number, selected: boolean): Promise<boolean> {
  const result = await db
    .updateTable('image_candidates')
    .set({ is_selected: selected })
    .where('workspace_id', '=', workspaceId).where('id', '=', id)
    .where('is_selected', '=', !selected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function updateTextCandidate(db: DbOrTx, workspaceId: number, id: number, changes: RowUpdate<'text_candidates'>) {
  return db.updateTable('text_candidates').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function insertTextCandidate(db: DbOrTx, row: NewRow<'text_candidates'>) {
  return db.insertInto('text_candidates').values(row).returningAll().executeTakeFirstOrThrow();
}

export function countTextsByStrategy(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('text_candidates')
    .select(['strategy', (eb) => eb.fn.countAll<number>().as('n')])
    .where('workspace_id', '=', workspaceId).where('task_id', '=', taskId)
    .groupBy('strategy')
    .execute();
}

export async function nextTextSlot(db: DbOrTx, workspaceId: number, taskId: number, generation: number): Promise<number> {
  const row = await db
    .selectFrom('text_candidates')
    .select((eb) => eb.fn.max('slot').as('slot'))
    .where('workspace_id', '=', workspaceId).where('task_id', '=', taskId)
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
    .returning(['workspace_id', 'user_id', 'token_version', 'session_version'])
    .executeTakeFirst();
}

// ---- generation runs -----------------------------------------------------------------------

export function textCandidatesOf(db: DbOrTx, workspaceId: number, taskId: number, generation: number) {
  return db
    .selectFrom('text_candidates')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .where('generation', '=', generation)
    .orderBy('slot')
    .execute();
}

/** Texts of the task over all generations, newest first (import track: what its images illustrate). */
export function latestTextsOf(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('text_candidates')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .orderBy('id', 'desc')
    .execute();
}

export function countTextCandidates(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('text_candidates')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

export function imageSlotsOf(db: DbOrTx, workspaceId: number, taskId: number, generation: number) {
  return db
    .selectFrom('image_candidates')
    .select(['strategy', 'seq', 'status'])
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .where('generation', '=', generation)
    .where('variant', '=', 0)
    .execute();
}

/** Inserts the candidates whose slot is still free (a re-run never duplicates); returns those inserted. */
export async function insertTextCandidates(db: DbOrTx, rows: NewRow<'text_candidates'>[]): Promise<Row<'text_candidates'>[]> {
  const inserted: Row<'text_candidates'>[] = [];
  for (const row of rows) {
    const result = await db
      .insertInto('text_candidates')
      .values(row)
      .onConflict((oc) => oc.columns(['task_id', 'generation', 'slot']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (result) inserted.push(result);
  }
  return inserted;
}

export function insertImageCandidate(db: DbOrTx, row: NewRow<'image_candidates'>) {
  return db
    .insertInto('image_candidates')
    .values(row)
    .onConflict((oc) => oc.columns(['task_id', 'generation', 'strategy', 'seq', 'variant']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/**
 * The stale-work sweeper's rule for task generation, across workspaces: tasks still waiting for
 * their first run, or generating under a lapsed lease, untouched since `staleBeforeIso`; not a batch's.
 */
export async function findStaleGenerations(db: DbOrTx, window: StaleWindow): Promise<number[]> {
  const rows = await db
    .selectFrom('tasks')
    .select('id')
    // A batch's tasks are its feeder's and its own job kind's (batches/repository.ts findStaleBatchTasks).
    .where('batch_id', 'is', null)
    .where('updated_at', '<', window.staleBeforeIso)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'pending'),
        eb.and([eb('status', '=', 'generating'), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', window.nowIso)])]),
      ]),
    )
    .orderBy('id')
    .limit(window.limit)
    .execute();
  return rows.map((r) => r.id);
}

/** The next free variant of an image slot (0 is the generation's own image). */
export async function nextImageVariant(db: DbOrTx, workspaceId: number, taskId: number, slot: Pick<ImageCandidateRow, 'generation' | 'strategy' | 'seq'>): Promise<number> {
  const row = await db
    .selectFrom('image_candidates')
    .select((eb) => eb.fn.max('variant').as('top'))
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .where('generation', '=', slot.generation)
    .where('strategy', '=', slot.strategy)
    .where('seq', '=', slot.seq)
    .executeTakeFirst();
  return row?.top === null || row?.top === undefined ? 0 : Number(row.top) + 1;
}

export function updateImageCandidate(db: DbOrTx, workspaceId: number, id: number, changes: RowUpdate<'image_candidates'>) {
  return db.updateTable('image_candidates').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).returningAll().executeTakeFirst();
}

/** The images of the task's latest generation that failed (retry-images makes them again). */
export function failedImagesOfGeneration(db: DbOrTx, workspaceId: number, taskId: number, generation: number) {
  return db
    .selectFrom('image_candidates')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .where('generation', '=', generation)
    .where('status', '=', 'failed')
    .orderBy('id')
    .execute();
}

/** For the `task.images` job, which carries the task id only: the images queued to be made. */
export function pendingImagesOf(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('image_candidates')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .where('status', '=', 'pending')
    .orderBy('id')
    .execute();
}

/**
 * The stale-work sweeper's rule for single images, across workspaces: tasks with an image queued
 * (regenerate, retry) and untouched since `staleBeforeIso` (a lost job, a crash before enqueue).
 */
export async function findStaleImages(db: DbOrTx, window: StaleWindow): Promise<number[]> {
  const rows = await db
    .selectFrom('image_candidates')
    .select('task_id')
    .distinct()
    .where('status', '=', 'pending')
    .where('task_id', 'is not', null)
    .where('updated_at', '<', window.staleBeforeIso)
    .$narrowType<{ task_id: number }>()
    .orderBy('task_id')
    .limit(window.limit)
    .execute();
  return rows.map((r) => r.task_id);
}

export async function taskHasSelectedImage(db: DbOrTx, workspaceId: number, taskId: number): Promise<boolean> {
  const row = await db.selectFrom('image_candidates').select('id').where('workspace_id', '=', workspaceId).where('task_id', '=', taskId).where('is_selected', '=', true).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Selects `image` and deselects every other version of its slot (same set and seq); returns the row as stored. */
export async function selectOnlyInSlot(db: DbOrTx, workspaceId: number, image: Pick<Row<'image_candidates'>, 'id' | 'task_id' | 'strategy' | 'seq'>) {
  await db
    .updateTable('image_candidates')
    .set({ is_selected: false })
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', image.task_id)
    .where('strategy', '=', image.strategy)
    .where('seq', '=', image.seq)
    .where('id', '<>', image.id)
    .execute();
  return db.updateTable('image_candidates').set({ is_selected: true }).where('workspace_id', '=', workspaceId).where('id', '=', image.id).returningAll().executeTakeFirstOrThrow();
}
