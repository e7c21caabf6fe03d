import type { DbOrTx } from '../../db/database.js';
import type { NewRow, RowUpdate } from '../../db/schema.js';

const columns = [
  'benchmarks.id',
  'benchmarks.workspace_id',
  'benchmarks.product_id',
  'benchmarks.screenshot_url',
  'benchmarks.screenshot_key',
  'benchmarks.highlights',
  'benchmarks.link_url',
  'benchmarks.features',
  'benchmarks.analyze_status',
  'benchmarks.analysis_source',
  'benchmarks.analysis_warning',
  'benchmarks.analysis_warning_codes',
  'benchmarks.created_at',
  'benchmarks.updated_at',
] as const;

export function listBenchmarks(db: DbOrTx, workspaceId: number, productId: number, page: { offset: number; limit: number }) {
  const base = db.selectFrom('benchmarks').where('workspace_id', '=', workspaceId).where('product_id', '=', productId);
  return Promise.all([
    base.select(columns).orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

export function findBenchmark(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('benchmarks').select(columns).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Benchmarks with their product's name, oldest first (exports). */
export function benchmarksWithProduct(db: DbOrTx, workspaceId: number, productIds?: number[]) {
  let q = db
    .selectFrom('benchmarks')
    .innerJoin('products', 'products.id', 'benchmarks.product_id')
    .select([...columns, 'products.name as product_name'])
    .where('benchmarks.workspace_id', '=', workspaceId);
  if (productIds) {
    if (productIds.length === 0) return Promise.resolve([]);
    q = q.where('benchmarks.product_id', 'in', productIds);
  }
  return q.orderBy('benchmarks.product_id').orderBy('benchmarks.id').execute();
}

export async function insertBenchmark(db: DbOrTx, row: NewRow<'benchmarks'>): Promise<number> {
  const inserted = await db.insertInto('benchmarks').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

/**
 * Claims a benchmark for analysis: pending/done/failed → analyzing. A run whose process died
 * leaves `analyzing` behind; after `staleBefore` it may be claimed again. Returns whether the
 * claim won (a concurrent analysis of the same benchmark loses).
 */
export async function claimAnalysis(db: DbOrTx, workspaceId: number, id: number, staleBefore: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('benchmarks')
    .set({ analyze_status: 'analyzing', updated_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('analyze_status', '!=', 'analyzing'), eb('updated_at', '<', staleBefore)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Writes the outcome of the claimed run (the only writer while the status is `analyzing`). */
export async function finishAnalysis(db: DbOrTx, workspaceId: number, id: number, values: RowUpdate<'benchmarks'>) {
  await db
    .updateTable('benchmarks')
    .set(values)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('analyze_status', '=', 'analyzing')
    .execute();
}

export async function updateBenchmark(db: DbOrTx, workspaceId: number, id: number, values: RowUpdate<'benchmarks'>) {
  await db.updateTable('benchmarks').set(values).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

export async function deleteBenchmark(db: DbOrTx, workspaceId: number, id: number) {
  await db.deleteFrom('benchmarks').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

/** The benchmarks a task was created with (still existing, of its product), by id. */
export function findForTask(db: DbOrTx, workspaceId: number, productId: number, taskId: number) {
  return db
    .selectFrom('benchmarks')
    .innerJoin('task_benchmarks', 'task_benchmarks.benchmark_id', 'benchmarks.id')
    .select(['benchmarks.id', 'benchmarks.highlights', 'benchmarks.features'])
    .where('task_benchmarks.workspace_id', '=', workspaceId)
    .where('task_benchmarks.task_id', '=', taskId)
    .where('benchmarks.workspace_id', '=', workspaceId)
    .where('benchmarks.product_id', '=', productId)
    .orderBy('benchmarks.id')
    .execute();
}
