/**
 * GET /tasks?page_size=20 against a bare Fastify route, in one run.
 *
 *   npx tsx bench/api/run.ts [seconds=10] [connections=50]
 *
 * Seeds 10,000 tasks (two products) into a fresh SQLite database, starts the real app, and
 * serves from a bare Fastify instance a static JSON body of the same size as the real first
 * page. autocannon runs in a child process (so it does not share this event loop), first
 * against the bare route, then against the real one with a bearer token: authentication, rate
 * limit, validation, the list query with its count and product join, and serialisation are all
 * in the measured path. Request logging is off in both (LOG_LEVEL=warn) and the rate limit is
 * raised so it counts but never refuses. Prints both throughputs, their p99 latencies and the
 * ratio (targets: ratio ≥ 0.4, p99 ≤ 25 ms); writes bench/out/api.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { buildApp } from '../../server/src/app.js';
import { bootstrap } from '../../server/src/bootstrap.js';
import { loadConfig } from '../../server/src/config.js';
import { json } from '../../server/src/db/codec.js';
import { createRuntime } from '../../server/src/runtime.js';

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 50);
const TASKS = 10_000;
const root = path.resolve(import.meta.dirname, '..', '..');

const dir = mkdtempSync(path.join(tmpdir(), 'cps-bench-api-'));
const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dir, ADMIN_PASSWORD: 'bench-password-1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000000' });
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
const token = (await call('POST', '/auth/change-password', login.token, { current_password: 'bench-password-1', new_password: 'bench-password-2' })).token as string;
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

const listPath = '/api/v1/tasks?page_size=20';
const page = await fetch(`${appUrl}${listPath}`, { headers: { authorization: `Bearer ${token}` } });
const pageBody = await page.text();
if (page.status !== 200 || JSON.parse(pageBody).data.items.length !== 20) throw new Error(`list failed: ${pageBody.slice(0, 200)}`);

const bare = Fastify({ logger: false });
bare.get('/bare', (_req, reply) => reply.type('application/json; charset=utf-8').send(pageBody));
await bare.listen({ host: '127.0.0.1', port: 0 });
const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/bare`;

interface Result {
  rps: number;
  p99: number;
  p50: number;
  non2xx: number;
  errors: number;
}

/** autocannon's CLI in its own process; its JSON report on stdout. */
function cannon(url: string, headers: string[] = []): Promise<Result> {
  return new Promise((resolve, reject) => {
    const args = [path.join(root, 'node_modules', 'autocannon', 'autocannon.js'), '-c', String(connections), '-d', String(seconds), '-j', ...headers.flatMap((h) => ['-H', h]), url];
    // Asynchronous: this process must keep serving while autocannon runs.
    import('node:child_process').then(({ execFile }) =>
      execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
        if (err) return reject(err);
        const r = JSON.parse(stdout);
        resolve({ rps: r.requests.average, p99: r.latency.p99, p50: r.latency.p50, non2xx: r.non2xx, errors: r.errors });
      }),
    );
  });
}

console.log(`body ${Buffer.byteLength(pageBody)} bytes; ${connections} connections, ${seconds} s each`);
await cannon(bareUrl); // warm-up of the client and the JIT on both sides
const bareResult = await cannon(bareUrl);
await cannon(`${appUrl}${listPath}`, [`authorization=Bearer ${token}`]);
const apiResult = await cannon(`${appUrl}${listPath}`, [`authorization=Bearer ${token}`]);

const ratio = apiResult.rps / bareResult.rps;
const report = {
  tasks: TASKS,
  connections,
  seconds,
  body_bytes: Buffer.byteLength(pageBody),
  bare: bareResult,
  api: apiResult,
  ratio: Number(ratio.toFixed(3)),
  targets: { ratio: 0.4, p99_ms: 25 },
  pass: ratio >= 0.4 && apiResult.p99 <= 25 && apiResult.non2xx === 0 && apiResult.errors === 0,
};
console.log(`bare Fastify      ${bareResult.rps.toFixed(0).padStart(7)} req/s   p50 ${bareResult.p50} ms   p99 ${bareResult.p99} ms`);
console.log(`GET /tasks (20)   ${apiResult.rps.toFixed(0).padStart(7)} req/s   p50 ${apiResult.p50} ms   p99 ${apiResult.p99} ms   non-2xx ${apiResult.non2xx}, errors ${apiResult.errors}`);
console.log(`ratio ${ratio.toFixed(3)} (target ≥ 0.4), p99 ${apiResult.p99} ms (target ≤ 25 ms): ${report.pass ? 'PASS' : 'FAIL'}`);
mkdirSync(path.join(root, 'bench', 'out'), { recursive: true });
writeFileSync(path.join(root, 'bench', 'out', 'api.json'), `${JSON.stringify(report, null, 2)}\n`);

await bare.close();
await app.close();
await runtime.close();
rmSync(dir, { recursive: true, force: true });
