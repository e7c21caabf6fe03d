/**
 * Responsiveness of the all-in-one process, run as `npm start` runs it (the compiled server, API
 * and worker in one process). One user's `GET /tasks` is probed one request at a time from a
 * lean process of its own (probe.mjs), first while one task generates in the fresh process
 * (reported, not compared: a process runs its code cold once), then in rounds: with nothing else
 * going on, then while 5 tasks generate against a fake provider in its own process that answers
 * photo-like PNGs of several MB in base64 (as real image models do). The probe's own pages tell
 * when the tasks have settled. Prints p50/p99 of each phase, the slowest probes with where their
 * time went (reaching the service, the service's own time from its log, the probing process's
 * own collections), and the ratio of the p99s (target ≤ 2) of every round and of all rounds
 * together, measured side by side in one run.
 *
 *   npx tsx bench/responsive/run.ts [tasks=5] [idle seconds=8] [rounds=3]
 *
 * With SPLIT=1 the API and the worker run as two processes (`npm run api` + `npm run worker`)
 * instead: what is left when nothing but the machine's cores is shared between them.
 * SERVER_NODE_OPTIONS is added to the server's NODE_OPTIONS (e.g. `--max-semi-space-size=4`).
 *
 * With PROFILE_DIR=<dir>, the server process writes a CPU profile of its main thread (open it in
 * Chrome's DevTools) and a list of its garbage collections, with the heap's spaces after each,
 * there when it exits (profile.mjs).
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { adminToken, Deployment, must } from '../../server/test/reliability/harness.js';

const TASKS = Number(process.argv[2] ?? 5);
const IDLE_SECONDS = Number(process.argv[3] ?? 8);
const ROUNDS = Number(process.argv[4] ?? 3);
const TASK = { text_count: 6, image_count: 6, track: 'ai' };

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

/** One probe: its request id (the service logs it with the time it spent on the request), when it started and the client's time. */
interface Probe {
  id: string;
  /** The probing process's clock (performance.now()), and the wall clock's (ms since the epoch). */
  at: number;
  sent: number;
  ms: number;
}

/** A phase as the probing process saw it: its probes, its own longest loop delay and its collections. */
interface Phase {
  probes: Probe[];
  loopDelayMaxMs: number;
  collections: Array<{ start: number; ms: number }>;
}

/**
 * What the service's log says of each probe, by request id: when its request reached the event
 * loop (the log's wall clock, to the millisecond) and the time the service spent on it (Fastify's
 * `responseTime`, from reading the request to writing the reply). The rest of a probe's time is
 * waiting: for the server's event loop to read the request (busy, or its thread waiting for a
 * core), and for the client to be scheduled to read the answer.
 */
function serverSide(log: string): Map<string, { arrived?: number; handledMs?: number }> {
  const seen = new Map<string, { arrived?: number; handledMs?: number }>();
  for (const line of log.split('\n')) {
    if (!line.includes('"probe-')) continue;
    const entry = JSON.parse(line) as { reqId: string; msg: string; time: number; responseTime?: number };
    const probe = seen.get(entry.reqId) ?? {};
    if (entry.msg === 'incoming request') probe.arrived = entry.time;
    if (entry.msg === 'request completed') probe.handledMs = entry.responseTime;
    seen.set(entry.reqId, probe);
  }
  return seen;
}

// The user probes from a lean process of its own (probe.mjs), as a browser runs elsewhere.
const prober = fork(new URL('./probe.mjs', import.meta.url), { execArgv: [] });
async function probe(request: { base: string; token: string; seconds?: number; taskIds?: number[] }): Promise<Phase> {
  prober.send(request);
  const [reply] = (await once(prober, 'message')) as [{ result?: Phase; error?: string }];
  if (!reply.result) throw new Error(`the probe failed: ${reply.error}`);
  return reply.result;
}

