/**
 * Responsiveness of the all-in-one process, run as `npm start` runs it (the compiled server, API
 * and worker in one process). One user's `GET /tasks` is probed one request at a time, first
 * while one task generates in the fresh process (reported, not compared: a process runs its code
 * cold once), then with nothing else going on, then while 5 tasks generate against a fake
 * provider in its own process that answers photo-like PNGs of several MB in base64 (as real image
 * models do). The probe's own pages tell when the tasks have settled. Prints p50/p99 of each
 * phase, the slowest probes with the time the service itself spent on each (from its log), and
 * the ratio of the p99s (target ≤ 2), measured side by side in one run.
 *
 *   npx tsx bench/responsive/run.ts [tasks=5] [idle seconds=8]
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
const TASK = { text_count: 6, image_count: 6, track: 'ai' };

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

/** One probe: its request id (the service logs it with the time it spent on the request) and the client's time. */
interface Probe {
  id: string;
  ms: number;
}
let probeCount = 0;

/**
 * The time the service itself spent on each request (Fastify's `responseTime`, from the moment it
 * read the request to the moment it wrote the reply), by request id, from its log on stdout. The
 * rest of a probe's time is waiting: for the server's event loop to read the request (busy, or
 * its thread waiting for a core), and for the client to be scheduled to read the answer.
 */
function serverTimes(log: string): Map<string, number> {
  const times = new Map<string, number>();
  for (const line of log.split('\n')) {
    if (!line.includes('"request completed"') || !line.includes('"probe-')) continue;
    const entry = JSON.parse(line) as { reqId: string; responseTime: number };
    times.set(entry.reqId, entry.responseTime);
  }
  return times;
}

/**
 * One user's `GET /tasks`, one request at a time, 20 ms apart, until `done` says so from the page
 * just read: the probe itself tells when the tasks have settled, so the bench adds no requests
 * of its own to the load it measures.
 */
async function probe(base: string, token: string, done: (page: Array<{ id: number; status: string }>) => boolean): Promise<Probe[]> {
  const probes: Probe[] = [];
  for (;;) {
    const id = `probe-${++probeCount}`;
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/tasks?page_size=20`, { headers: { authorization: `Bearer ${token}`, 'x-request-id': id } });
    const body = await res.arrayBuffer();
    probes.push({ id, ms: performance.now() - started });
    if (res.status !== 200) throw new Error(`GET /tasks answered ${res.status}`);
    if (done((JSON.parse(Buffer.from(body).toString('utf8')) as { data: { items: Array<{ id: number; status: string }> } }).data.items)) return probes;
    await new Promise((r) => setTimeout(r, 20));
  }
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
    const probes = await probe(base, token, (page) => ids.every((id) => !['pending', 'generating'].includes(page.find((t) => t.id === id)?.status ?? 'pending')));
    return { probes, seconds: (Date.now() - started) / 1000 };
  };
  // A server runs its code cold only once: the first task of a fresh process compiles what a
  // generation runs (V8's JIT, the response serializers' branch validators, the provider SDK),
  // 50-100 ms at a time. It is reported apart, and the comparison is of a process that has
  // generated before, as a running service has.
  const cold = await whileGenerating(1, '预热');

  const idleUntil = Date.now() + IDLE_SECONDS * 1000;
  const idleProbes = await probe(base, token, () => Date.now() > idleUntil);

  const imagesBefore = await fakeImages();
  const { probes: busyProbes, seconds: busySeconds } = await whileGenerating(TASKS, '响应');
  const images = (await fakeImages()) - imagesBefore;

  const [idle, busy, coldTimes] = [idleProbes, busyProbes, cold.probes].map((probes) => probes.map((p) => p.ms)) as [number[], number[], number[]];
  const [idle99, busy99] = [percentile(idle, 99), percentile(busy, 99)];
  const ratio = busy99 / idle99;
  console.log(`responsive${split ? ' (API and worker as two processes)' : ''}: ${TASKS} tasks (${images} images of ${(fake.sampleBytes * 4 / 3 / 1e6).toFixed(1)} MB base64) in ${busySeconds.toFixed(1)} s; load average ${loadavg()[0]!.toFixed(1)}`);
  console.log(`| phase | probes | p50 ms | p99 ms |\n| --- | --- | --- | --- |`);
  console.log(`| first task of a fresh process (not compared) | ${coldTimes.length} | ${percentile(coldTimes, 50).toFixed(1)} | ${percentile(coldTimes, 99).toFixed(1)} |`);
  console.log(`| idle | ${idle.length} | ${percentile(idle, 50).toFixed(1)} | ${idle99.toFixed(1)} |`);
  console.log(`| ${TASKS} tasks generating | ${busy.length} | ${percentile(busy, 50).toFixed(1)} | ${busy99.toFixed(1)} |`);
  const slowest = (times: number[]) => [...times].sort((a, b) => b - a).slice(0, 8).map((t) => t.toFixed(1)).join(', ');
  console.log(`slowest probes (ms): idle ${slowest(idle)}; busy ${slowest(busy)}`);
  const handled = serverTimes(proc.service.stdout());
  const slowestBusy = [...busyProbes].sort((a, b) => b.ms - a.ms).slice(0, 8);
  console.log(`of those, the service's own time on each (ms): ${slowestBusy.map((p) => handled.get(p.id)?.toFixed(1) ?? '?').join(', ')}`);
  console.log(`p99 busy / idle: ${ratio.toFixed(2)} (target ≤ 2) ${ratio <= 2 ? 'MET' : 'NOT MET'}`);
} finally {
  await d.close();
  fakeProcess.disconnect();
}
