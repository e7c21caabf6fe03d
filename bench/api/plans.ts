/**
 * The query plans of GET /tasks for every filter the endpoint takes, on the seeded database of
 * bench/api/run.ts (SQLite, or PostgreSQL when DATABASE_URL is set), with each page's run time.
 *
 *   npx tsx bench/api/plans.ts [tasks=10000]
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/api/plans.ts 1000000
 *   (BENCH_KEEP=<label>: the database seeded by a run before, see setup.ts)
 *
 * The SQL is what the repository compiles (captured from its own queries), so the plans shown
 * are the plans served. Look for: an index matching the filters and the order (no full scan of
 * tasks, no sort of all matching rows), products by primary key.
 */
import { CompiledQuery } from 'kysely';
import type { Db } from '../../server/src/db/database.js';
import * as repo from '../../server/src/modules/tasks/repository.js';
import type { TaskFilters } from '../../server/src/modules/tasks/repository.js';
import { startSeededService } from './setup.js';

const bench = await startSeededService({}, { tasks: Number(process.argv[2] ?? 10_000) });
const { ctx, workspaceId, productIds } = bench;
const dialect = ctx.config.databaseUrl ? 'postgres' : 'sqlite';
if (dialect === 'postgres') await ctx.db.executeQuery(CompiledQuery.raw('ANALYZE'));

// The repository's queries as they are executed, with their parameters.
let captured: CompiledQuery[] = [];
const db = new Proxy(ctx.db, {
  get(target, prop) {
    if (prop === 'executeQuery') {
      return (query: CompiledQuery) => {
        captured.push(query);
        return target.executeQuery(query);
      };
    }
    const value = Reflect.get(target, prop, target);
    return typeof value === 'function' ? value.bind(target) : value;
  },
}) as Db;

const day = (d: string) => ({ value: `${d}T00:00:00.000Z`, inclusive: true as const });
const shapes: [string, TaskFilters][] = [
  ['none', {}],
  ['status', { status: 'approved' }],
  ['product', { productId: productIds[1] }],
  ['status+product', { status: 'approved', productId: productIds[1] }],
  ['from', { from: day('2026-01-05') }],
  ['from+to', { from: day('2026-01-03'), to: { value: '2026-01-04T00:00:00.000Z', inclusive: false } }],
  ['status+from+to', { status: 'failed', from: day('2026-01-03'), to: { value: '2026-01-05T12:00:00.000Z', inclusive: true } }],
  ['product+from', { productId: productIds[0], from: day('2026-01-06') }],
  ['hide archived', { hideArchived: true }],
  ['hide archived+from date-time', { hideArchived: true, from: { value: '2026-01-03T06:30:00.000Z', inclusive: true } }],
  ['from+to date-times', { from: { value: '2026-01-03T06:30:00.000Z', inclusive: true }, to: { value: '2026-01-05T18:00:00.000Z', inclusive: true } }],
];

/** The plan as served: PostgreSQL plans the list's named statement for its values each time (database.ts). */
async function plan(query: CompiledQuery): Promise<string[]> {
  const explain = dialect === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ';
  const { rows } = await ctx.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(explain + query.sql, [...query.parameters]));
  return rows.map((row) => String(dialect === 'sqlite' ? row.detail : row['QUERY PLAN']));
}

for (const [name, filters] of shapes) {
  // The first page, the deepest page by number (page 500 of 20), and a page after a cursor.
  const starts: Array<[string, repo.TaskPageStart]> = [
    ['offset 0', { offset: 0, limit: 20 }],
    ['offset 9980', { offset: 9980, limit: 20 }],
    ['after a cursor', { after: { createdAt: '2026-01-04T00:00:00.000Z', id: 2147483647 }, limit: 20 }],
  ];
  for (const [label, start] of starts) {
    captured = [];
    const started = performance.now();
    const [items, total] = await repo.listTasks(db, ctx.dialect, workspaceId, filters, start);
    const ms = performance.now() - started;
    console.log(`\n## ${name}, ${label}: ${items.length} of ${total} in ${ms.toFixed(2)} ms`);
    for (const query of captured) {
      console.log(`  ${query.sql.slice(0, 60).replace(/"/g, '')}…`);
      for (const line of await plan(query)) console.log(`    ${line}`);
    }
  }
}
await bench.close();
