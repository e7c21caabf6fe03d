import type { Transaction } from 'kysely';
import { forUpdate, type DbOrTx, type Dialect } from '../db/database.js';
import { json } from '../db/codec.js';
import type { DB, NewRow, Row, RowUpdate, TaskStatus } from '../db/schema.js';

/**
 * The pipeline's reads and writes. A job carries only the task id, so the task is looked up by
 * id alone; every other query is scoped by the task's workspace.
 */

export function findTask(db: DbOrTx, taskId: number) {
  return db.selectFrom('tasks').selectAll().where('id', '=', taskId).executeTakeFirst();
}

/** Holds the task row until the transaction ends (PostgreSQL; SQLite serialises writers anyway). */
export async function lockTask(trx: Transaction<DB>, dialect: Dialect, taskId: number): Promise<void> {
  await forUpdate(trx.selectFrom('tasks').select('id').where('id', '=', taskId), dialect).executeTakeFirst();
}

/** Changes a task only while it is in one of `from` (and, when given, still on `generation`). */
export async function updateTaskIf(
  db: DbOrTx,
  taskId: number,
  from: readonly TaskStatus[],
  changes: RowUpdate<'tasks'>,
  generation?: number,
): Promise<boolean> {
  let query = db.updateTable('tasks').set(changes).where('id', '=', taskId).where('status', 'in', from);
  if (generation !== undefined) query = query.where('generation', '=', generation);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function findProduct(db: DbOrTx, workspaceId: number, productId: number) {
  return db.selectFrom('products').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', productId).executeTakeFirst();
}

export function findBenchmarks(db: DbOrTx, workspaceId: number, productId: number, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('benchmarks')
    .select(['id', 'highlights', 'features'])
    .where('workspace_id', '=', workspaceId)
    .where('product_id', '=', productId)
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
}

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
    .select(['strategy', 'seq'])
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .where('generation', '=', generation)
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
    .onConflict((oc) => oc.columns(['task_id', 'generation', 'strategy', 'seq']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** The paid-call ledger: a result stored under its call key survives a crash of the run that paid for it. */
export function findCall(db: DbOrTx, workspaceId: number, callKey: string) {
  return db
    .selectFrom('provider_calls')
    .select('result')
    .where('workspace_id', '=', workspaceId)
    .where('call_key', '=', callKey)
    .executeTakeFirst();
}

/**
 * A result that names a stored file (an image: `{file_key, mime}`) records it in `file_key` too,
 * so the unused-file sweep keeps the file for a re-run that reuses this entry.
 */
export async function saveCall(db: DbOrTx, workspaceId: number, callKey: string, result: unknown, at: string): Promise<void> {
  const fileKey = (result as { file_key?: unknown } | null)?.file_key;
  await db
    .insertInto('provider_calls')
    .values({ call_key: callKey, workspace_id: workspaceId, result: json(result), file_key: typeof fileKey === 'string' ? fileKey : null, created_at: at })
    .onConflict((oc) => oc.column('call_key').doNothing())
    .execute();
}
