/**
 * How close any honest GET /tasks can come to a bare static route on this machine.
 *
 *   npx tsx bench/api/floor.ts [seconds=8] [connections=50]
 *
 * Next to the bare route of bench/api/run.ts and the real app, a bare Fastify instance serves
 * the same page from the leanest implementation that still does the work the endpoint must do:
 * verify the bearer token, read the user and membership (a revoked token must fail at once),
 * read the 20-row page with its product names and the total, and JSON.stringify them, straight
 * on better-sqlite3 prepared statements, with no hooks, no validation, no logging, no metrics,
 * no security headers. A second variant is the floor under the app's task-list page cache: the
 * user, the workspace's task-list version, then the cached bytes. The gap between each and the
 * app is what the app adds per request (Kysely, validation, authentication and role rules, rate
 * limit, request id, metrics, security headers).
 * Each is measured with autocannon in a child process, one after another, in one run; prints
 * throughput, p99, server CPU per request and the ratio to the bare route.
 */
import { loadavg } from 'node:os';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import { sqliteFile } from '../../server/src/db/database.js';
import { cannon } from './cannon.js';
import { startSeededService } from './setup.js';

const seconds = Number(process.argv[2] ?? 8);
const connections = Number(process.argv[3] ?? 50);
if (process.env.DATABASE_URL) throw new Error('floor.ts measures the SQLite path; unset DATABASE_URL');

const service = await startSeededService();
const { appUrl, token, ctx } = service;
const uncached = await startSeededService({ TASK_LIST_CACHE_BYTES: '0' });
const listPath = '/api/v1/tasks?page_size=20';
const pageBody = await (await fetch(`${appUrl}${listPath}`, { headers: { authorization: `Bearer ${token}` } })).text();

const sqlite = new SqliteDatabase(sqliteFile(ctx.config.dataDir), { readonly: true });
const userQuery = sqlite.prepare(`select u.id, u.is_active, u.token_version, m.role from users u
  join memberships m on m.user_id = u.id where u.id = ? and m.workspace_id = ?`);
const pageQuery = sqlite.prepare(`select t.id, t.product_id, p.name as product_name, t.theme, t.status, t.created_at,
  t.text_count, t.image_count, t.track, t.need_product_image, t.review_status, t.reject_reason, t.reviewed_at
  from tasks t join products p on p.id = t.product_id where t.workspace_id = ?
  order by t.created_at desc, t.id desc limit ? offset ?`);
const totalQuery = sqlite.prepare('select coalesce(sum(n), 0) as n from task_counts where workspace_id = ?');
const versionQuery = sqlite.prepare('select version from task_list_versions where workspace_id = ?');
const pageBytes = Buffer.from(pageBody);

/** The user behind a bearer token, or undefined: what every request must establish. */
async function user(authorization: string | undefined) {
  const claims = authorization?.startsWith('Bearer ') ? await ctx.tokens.verify(authorization.slice(7)) : undefined;
  if (!claims) return undefined;
  const row = userQuery.get(claims.sub, claims.ws) as { is_active: number; token_version: number } | undefined;
  return row && row.is_active && row.token_version === claims.ver ? claims : undefined;
}

const lean = Fastify({ logger: false });
lean.get('/bare', (_req, reply) => reply.type('application/json; charset=utf-8').send(pageBody));
lean.get('/floor', async (req, reply) => {
  const claims = await user(req.headers.authorization);
  if (!claims) return reply.code(401).send({ code: 40101, message: 'token invalid' });
  const items = pageQuery.all(claims.ws, 20, 0) as Array<Record<string, unknown>>;
  for (const item of items) item.need_product_image = item.need_product_image === 1;
  const { n } = totalQuery.get(claims.ws) as { n: number };
  return reply.type('application/json; charset=utf-8').send(JSON.stringify({ code: 0, message: 'ok', data: { items, total: n, page: 1, page_size: 20 } }));
});
lean.get('/floor-cached', async (req, reply) => {
  const claims = await user(req.headers.authorization);
  if (!claims) return reply.code(401).send({ code: 40101, message: 'token invalid' });
  versionQuery.get(claims.ws);
  return reply.type('application/json; charset=utf-8').send(pageBytes);
});
await lean.listen({ host: '127.0.0.1', port: 0 });
const leanUrl = `http://127.0.0.1:${(lean.server.address() as { port: number }).port}`;

const targets: Array<[string, string, boolean]> = [
  ['bare static route', `${leanUrl}/bare`, false],
  ['leanest honest handler', `${leanUrl}/floor`, true],
  ['leanest, cached page', `${leanUrl}/floor-cached`, true],
  ['the app, GET /tasks', `${appUrl}${listPath}`, true],
  ['the app, cache off', `${uncached.appUrl}${listPath}`, true],
];
console.log(`${connections} connections, ${seconds} s each; body ${Buffer.byteLength(pageBody)} bytes`);
let bareRps = 0;
for (const [label, url, auth] of targets) {
  const headers = auth ? [`authorization=Bearer ${url.startsWith(uncached.appUrl) ? uncached.token : token}`] : [];
  await cannon(url, { connections, seconds, headers }); // warm-up
  const r = await cannon(url, { connections, seconds, headers });
  if (r.non2xx) throw new Error(`${label}: ${r.non2xx} non-2xx answers`);
  bareRps ||= r.rps;
  console.log(
    `${label.padEnd(24)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${String(r.p99).padStart(3)} ms  server CPU ${String(r.cpu_us_per_request).padStart(4)} µs/req  ratio ${(r.rps / bareRps).toFixed(3)}`,
  );
}
console.log(`load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
sqlite.close();
await lean.close();
await service.close();
await uncached.close();
