/**
 * GET /tasks on one large workspace: every documented filter combination at pages up to the
 * numbered-page window, and by cursor deep into the list.
 *
 *   npx tsx bench/api/scale.ts [tasks=1000000] [requests per case=200]
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/api/scale.ts
 *
 * Seeds `tasks` tasks (setup.ts: two products, five statuses, one a minute from 2026-01-01, so
 * 1,440 a day over about two years for a million) into a fresh SQLite database (PostgreSQL with
 * DATABASE_URL), starts the real app with the task-list page cache off (every request does the
 * query work), and sends each case's requests one after another over a keep-alive connection,
 * timing each from this process (the client's own time included). A case is a filter
 * combination — none, status, product_id, both — × a date range — none, whole days (from, to,
 * both, and the whole two years), date-times inside days (from, to, both, and the whole two
 * years) — × a page: 1, 50 and 500 of 20 (page 500 is the last page by number, 10,000 tasks
 * deep), 100 of 100, and a page by cursor half-way through the list. Prints p50 and p99 per
 * case, the worst p99 of all and whether it is within 25 ms; writes bench/out/api-scale-<db>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { startSeededService } from './setup.js';

const tasks = Number(process.argv[2] ?? 1_000_000);
// A p99 needs more than 100 requests: of 60, the 99th percentile is the slowest one, and a single
// request held up by something else on a shared machine (about one in 3,000 here, no GC with it)
// decided a case. Of 200 it is the third slowest.
const perCase = Number(process.argv[3] ?? 200);
const TARGET_P99_MS = 25;
const root = path.resolve(import.meta.dirname, '..', '..');
const dialect = process.env.DATABASE_URL ? 'postgres' : 'sqlite';

const service = await startSeededService({ TASK_LIST_CACHE_BYTES: '0' }, { tasks });
const { appUrl, token, productIds } = service;
const agent = new Agent({ connections: 1, keepAliveTimeout: 60_000 });

async function get(query: string): Promise<{ status: number; body: any; ms: number }> {
  const started = performance.now();
  const res = await request(`${appUrl}/api/v1/tasks?${query}`, { dispatcher: agent, headers: { authorization: `Bearer ${token}` } });
  const text = await res.body.text();
  const ms = performance.now() - started;
  return { status: res.statusCode, body: JSON.parse(text), ms };
}

// The seeded list spans 2026-01-01 … + tasks minutes; ranges are chosen inside it.
const lastDay = new Date(Date.parse('2026-01-01T00:00:00Z') + (tasks - 1) * 60_000).toISOString().slice(0, 10);
const middle = new Date(Date.parse('2026-01-01T00:00:00Z') + Math.floor(tasks / 2) * 60_000);
const dayOffset = (days: number) => new Date(middle.getTime() + days * 86_400_000).toISOString().slice(0, 10);
const DATES: Array<[name: string, params: Record<string, string>]> = [
  ['no dates', {}],
  ['from day', { date_from: dayOffset(0) }],
  ['to day', { date_to: dayOffset(0) }],
  ['from+to days (31)', { date_from: dayOffset(-15), date_to: dayOffset(15) }],
  ['whole span, days', { date_from: '2026-01-01', date_to: lastDay }],
  ['from date-time', { date_from: `${dayOffset(0)}T09:30:00+08:00` }],
  ['to date-time', { date_to: `${dayOffset(0)}T17:45:10Z` }],
  ['from+to date-times', { date_from: `${dayOffset(-15)}T06:00:00Z`, date_to: `${dayOffset(15)}T18:00:00Z` }],
  ['whole span, date-times', { date_from: '2026-01-01T00:00:01Z', date_to: `${lastDay}T23:59:58Z` }],
];
const FILTERS: Array<[name: string, params: Record<string, string>]> = [
  ['all', {}],
  ['status', { status: 'approved' }],
  ['product', { product_id: String(productIds[1]) }],
  ['status+product', { status: 'archived', product_id: String(productIds[1]) }],
];
const PAGES: Array<[name: string, params: Record<string, string>]> = [
  ['p1', { page: '1', page_size: '20' }],
  ['p50', { page: '50', page_size: '20' }],
  ['p500', { page: '500', page_size: '20' }],
  ['p100×100', { page: '100', page_size: '100' }],
];

interface Case {
  filter: string;
  dates: string;
  page: string;
  total: number;
  items: number;
  p50: number;
  p99: number;
}
const cases: Case[] = [];
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function measure(filter: string, dates: string, page: string, query: string) {
  const first = await get(query);
  if (first.status !== 200) throw new Error(`${query}: ${first.status} ${JSON.stringify(first.body)}`);
  const times: number[] = [];
  for (let i = 0; i < perCase; i++) times.push((await get(query)).ms);
  times.sort((a, b) => a - b);
  const result = { filter, dates, page, total: first.body.data.total, items: first.body.data.items.length, p50: percentile(times, 50), p99: percentile(times, 99) };
  cases.push(result);
  const flag = result.p99 > TARGET_P99_MS ? '  OVER' : '';
  console.log(
    `${filter.padEnd(15)} ${dates.padEnd(24)} ${page.padEnd(9)} total ${String(result.total).padStart(8)}  p50 ${result.p50.toFixed(1).padStart(5)} ms  p99 ${result.p99.toFixed(1).padStart(5)} ms${flag}`,
  );
}

console.log(`${dialect}, ${tasks.toLocaleString('en')} tasks, ${perCase} requests per case, one after another; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`);
for (const [filter, filterParams] of FILTERS) {
  for (const [dates, dateParams] of DATES) {
    for (const [page, pageParams] of PAGES) {
      await measure(filter, dates, page, new URLSearchParams({ ...filterParams, ...dateParams, ...pageParams }).toString());
    }
  }
  // By cursor half-way through the filtered list: the cursor of the task at the middle.
  const base = new URLSearchParams({ ...filterParams, page_size: '20', date_to: middle.toISOString() });
  const { body } = await get(base.toString());
  const cursor = body.data.next_cursor as string;
  await measure(filter, 'no dates', 'cursor ½', new URLSearchParams({ ...filterParams, page_size: '20', cursor }).toString());
}

const worst = cases.reduce((a, b) => (b.p99 > a.p99 ? b : a));
const over = cases.filter((c) => c.p99 > TARGET_P99_MS);
console.log(`\nworst p99: ${worst.p99.toFixed(1)} ms (${worst.filter}, ${worst.dates}, ${worst.page}); target ≤ ${TARGET_P99_MS} ms: ${over.length === 0 ? 'met' : `${over.length} of ${cases.length} cases over`}`);
mkdirSync(path.join(root, 'bench', 'out'), { recursive: true });
writeFileSync(
  path.join(root, 'bench', 'out', `api-scale-${dialect}.json`),
  `${JSON.stringify({ at: new Date().toISOString(), dialect, tasks, per_case: perCase, loadavg: loadavg(), worst_p99_ms: worst.p99, cases }, null, 2)}\n`,
);
await agent.close();
await service.close();
