/**
 * The seeded service the API benches measure: a fresh data directory with SQLite, or a fresh
 * database on the PostgreSQL server DATABASE_URL names, the real app listening on a random port, a logged-in admin token, two
 * products and 10,000 tasks (or as many as asked) of mixed status one minute apart from
 * 2026-01-01, so 1,440 a day.
 *
 * BENCH_KEEP=<label> keeps the seeded database for the next run instead of dropping it, and uses
 * the one a run before kept when it holds the same number of tasks (migrated to the latest
 * schema first, as on an upgrade): SQLite in bench/out/keep/<label>-<tasks>/, PostgreSQL as the
 * database cps_bench_<label>_<tasks> on DATABASE_URL's server. Seeding a million tasks takes
 * minutes (more on PostgreSQL); a kept one starts in seconds. Drop it by hand when done
 * (`rm -r bench/out/keep`, `dropdb -h 127.0.0.1 -U postgres cps_bench_<label>_<tasks>`).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator, sql, type MigrationResultSet } from 'kysely';
import pg from 'pg';
import { migrations } from '../../server/src/db/migrations/index.js';
import { buildApp, type App } from '../../server/src/app.js';
import { bootstrap } from '../../server/src/bootstrap.js';
import { loadConfig } from '../../server/src/config.js';
import type { AppContext } from '../../server/src/context.js';
import { createRuntime } from '../../server/src/runtime.js';
import { freshPostgresDatabase } from '../../server/test/helpers/server.js';

export const TASKS = 10_000;

export interface BenchService {
  app: App;
  ctx: AppContext;
  /** http://127.0.0.1:<port> */
  appUrl: string;
  token: string;
  workspaceId: number;
  productIds: number[];
  close(): Promise<void>;
}

