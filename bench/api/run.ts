/**
 * GET /tasks?page_size=20 against a bare Fastify route, in one run.
 *
 *   npx tsx bench/api/run.ts [seconds=10] [connections=50] [rounds=3]
 *
 * Seeds 10,000 tasks (two products) into a fresh SQLite database (setup.ts; a fresh PostgreSQL
 * database when DATABASE_URL is set), starts the real app, and
 * serves from a bare Fastify instance a static JSON body of the same size as the real first
 * page. autocannon runs in a child process (so it does not share this event loop), first
 * against the bare route, then against the real one with a bearer token: authentication, rate
 * limit, validation, the list query with its count and product join, and serialisation are all
 * in the measured path. Request logging is off in both (LOG_LEVEL=warn) and the rate limit is
 * raised so it counts but never refuses. A repeated page is answered from the task-list page
 * cache, checked against the list version the session's statement reads
 * (modules/tasks/list-cache.ts); the same service with the cache turned off (TASK_LIST_CACHE_BYTES=0) is measured as well, for what a page costs
 * when it has changed. Prints the throughputs, p99 latencies and the ratio (targets: ratio ≥
 * 0.4, p99 ≤ 25 ms, for the endpoint as served, cache on), and the server's CPU time per
 * request of each (this process's user + system time over the run), which other load on a
 * shared machine moves far less than throughput. The three run in interleaved rounds (bare,
 * served, cache off; again), so a change in the machine's load falls on all three, and the
 * ratios are the medians of the rounds' own ratios. Writes bench/out/api.json with the load average.
 * bench/api/breakdown.ts splits one request into its stages; bench/api/plans.ts shows the plans.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { cannon, type CannonResult } from './cannon.js';
import { startSeededService, TASKS } from './setup.js';

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 50);
const rounds = Number(process.argv[4] ?? 3);
const root = path.resolve(import.meta.dirname, '..', '..');

const service = await startSeededService();
const { appUrl, token } = service;
const uncached = await startSeededService({ TASK_LIST_CACHE_BYTES: '0' });

const listPath = '/api/v1/tasks?page_size=20';
const page = await fetch(`${appUrl}${listPath}`, { headers: { authorization: `Bearer ${token}` } });
const pageBody = await page.text();
if (page.status !== 200 || JSON.parse(pageBody).data.items.length !== 20) throw new Error(`list failed: ${pageBody.slice(0, 200)}`);

const bare = Fastify({ logger: false });
bare.get('/bare', (_req, reply) => reply.type('application/json; charset=utf-8').send(pageBody));
await bare.listen({ host: '127.0.0.1', port: 0 });
const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/bare`;

const load = (url: string, headers: string[] = []) => cannon(url, { connections, seconds, headers });

console.log(`body ${Buffer.byteLength(pageBody)} bytes; ${connections} connections, ${seconds} s each, ${rounds} rounds`);
const apiHeaders = [`authorization=Bearer ${token}`];
const uncachedHeaders = [`authorization=Bearer ${uncached.token}`];
// Warm-up of the client and the JIT on every side.
await load(bareUrl);
await load(`${appUrl}${listPath}`, apiHeaders);
await load(`${uncached.appUrl}${listPath}`, uncachedHeaders);
const measured: Array<{ bare: CannonResult; api: CannonResult; uncached: CannonResult }> = [];
for (let round = 0; round < rounds; round++) {
  const result = {
    bare: await load(bareUrl),
    api: await load(`${appUrl}${listPath}`, apiHeaders),
    uncached: await load(`${uncached.appUrl}${listPath}`, uncachedHeaders),
  };
  measured.push(result);
  console.log(
    `round ${round + 1}: bare ${result.bare.rps.toFixed(0)} req/s (${result.bare.cpu_us_per_request} µs), served ${result.api.rps.toFixed(0)} (${result.api.cpu_us_per_request} µs), cache off ${result.uncached.rps.toFixed(0)} (${result.uncached.cpu_us_per_request} µs): ratio ${(result.api.rps / result.bare.rps).toFixed(3)}`,
  );
}
const ratioOf = (r: (typeof measured)[number]) => r.api.rps / r.bare.rps;
const middle = <T>(values: T[], by: (v: T) => number) => [...values].sort((a, b) => by(a) - by(b))[Math.floor(values.length / 2)]!;
/** The round of the median throughput ratio (the upper one of an even count): its figures are printed. */
const typical = middle(measured, ratioOf);
const ratio = ratioOf(typical);
const { bare: bareResult, api: apiResult, uncached: uncachedResult } = typical;
const cpuRatio = middle(measured.map((r) => r.bare.cpu_us_per_request / r.api.cpu_us_per_request), (x) => x);

const report = {
  tasks: TASKS,
  connections,
  seconds,
  body_bytes: Buffer.byteLength(pageBody),
  rounds: measured,
  bare: bareResult,
  api: apiResult,
  api_uncached: uncachedResult,
  ratio: Number(ratio.toFixed(3)),
  ratio_uncached: Number(middle(measured.map((r) => r.uncached.rps / r.bare.rps), (x) => x).toFixed(3)),
  cpu_ratio: Number(cpuRatio.toFixed(3)),
  load_average: loadavg().map((n) => Number(n.toFixed(2))),
  cores: cpus().length,
  targets: { ratio: 0.4, p99_ms: 25 },
  pass: ratio >= 0.4 && apiResult.p99 <= 25 && measured.every((r) => [r.api, r.uncached].every((x) => x.non2xx === 0 && x.errors === 0)),
};
console.log('the median round:');
console.log(`bare Fastify      ${bareResult.rps.toFixed(0).padStart(7)} req/s   p50 ${bareResult.p50} ms   p99 ${bareResult.p99} ms   server CPU ${bareResult.cpu_us_per_request} µs/req`);
console.log(`GET /tasks (20)   ${apiResult.rps.toFixed(0).padStart(7)} req/s   p50 ${apiResult.p50} ms   p99 ${apiResult.p99} ms   server CPU ${apiResult.cpu_us_per_request} µs/req   non-2xx ${apiResult.non2xx}, errors ${apiResult.errors}`);
console.log(`  cache off       ${uncachedResult.rps.toFixed(0).padStart(7)} req/s   p50 ${uncachedResult.p50} ms   p99 ${uncachedResult.p99} ms   server CPU ${uncachedResult.cpu_us_per_request} µs/req   ratio ${report.ratio_uncached}`);
console.log(`CPU-time ratio ${cpuRatio.toFixed(3)}, median of the rounds (what the throughput ratio would be with the server alone on a core); load average ${report.load_average.join(' ')} on ${report.cores} cores`);
console.log(`ratio ${ratio.toFixed(3)}, median of the rounds ${measured.map((r) => ratioOf(r).toFixed(3)).join(', ')} (target ≥ 0.4), p99 ${apiResult.p99} ms (target ≤ 25 ms): ${report.pass ? 'PASS' : 'FAIL'}`);
mkdirSync(path.join(root, 'bench', 'out'), { recursive: true });
writeFileSync(path.join(root, 'bench', 'out', 'api.json'), `${JSON.stringify(report, null, 2)}\n`);

await bare.close();
await service.close();
await uncached.close();
