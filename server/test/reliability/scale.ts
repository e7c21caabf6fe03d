import { createServer } from 'node:net';
import { startFakeOpenAI, type FakeOpenAI } from '../generation/fake-openai.js';
import {
  adminToken,
  call,
  Deployment,
  must,
  query,
  sleep,
  startChaosProxy,
  storedEvents,
  TaskFollower,
  TERMINAL,
  type ChaosProxy,
  type Proc,
  type ScenarioResult,
} from './harness.js';
import { runLoad } from './load.js';

/**
 * The PostgreSQL + Redis deployment: 2 API and 2 worker processes. Scenarios 1 (multi-process
 * streaming), 2 (kill -9 of workers mid-generation and mid-package-build), 4 (API restart under
 * 100 streams) and 7 (load) run against it one after another.
 */

const TASK = { text_count: 3, image_count: 2, track: 'ai' };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

interface Ctx {
  d: Deployment;
  fake: FakeOpenAI;
  meter: ChaosProxy;
  apiA: Proc;
  apiB: Proc;
  workers: Proc[];
  token: string;
  productId: number;
  long: boolean;
}

async function statuses(ctx: Ctx, ids: number[]): Promise<Map<number, { status: string; failure_reason?: string | null }>> {
  const rows = await query<{ id: number; status: string }>(ctx.d, 'SELECT id, status FROM tasks WHERE id = ANY($1)', [ids]);
  return new Map(rows.map((r) => [r.id, r]));
}

async function waitSettled(ctx: Ctx, ids: number[], timeoutMs: number): Promise<Map<number, { status: string }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await statuses(ctx, ids);
    if ([...s.values()].every((t) => TERMINAL.has(t.status)) || Date.now() > deadline) return s;
    await sleep(250);
  }
}

const successfulPaidCalls = (fake: FakeOpenAI) => fake.calls.filter((c) => c.status === 200 && c.kind !== 'other').length;

async function duplicateCandidates(ctx: Ctx, ids: number[]): Promise<number> {
  const images = await query(ctx.d, 'SELECT task_id FROM image_candidates WHERE task_id = ANY($1) GROUP BY task_id, generation, strategy, seq HAVING count(*) > 1', [ids]);
  const texts = await query(ctx.d, 'SELECT task_id FROM text_candidates WHERE task_id = ANY($1) GROUP BY task_id, generation, slot HAVING count(*) > 1', [ids]);
  return images.length + texts.length;
}

async function createTasks(ctx: Ctx, n: number, theme: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const base = (i % 2 === 0 ? ctx.apiA : ctx.apiB).url!;
    const t = await must(base, 'POST', '/tasks', ctx.token, { product_id: ctx.productId, theme: `${theme} ${i}`, ...TASK });
    ids.push(t.id ?? t.task_id);
  }
  return ids;
}

async function multiProcess(ctx: Ctx): Promise<ScenarioResult & { perTask: number }> {
  const n = ctx.long ? 50 : 16;
  const before = successfulPaidCalls(ctx.fake);
  const ids = await createTasks(ctx, n, '多进程');
  // Each task is streamed from the API that did not create it.
  const followers = ids.map((id, i) => new TaskFollower(() => (i % 2 === 0 ? ctx.apiB : ctx.apiA).url!, ctx.token, id));
  const deadline = Date.now() + (ctx.long ? 300_000 : 150_000);
  const done = await Promise.all(followers.map((f) => f.run(deadline)));
  const settled = await waitSettled(ctx, ids, 5_000);
  const problems: string[] = [];
  for (const f of followers) problems.push(...f.problems(await storedEvents(ctx.d, f.taskId)));
  const notDone = done.filter((x) => !x).length;
  const wrong = ids.filter((id) => settled.get(id)?.status !== 'pending_selection');
  const calls = successfulPaidCalls(ctx.fake) - before;
  return {
    scenario: '1 multi-process (2 API + 2 workers, PG + Redis)',
    load: `${n} tasks via both APIs, ${n} streams from the other API`,
    faults: 'none',
    badInputs: '-',
    lostData: `${problems.length} event gaps/dups; ${notDone} streams without done`,
    failures: problems.length + notDone + wrong.length,
    notes: [...problems.slice(0, 5), ...(wrong.length ? [`not pending_selection: ${wrong.join(', ')}`] : [])],
    perTask: calls / n,
  };
}

/** How long before a kill a reply may have reached the worker without being stored yet. */
const UNSTORED_REPLY_MS = 3000;