/** `env` adds to (or overrides) the service's configuration; `tasks` is how many to seed (10,000). */
export async function startSeededService(env: Record<string, string> = {}, opts: { tasks?: number } = {}): Promise<BenchService> {
  const count = opts.tasks ?? TASKS;
  const kept = process.env.BENCH_KEEP ? await keptDatabase(process.env.BENCH_KEEP, count) : undefined;
  const dir = kept?.dir ?? mkdtempSync(path.join(tmpdir(), 'cps-bench-api-'));
  const postgres = kept ? kept.postgres : process.env.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL) : undefined;
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dir,
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    ADMIN_PASSWORD: 'bench-password-1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000',
    ...env,
  });
  const runtime = await createRuntime(config, { worker: false });
  const { ctx } = runtime;
  await bootstrap(ctx);
  const app = await buildApp(ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const appUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

  async function call(method: string, p: string, token?: string, body?: unknown) {
    const send = () =>
      fetch(`${appUrl}/api/v1${p}`, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    // After a seed of minutes the pooled connection has passed the server's keep-alive timeout:
    // it is reset on first use, and the request goes again on a new one.
    const res = await send().catch(send);
    const parsed = (await res.json()) as { data: any };
    if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(parsed)}`);
    return parsed.data;
  }

  const reused = kept !== undefined && (await seededCount(ctx)) === count;
  const login = async () => (await call('POST', '/auth/login', undefined, { username: 'admin', password: 'bench-password-2' })).token as string;
  let token: string;
  let products: Array<{ id: number }>;
  if (reused) {
    token = await login();
    products = (await call('GET', '/products?page_size=100', token)).items;
    console.log(`using the kept database of ${count.toLocaleString('en')} tasks (BENCH_KEEP)`);
  } else {
    if (kept && (await seededCount(ctx)) !== undefined) throw new Error(`the kept database in ${kept.postgres?.url ?? dir} is not the one of ${count} tasks: drop it`);
    const first = await call('POST', '/auth/login', undefined, { username: 'admin', password: 'bench-password-1' });
    token = (await call('POST', '/auth/change-password', first.token, { current_password: 'bench-password-1', new_password: 'bench-password-2' })).token;
    products = [
      await call('POST', '/products', token, { name: '云朵保湿霜', category: '护肤', source: 'custom' }),
      await call('POST', '/products', token, { name: '轻盈防晒乳', category: '护肤', source: 'custom' }),
    ];
    const me = await call('GET', '/auth/me', token);
    await seedTasks(ctx, { count, workspaceId: me.current_workspace_id, operatorId: me.id, productIds: products.map((p) => p.id) });
    // Rolling migrations back and up again for a large seed ends the sessions made before it.
    token = await login();
  }
  const me = await call('GET', '/auth/me', token);

  return {
    app,
    ctx,
    appUrl,
    token,
    workspaceId: me.current_workspace_id,
    productIds: products.map((p) => p.id as number),
    close: async () => {
      await app.close();
      await runtime.close();
      if (kept) return;
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The kept database of `label` and `count` tasks, created empty if there is none yet. */
async function keptDatabase(label: string, count: number): Promise<{ dir: string; postgres?: { url: string } }> {
  if (!/^[a-z0-9_]+$/.test(label)) throw new Error('BENCH_KEEP: lower-case letters, digits and _ only');
  const dir = path.resolve(import.meta.dirname, '..', 'out', 'keep', `${label}-${count}`);
  mkdirSync(dir, { recursive: true });
  const base = process.env.DATABASE_URL;
  if (!base) return { dir };
  const name = `cps_bench_${label}_${count}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (!rowCount) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { dir, postgres: { url: url.toString() } };
}

/**
 * Tasks of a kept database by its counters: undefined before any product (nothing seeded yet),
 * NaN if a seeding was cut short (its counter tables rolled back).
 */
async function seededCount(ctx: AppContext): Promise<number | undefined> {
  const products = await ctx.db.selectFrom('products').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  if (Number(products.n) === 0) return undefined;
  const tasks = await ctx.db.selectFrom('task_counts').select((eb) => eb.fn.sum<number>('n').as('n')).executeTakeFirst().catch(() => undefined);
  return tasks ? Number(tasks.n ?? 0) : Number.NaN;
}

const SEED_BATCH = 50_000;
/** The last migration before the first one that puts a counting trigger on tasks. */
const BEFORE_COUNTERS = '20261122_0600_task_events';

async function migrated(result: Promise<MigrationResultSet>) {
  const { error } = await result;
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
const SEED_START = Date.parse('2026-01-01T00:00:00Z') / 1000;

/**
 * Tasks n = 0 … count-1 in one INSERT … SELECT per 50,000 (a generated series), inside the
 * database: task n has product n mod 2, status n mod 5, created_at 2026-01-01 + n minutes.
 * Triggers that keep counters cost a row update per task each, which on PostgreSQL takes tens of
 * minutes for a million in one go; above 10,000 tasks the migrations that add those counters are
 * therefore rolled back first and applied again after the insert, so their own backfill counts
 * the tasks, as on an upgrade of a large database. PostgreSQL is vacuumed and analysed after, as
 * autovacuum would have done by the time a workspace holds that many tasks.
 */
async function seedTasks(ctx: AppContext, opts: { count: number; workspaceId: number; operatorId: number; productIds: number[] }) {
  const pg = Boolean(ctx.config.databaseUrl);
  const started = performance.now();
  process.stdout.write(`seeding ${opts.count.toLocaleString('en')} tasks… `);
  const [p0, p1] = opts.productIds as [number, number];
  // PostgreSQL types a bare parameter in a SELECT list as text.
  const int = (value: number) => sql`CAST(${value} AS INTEGER)`;
  const status = sql`CASE n % 5 WHEN 0 THEN 'pending_selection' WHEN 1 THEN 'approved' WHEN 2 THEN 'pending_review' WHEN 3 THEN 'archived' ELSE 'failed' END`;
  const migrator = new Migrator({ db: ctx.db, provider: { getMigrations: async () => migrations } });
  const bulk = opts.count > 10_000;
  if (bulk) await migrated(migrator.migrateTo(BEFORE_COUNTERS));
  for (let lo = 0; lo < opts.count; lo += SEED_BATCH) {
    const hi = Math.min(opts.count, lo + SEED_BATCH);
    const series = pg
      ? sql`generate_series(${lo}::integer, ${hi - 1}::integer) AS s(n)`
      : sql`(WITH RECURSIVE s(n) AS (SELECT ${lo} UNION ALL SELECT n + 1 FROM s WHERE n + 1 < ${hi}) SELECT n FROM s)`;
    const at = pg ? sql`to_timestamp(${SEED_START}::bigint + n * 60)` : sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${SEED_START} + n * 60, 'unixepoch')`;
    // Before the counters' migration tasks still had the benchmark_ids column (20261128_0100 made it rows).
    await sql`INSERT INTO tasks (workspace_id, product_id, operator_id, theme, text_count, image_count, track, status, ${bulk ? sql`benchmark_ids,` : sql``}
        need_product_image, overlay_text, generation, progress, created_at, updated_at)
      SELECT ${int(opts.workspaceId)}, CASE n % 2 WHEN 0 THEN ${int(p0)} ELSE ${int(p1)} END, ${int(opts.operatorId)}, '主题 ' || n || '：秋冬换季的保湿护理', 3, 3, 'ai', ${status},
        ${bulk ? (pg ? sql`'[]'::jsonb,` : sql`'[]',`) : sql``} ${pg ? sql`false` : sql`0`}, ${pg ? sql`true` : sql`1`}, 1,
        ${pg ? sql`'{"stage":"image","done":9,"total":9}'::jsonb` : sql`'{"stage":"image","done":9,"total":9}'`}, ${at}, ${at}
      FROM ${series}`.execute(ctx.db);
  }
  if (bulk) await migrated(migrator.migrateToLatest());
  if (pg) await sql`VACUUM ANALYZE`.execute(ctx.db);
  console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
}
