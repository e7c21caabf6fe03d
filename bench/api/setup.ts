/**
 * The seeded service the API benches measure: a fresh data directory with SQLite, or a fresh
 * database on the PostgreSQL server DATABASE_URL names, the real app listening on a random port, a logged-in admin token, two
 * products and 10,000 tasks of mixed status one minute apart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp, type App } from '../../server/src/app.js';
import { bootstrap } from '../../server/src/bootstrap.js';
import { loadConfig } from '../../server/src/config.js';
import type { AppContext } from '../../server/src/context.js';
import { json } from '../../server/src/db/codec.js';
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

/** `env` adds to (or overrides) the service's configuration. */
export async function startSeededService(env: Record<string, string> = {}): Promise<BenchService> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cps-bench-api-'));
  const postgres = process.env.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL) : undefined;
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
    const res = await fetch(`${appUrl}/api/v1${p}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const parsed = (await res.json()) as { data: any };
    if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(parsed)}`);
    return parsed.data;
  }

  const login = await call('POST', '/auth/login', undefined, { username: 'admin', password: 'bench-password-1' });
  const token = (await call('POST', '/auth/change-password', login.token, { current_password: 'bench-password-1', new_password: 'bench-password-2' }))
    .token as string;
  const me = await call('GET', '/auth/me', token);
  const products = [
    await call('POST', '/products', token, { name: '云朵保湿霜', category: '护肤', source: 'custom' }),
    await call('POST', '/products', token, { name: '轻盈防晒乳', category: '护肤', source: 'custom' }),
  ];

  console.log(`seeding ${TASKS} tasks…`);
  const statuses = ['pending_selection', 'approved', 'pending_review', 'archived', 'failed'] as const;
  const start = Date.parse('2026-01-01T00:00:00Z');
  await ctx.db.transaction().execute(async (trx) => {
    for (let i = 0; i < TASKS; i += 500) {
      const rows = Array.from({ length: Math.min(500, TASKS - i) }, (_, k) => {
        const n = i + k;
        const at = new Date(start + n * 60_000).toISOString();
        return {
          workspace_id: me.current_workspace_id,
          product_id: products[n % 2].id,
          operator_id: me.id,
          theme: `主题 ${n}：秋冬换季的保湿护理`,
          text_count: 3,
          image_count: 3,
          track: 'ai' as const,
          status: statuses[n % statuses.length]!,
          benchmark_ids: json([]),
          need_product_image: false,
          overlay_text: true,
          generation: 1,
          progress: json({ stage: 'image', done: 9, total: 9 }),
          created_at: at,
          updated_at: at,
        };
      });
      await trx.insertInto('tasks').values(rows).execute();
    }
  });

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
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