async function killWorkers(ctx: Ctx, perTask: number): Promise<ScenarioResult> {
  const notes: string[] = [];
  // Slow images keep the tasks mid-generation long enough to be killed there.
  ctx.fake.options = { textLatencyMs: 100, imageLatencyMs: 700 };
  const before = successfulPaidCalls(ctx.fake);
  const k = ctx.long ? 12 : 6;
  const ids = await createTasks(ctx, k, '崩溃');
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const rows = await query<{ n: number }>(ctx.d, 'SELECT count(*)::int AS n FROM image_candidates WHERE task_id = ANY($1)', [ids]);
    if (rows[0]!.n > 0) break;
    await sleep(100);
  }
  // Every call the kill can cut off was in flight just before the signal, started before the
  // process was gone, or an image answered so shortly before that the worker had not stored it
  // yet (normalised, labelled and written before its ledger entry: seconds on a busy machine).
  // A finished step paid twice shows beyond these.
  const [inFlightBefore, startedBefore] = [ctx.meter.inFlight, ctx.meter.started];
  const killedAt = Date.now();
  const victim = ctx.workers.shift()!;
  await ctx.d.kill(victim);
  const unstored = ctx.meter.answered.filter((a) => a.path.includes('/images/') && a.at >= killedAt - UNSTORED_REPLY_MS && a.at <= killedAt).length;
  const inFlightAtKill = inFlightBefore + ctx.meter.started - startedBefore + unstored;
  ctx.workers.push(await ctx.d.start('worker'));
  const settled = await waitSettled(ctx, ids, ctx.long ? 240_000 : 150_000);
  ctx.fake.options = {};
  const stuck = ids.filter((id) => !TERMINAL.has(settled.get(id)!.status));
  const wrong = ids.filter((id) => settled.get(id)!.status !== 'pending_selection');
  const dups = await duplicateCandidates(ctx, ids);
  const calls = successfulPaidCalls(ctx.fake) - before;
  const repeated = Math.max(0, calls - perTask * k);
  // A call in flight when its worker died is lost and must be paid again; anything beyond that
  // would be a finished step paid twice.
  const repeatedFinished = Math.max(0, repeated - inFlightAtKill);
  if (repeatedFinished) notes.push(`${repeated} calls beyond ${perTask}/task with ${inFlightAtKill} in flight at the kill`);

  // Packages: request one per task of the first scenario's kind, kill the other worker at once.
  const ready = (await query<{ id: number }>(ctx.d, "SELECT id FROM tasks WHERE status = 'pending_selection' AND theme LIKE '多进程%' ORDER BY id")).map((r) => r.id);
  for (const taskId of ready) {
    const detail = await must(ctx.apiA.url!, 'GET', `/tasks/${taskId}`, ctx.token);
    await must(ctx.apiA.url!, 'POST', `/tasks/${taskId}/text-candidates/select`, ctx.token, { candidate_id: detail.text_candidates[0].candidate_id });
  }
  // All at once, and the kill right behind them, so builds are cut off mid-way.
  const pkgs = await Promise.all(ready.map(async (taskId, i) => (await must((i % 2 ? ctx.apiA : ctx.apiB).url!, 'POST', `/tasks/${taskId}/package`, ctx.token, {})).delivery_package_id as number));
  const pendingAtKill = (await query<{ n: number }>(ctx.d, "SELECT count(*)::int AS n FROM delivery_packages WHERE id = ANY($1) AND status = 'pending'", [pkgs]))[0]!.n;
  await ctx.d.kill(ctx.workers.shift()!);
  ctx.workers.push(await ctx.d.start('worker'));
  const pkgDeadline = Date.now() + 90_000;
  let pkgRows: Array<{ id: number; status: string; file_key: string | null }> = [];
  while (Date.now() < pkgDeadline) {
    pkgRows = await query(ctx.d, 'SELECT id, status, file_key FROM delivery_packages WHERE id = ANY($1)', [pkgs]);
    if (pkgRows.every((p) => p.status !== 'pending')) break;
    await sleep(250);
  }
  let badZips = 0;
  for (const p of pkgRows) {
    const t = await call(ctx.apiB.url!, 'POST', `/api/v1/delivery-packages/${p.id}/download-token`, { token: ctx.token });
    const file = t.status === 200 ? await fetch(`${ctx.apiA.url}/api/v1/delivery-packages/${p.id}/download-file?token=${t.body.data.token}`) : undefined;
    const bytes = file ? Buffer.from(await file.arrayBuffer()) : Buffer.alloc(0);
    if (file?.status !== 200 || bytes.subarray(0, 2).toString() !== 'PK') badZips++;
  }
  const pkgNotReady = pkgRows.filter((p) => p.status !== 'ready').length;
  const dupPackages = (await query(ctx.d, 'SELECT task_id FROM delivery_packages WHERE id = ANY($1) GROUP BY task_id HAVING count(*) > 1', [pkgs])).length;
  if (stuck.length) notes.push(`stuck: ${stuck.join(', ')}`);
  if (wrong.length) notes.push(`not pending_selection: ${wrong.join(', ')}`);
  notes.push(`paid calls ${calls} for ${k} tasks (${perTask}/task without faults), ${inFlightAtKill} in flight at the kill; ${pendingAtKill}/${pkgs.length} packages pending at the second kill`);
  return {
    scenario: '2 kill -9 worker mid-generation and mid-package',
    load: `${k} tasks + ${pkgs.length} packages`,
    faults: '2 workers killed (SIGKILL) and replaced',
    badInputs: '-',
    lostData: `${dups} duplicate candidates, ${repeatedFinished} repeated paid calls, ${pkgNotReady} packages not ready, ${badZips} bad zips`,
    failures: stuck.length + wrong.length + dups + repeatedFinished + pkgNotReady + badZips + dupPackages,
    notes,
  };
}