// The fake provider runs in its own process (fake-provider.ts), like a real one on another machine.
const fakeProcess = fork(new URL('./fake-provider.ts', import.meta.url), { execArgv: ['--import', 'tsx'] });
const [fake] = (await once(fakeProcess, 'message')) as [{ url: string; sampleBytes: number }];
const fakeImages = async () => {
  fakeProcess.send('stats');
  return ((await once(fakeProcess, 'message')) as [{ images: number }])[0].images;
};
const d = await Deployment.create({ env: { PROVIDER_OPENAI_BASE_URL: fake.url, RATE_LIMIT_PER_MINUTE: '1000000' } });
try {
  // Node refuses --cpu-prof in NODE_OPTIONS; a preloaded module runs the same profiler.
  const nodeOptions = [process.env.SERVER_NODE_OPTIONS ?? '', process.env.PROFILE_DIR ? `--import ${new URL('./profile.mjs', import.meta.url).href}` : ''].join(' ').trim();
  const profile = { ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}), ...(process.env.PROFILE_DIR ? { PROFILE_DIR: path.resolve(process.env.PROFILE_DIR) } : {}) };
  const split = process.env.SPLIT === '1';
  const proc = await d.start(split ? 'api' : 'all', profile, { asShipped: true });
  if (split) await d.start('worker', {}, { asShipped: true });
  const base = proc.url!;
  const token = await adminToken(base);
  await must(base, 'POST', '/api-keys', token, { provider: 'openai', api_key: 'sk-bench-not-real-0001' });
  const product = await must(base, 'POST', '/products', token, { name: '云朵保湿霜', category: '护肤', source: 'custom', selling_points: ['48小时保湿'] });
  /** Starts `count` tasks and probes until every one of them has settled. */
  const whileGenerating = async (count: number, label: string) => {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) ids.push((await must(base, 'POST', '/tasks', token, { product_id: product.id, theme: `${label} ${i}`, ...TASK })).id);
    const started = Date.now();
    const phase = await probe({ base, token, taskIds: ids });
    return { phase, seconds: (Date.now() - started) / 1000 };
  };
  // A server runs its code cold only once: the first task of a fresh process compiles what a
  // generation runs (V8's JIT, the provider SDK's first requests), 50-100 ms at a time. It is
  // reported apart, and the comparison is of a process that has generated before, as a running
  // service has.
  const cold = await whileGenerating(1, '预热');

  const rounds: Array<{ idle: Phase; busy: Phase; seconds: number; images: number }> = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const idle = await probe({ base, token, seconds: IDLE_SECONDS });
    const imagesBefore = await fakeImages();
    const { phase: busy, seconds } = await whileGenerating(TASKS, `响应 ${round}`);
    rounds.push({ idle, busy, seconds, images: (await fakeImages()) - imagesBefore });
  }

  const times = (phases: Phase[]) => phases.flatMap(({ probes }) => probes.map((p) => p.ms));
  const row = (label: string, values: number[]) => `| ${label} | ${values.length} | ${percentile(values, 50).toFixed(1)} | ${percentile(values, 99).toFixed(1)} |`;
  const ratioOf = (idle: number[], busy: number[]) => percentile(busy, 99) / percentile(idle, 99);
  const [idle, busy] = [times(rounds.map((r) => r.idle)), times(rounds.map((r) => r.busy))];
  const ratio = ratioOf(idle, busy);
  const seconds = rounds.map((r) => r.seconds.toFixed(1)).join(', ');
  console.log(`responsive${split ? ' (API and worker as two processes)' : ''}: ${ROUNDS} rounds of ${TASKS} tasks (${rounds[0]!.images} images of ${(fake.sampleBytes * 4 / 3 / 1e6).toFixed(1)} MB base64 each round) in ${seconds} s; load average ${loadavg()[0]!.toFixed(1)}`);
  console.log(`| phase | probes | p50 ms | p99 ms |\n| --- | --- | --- | --- |`);
  console.log(row('first task of a fresh process (not compared)', times([cold.phase])));
  rounds.forEach((r, i) => console.log(`${row(`round ${i + 1}: idle`, times([r.idle]))}\n${row(`round ${i + 1}: ${TASKS} tasks generating`, times([r.busy]))}`));
  console.log(row('all rounds: idle', idle));
  console.log(row(`all rounds: ${TASKS} tasks generating`, busy));
  const logged = serverSide(proc.service.stdout());
  /** The eight slowest probes of some phases, and where their time went. */
  const slowestOf = (label: string, phases: Phase[]) => {
    const slowest = phases.flatMap((phase) => phase.probes).sort((a, b) => b.ms - a.ms).slice(0, 8);
    const each = (of: (p: Probe) => number | undefined) => slowest.map((p) => of(p)?.toFixed(1) ?? '?').join(', ');
    const collections = phases.flatMap((phase) => phase.collections);
    const collectedDuring = (p: Probe) => collections.filter((c) => c.start < p.at + p.ms && c.start + c.ms > p.at).reduce((sum, c) => sum + c.ms, 0);
    console.log(`slowest probes ${label} (ms): ${each((p) => p.ms)}`);
    console.log(`  reached the service's event loop after (ms, ±1): ${each((p) => (logged.get(p.id)?.arrived ?? NaN) - p.sent)}`);
    console.log(`  the service's own time on each (ms): ${each((p) => logged.get(p.id)?.handledMs)}`);
    console.log(`  the probing process's own collections during each (ms): ${each(collectedDuring)}`);
    const loopDelay = Math.max(...phases.map((phase) => phase.loopDelayMaxMs));
    console.log(`  the probing process ${label}: longest loop delay ${loopDelay.toFixed(1)} ms; ${collections.length} collections, ${collections.reduce((sum, c) => sum + c.ms, 0).toFixed(1)} ms in all, longest ${Math.max(0, ...collections.map((c) => c.ms)).toFixed(1)} ms`);
  };
  slowestOf('idle', rounds.map((r) => r.idle));
  slowestOf('while tasks generated', rounds.map((r) => r.busy));
  console.log(`p99 busy / idle by round: ${rounds.map((r) => ratioOf(times([r.idle]), times([r.busy])).toFixed(2)).join(', ')}`);
  console.log(`p99 busy / idle, all rounds: ${ratio.toFixed(2)} (target ≤ 2) ${ratio <= 2 ? 'MET' : 'NOT MET'}`);
} finally {
  await d.close();
  fakeProcess.disconnect();
  prober.disconnect();
}
