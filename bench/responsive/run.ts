/**
 * Responsiveness of the all-in-one process (`npm start`: API and worker in one process). One
 * user's `GET /tasks` is probed one request at a time, first with nothing else going on, then
 * while 5 tasks generate against a fake provider that answers photo-like PNGs of several MB in
 * base64 (as real image models do). Prints p50/p99 of both phases and the ratio of the p99s
 * (target ≤ 2), measured side by side in one run.
 *
 *   npx tsx bench/responsive/run.ts [tasks=5] [idle seconds=8]
 *
 * With SPLIT=1 the API and the worker run as two processes (`npm run api` + `npm run worker`)
 * instead: what is left when nothing but the machine's cores is shared between them.
 *
 * With PROFILE_DIR=<dir>, the server process writes a CPU profile of its main thread (open it in
 * Chrome's DevTools) and a list of its garbage collections there when it exits (profile.mjs).
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { adminToken, call, Deployment, must } from '../../server/test/reliability/harness.js';

const TASKS = Number(process.argv[2] ?? 5);
const IDLE_SECONDS = Number(process.argv[3] ?? 8);
const TASK = { text_count: 6, image_count: 6, track: 'ai' };

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

async function probe(base: string, token: string, until: () => boolean): Promise<number[]> {
  const times: number[] = [];
  while (!until()) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/tasks?page_size=20`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /tasks answered ${res.status}`);
    times.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 20));
  }
  return times;
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
  const profile = process.env.PROFILE_DIR ? { NODE_OPTIONS: `--import ${new URL('./profile.mjs', import.meta.url).href}`, PROFILE_DIR: path.resolve(process.env.PROFILE_DIR) } : {};
  const split = process.env.SPLIT === '1';
  const proc = await d.start(split ? 'api' : 'all', profile);
  if (split) await d.start('worker');
  const base = proc.url!;
  const token = await adminToken(base);
  await must(base, 'POST', '/api-keys', token, { provider: 'openai', api_key: 'sk-bench-not-real-0001' });
  const product = await must(base, 'POST', '/products', token, { name: '云朵保湿霜', category: '护肤', source: 'custom', selling_points: ['48小时保湿'] });
  // Warm up the route before measuring.
  await probe(base, token, (() => { let n = 0; return () => n++ >= 50; })());

  const idleUntil = Date.now() + IDLE_SECONDS * 1000;
  const idle = await probe(base, token, () => Date.now() > idleUntil);

  const ids: number[] = [];
  for (let i = 0; i < TASKS; i++) ids.push((await must(base, 'POST', '/tasks', token, { product_id: product.id, theme: `响应 ${i}`, ...TASK })).id);
  let settled = false;
  const watcher = (async () => {
    while (!settled) {
      const statuses = await Promise.all(ids.map(async (id) => (await call(base, 'GET', `/api/v1/tasks/${id}`, { token })).body.data.status as string));
      settled = statuses.every((s) => s !== 'pending' && s !== 'generating');
      if (!settled) await new Promise((r) => setTimeout(r, 500));
    }
  })();
  const startedBusy = Date.now();
  const busy = await probe(base, token, () => settled);
  await watcher;
  const busySeconds = (Date.now() - startedBusy) / 1000;
  const images = await fakeImages();

  const [idle99, busy99] = [percentile(idle, 99), percentile(busy, 99)];
  const ratio = busy99 / idle99;
  console.log(`responsive${split ? ' (API and worker as two processes)' : ''}: ${TASKS} tasks (${images} images of ${(fake.sampleBytes * 4 / 3 / 1e6).toFixed(1)} MB base64) in ${busySeconds.toFixed(1)} s; load average ${loadavg()[0]!.toFixed(1)}`);
  console.log(`| phase | probes | p50 ms | p99 ms |\n| --- | --- | --- | --- |`);
  console.log(`| idle | ${idle.length} | ${percentile(idle, 50).toFixed(1)} | ${idle99.toFixed(1)} |`);
  console.log(`| ${TASKS} tasks generating | ${busy.length} | ${percentile(busy, 50).toFixed(1)} | ${busy99.toFixed(1)} |`);
  console.log(`p99 busy / idle: ${ratio.toFixed(2)} (target ≤ 2) ${ratio <= 2 ? 'MET' : 'NOT MET'}`);
} finally {
  await d.close();
  fakeProcess.disconnect();
}
