/**
 * Where the time of one GET /tasks?page_size=20 goes, in CPU microseconds per call.
 *
 *   npx tsx bench/api/breakdown.ts
 *
 * Runs each stage of the request on its own, sequentially, many times on the seeded service of
 * bench/api/run.ts, and reports the best of several rounds of process CPU time (user + system)
 * per call. CPU time rather than wall time because this machine is shared: other processes
 * stretch wall time, not the CPU a call needs. Stages, from the floor up:
 *   - sqlite row floor: the same page query on the same connection's prepared statement, bypassing Kysely;
 *   - token: signature and claims check; authenticate: that plus the user/membership query;
 *   - list repository: the page query and the total through Kysely; list service: with parsing;
 *   - inject GET /healthz / GET /tasks: a whole request through Fastify without a socket
 *     (app.inject): the app's global hooks (helmet, request id, metrics) around a trivial
 *     public route, and the real one.
 * The socket and the load generator come on top (bench/api/run.ts).
 */
import { authenticate } from '../../server/src/http/auth.js';
import * as repo from '../../server/src/modules/tasks/repository.js';
import * as service from '../../server/src/modules/tasks/service.js';
import { startSeededService } from './setup.js';

const bench = await startSeededService();
const { app, ctx, token, workspaceId } = bench;
const user = await authenticate(ctx, token);

async function measure(label: string, calls: number, fn: () => unknown): Promise<number> {
  for (let i = 0; i < calls; i++) await fn(); // warm-up: JIT, caches
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) await fn();
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / calls);
  }
  console.log(`${label.padEnd(28)} ${best.toFixed(1).padStart(7)} µs`);
  return best;
}

const rows: Record<string, number> = {};
const page = { offset: 0, limit: 20 };
const query = { page: 1, page_size: 20 };
rows.token = await measure('token verify', 5000, () => ctx.tokens.verify(token));
rows.authenticate = await measure('authenticate (token + user)', 5000, () => authenticate(ctx, token));
rows.repository = await measure('list repository (page+total)', 2000, () => repo.listTasks(ctx.db, ctx.dialect, workspaceId, {}, page));
rows.service = await measure('list service', 2000, () => service.listTasks(ctx, user, query));
const headers = { authorization: `Bearer ${token}` };
rows.inject_healthz = await measure('inject GET /healthz', 2000, () => app.inject({ method: 'GET', url: '/healthz' }));
rows.inject_list = await measure('inject GET /tasks', 2000, async () => {
  const res = await app.inject({ method: 'GET', url: '/api/v1/tasks?page_size=20', headers });
  if (res.statusCode !== 200) throw new Error(`GET /tasks: ${res.statusCode} ${res.body.slice(0, 200)}`);
});
console.log(JSON.stringify(Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, Number(v.toFixed(1))]))));
await bench.close();