async function apiRestart(ctx: Ctx, apiPort: number): Promise<ScenarioResult> {
  ctx.fake.options = { textLatencyMs: 400, imageLatencyMs: 500 };
  const tasks = ctx.long ? 20 : 10;
  const ids = await createTasks(ctx, tasks, '重启');
  const followers = ids.flatMap((id) => Array.from({ length: 10 }, () => new TaskFollower(() => ctx.apiA.url!, ctx.token, id)));
  const deadline = Date.now() + (ctx.long ? 300_000 : 180_000);
  const running = Promise.all(followers.map((f) => f.run(deadline)));
  const connectBy = Date.now() + 30_000;
  while (followers.some((f) => f.events.length === 0) && Date.now() < connectBy) await sleep(100);
  const connected = followers.filter((f) => f.events.length > 0).length;
  // The API process dies (kill -9) with every stream open, and comes back on the same port.
  await ctx.d.kill(ctx.apiA);
  await sleep(500);
  ctx.apiA = await ctx.d.start('api', { PORT: String(apiPort) });
  const done = await running;
  ctx.fake.options = {};
  const problems: string[] = [];
  const stored = new Map<number, Array<{ seq: number; name: string }>>();
  for (const id of ids) stored.set(id, await storedEvents(ctx.d, id));
  for (const f of followers) problems.push(...f.problems(stored.get(f.taskId)!));
  const notDone = done.filter((x) => !x).length;
  const reconnected = followers.filter((f) => f.reconnects > 0).length;
  return {
    scenario: '4 API restart under open streams',
    load: `${followers.length} SSE clients on ${tasks} tasks (${connected} connected at the kill)`,
    faults: `API killed (SIGKILL) and restarted; ${reconnected} clients reconnected with Last-Event-ID`,
    badInputs: '-',
    lostData: `${problems.length} gaps/dups, ${notDone} without done`,
    failures: problems.length + notDone + (connected < followers.length ? 1 : 0),
    notes: problems.slice(0, 5),
  };
}

export async function scaleScenarios(long: boolean): Promise<ScenarioResult[]> {
  const fake = await startFakeOpenAI();
  const meter = await startChaosProxy(fake.url, 0);
  const d = await Deployment.create({
    postgres: true,
    redis: true,
    env: {
      PROVIDER_OPENAI_BASE_URL: meter.url,
      JOB_LEASE_MS: '3000',
      JOB_SWEEP_MS: '2000',
      JOB_BACKOFF_MS: '200',
      JOB_CONCURRENCY: '4',
      RATE_LIMIT_PER_MINUTE: '1000000',
    },
  });
  try {
    const apiPort = await freePort();
    const [apiA, apiB, w1, w2] = await Promise.all([d.start('api', { PORT: String(apiPort) }), d.start('api'), d.start('worker'), d.start('worker')]);
    const token = await adminToken(apiA!.url!);
    await must(apiA!.url!, 'POST', '/api-keys', token, { provider: 'openai', api_key: 'sk-prove-not-real-0001' });
    const product = await must(apiA!.url!, 'POST', '/products', token, { name: '云朵保湿霜', category: '护肤', source: 'custom', selling_points: ['48小时保湿'] });
    const ctx: Ctx = { d, fake, meter, apiA: apiA!, apiB: apiB!, workers: [w1!, w2!], token, productId: product.id, long };
    const results: ScenarioResult[] = [];
    const s1 = await multiProcess(ctx);
    results.push(s1);
    results.push(await killWorkers(ctx, s1.perTask));
    results.push(await apiRestart(ctx, apiPort));
    results.push(
      await runLoad({
        name: '7b load, PostgreSQL + Redis (2 API + 2 workers)',
        bases: [ctx.apiA.url!, ctx.apiB.url!],
        admin: token,
        productBody: { name: '负载产品', category: '护肤', source: 'custom' },
        operators: 200,
        seconds: long ? 60 : 10,
        deployment: d,
      }),
    );
    const errors = d.errorLines();
    if (errors.length) results.at(-1)!.notes.push(`${errors.length} error log lines, first: ${errors[0]!.slice(0, 200)}`);
    return results;
  } finally {
    await d.close();
    await meter.close();
    await fake.close();
  }
}
