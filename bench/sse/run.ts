/**
 * 1,000 concurrent event streams on one task: delivery latency and memory per idle stream.
 *
 *   node --expose-gc --import tsx bench/sse/run.ts [streams=1000] [rounds=5]
 *
 * Starts the real app on SQLite with one running task, issues one ticket per stream over HTTP,
 * and opens the streams from a child process (bench/sse/clients.ts). With all of them open and
 * idle, the server's RSS and heap growth over its baseline, divided by the stream count, is the
 * memory one idle stream costs (target ≤ 50 KB). Then, per round, one event is appended (the
 * real commit path: transaction, seq, fan-out) carrying its send time; every stream reports its
 * arrival. After two warm-up rounds, prints p50/p99/max delivery latency over all rounds
 * (target: p99 ≤ 50 ms) and the server's own share (commit plus hand-over to every socket), and
 * writes bench/out/sse.json. Latency includes the client process reading 1,000 sockets.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { buildApp } from '../../server/src/app.js';
import { bootstrap } from '../../server/src/bootstrap.js';
import { loadConfig } from '../../server/src/config.js';
import { json } from '../../server/src/db/codec.js';
import { createRuntime } from '../../server/src/runtime.js';

const STREAMS = Number(process.argv[2] ?? 1000);
const ROUNDS = Number(process.argv[3] ?? 5);
const root = path.resolve(import.meta.dirname, '..', '..');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc --import tsx bench/sse/run.ts (memory figures need a forced GC)');
  process.exit(2);
}

const dir = mkdtempSync(path.join(tmpdir(), 'cps-bench-sse-'));
const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dir, ADMIN_PASSWORD: 'bench-password-1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000000' });
const runtime = await createRuntime(config, { worker: false });
const { ctx } = runtime;
await bootstrap(ctx);
const app = await buildApp(ctx);
await app.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1`;

async function call(method: string, p: string, token?: string, body?: unknown) {
  const res = await fetch(`${base}${p}`, {
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
const product = await call('POST', '/products', token, { name: '云朵保湿霜', category: '护肤', source: 'custom' });
const now = new Date().toISOString();
const task = await ctx.db
  .insertInto('tasks')
  .values({
    workspace_id: me.current_workspace_id, product_id: product.id, operator_id: me.id, theme: 'bench', text_count: 3, image_count: 3, track: 'ai',
    status: 'generating', need_product_image: false, overlay_text: true, generation: 1, progress: json(null), created_at: now, updated_at: now,
  })
  .returning('id')
  .executeTakeFirstOrThrow();

const urls: string[] = [];
for (let i = 0; i < STREAMS; i++) {
  const { ticket } = await call('POST', `/tasks/${task.id}/sse-ticket`, token);
  urls.push(`${base}/tasks/${task.id}/stream?ticket=${ticket}`);
}

const settle = async (ms: number) => {
  await new Promise((r) => setTimeout(r, ms));
  gc();
  await new Promise((r) => setTimeout(r, 100));
  gc();
};
await settle(500);
const before = process.memoryUsage();

const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'sse', 'clients.ts')], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
const lines = readline.createInterface({ input: child.stdout! });
const waiting: Array<(line: string) => void> = [];
lines.on('line', (line) => {
  if (line.startsWith('error')) {
    console.error(`client: ${line}`);
    process.exit(1);
  }
  waiting.shift()?.(line);
});
const nextLine = () => new Promise<string>((resolve) => waiting.push(resolve));
child.stdin!.end(JSON.stringify(urls));

const opened = await nextLine();
console.log(`${opened.replace('open', 'streams open:')} on one task`);
await settle(3000);
const idle = process.memoryUsage();
const perStream = {
  rss_kb: (idle.rss - before.rss) / 1024 / STREAMS,
  heap_kb: (idle.heapUsed - before.heapUsed) / 1024 / STREAMS,
};

const latencies: number[] = [];
const fanOut: number[] = [];
const WARMUP = 2;
for (let round = 1 - WARMUP; round <= ROUNDS; round++) {
  const arrival = nextLine();
  const sentAt = performance.timeOrigin + performance.now();
  // append resolves after the commit and the synchronous hand-over to every stream's socket.
  await ctx.events.append(task.id, [{ name: 'progress', data: { round, sent_at: sentAt } }]);
  const handedOver = performance.timeOrigin + performance.now() - sentAt;
  const arrived = JSON.parse((await arrival).slice('latencies '.length)) as number[];
  // The first rounds run cold code (JIT) on both sides: shown, not counted.
  if (round > 0) {
    fanOut.push(handedOver);
    latencies.push(...arrived);
  }
  await new Promise((r) => setTimeout(r, 200));
}
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
const report = {
  streams: STREAMS,
  rounds: ROUNDS,
  latency_ms: { p50: +pct(50).toFixed(2), p99: +pct(99).toFixed(2), max: +latencies.at(-1)!.toFixed(2) },
  server_commit_and_fan_out_ms: fanOut.map((v) => +v.toFixed(2)),
  per_idle_stream_kb: { rss: +perStream.rss_kb.toFixed(1), heap: +perStream.heap_kb.toFixed(1) },
  targets: { p99_ms: 50, per_stream_kb: 50 },
  pass: pct(99) <= 50 && perStream.rss_kb <= 50,
};
console.log(`delivery latency over ${latencies.length} deliveries: p50 ${report.latency_ms.p50} ms, p99 ${report.latency_ms.p99} ms, max ${report.latency_ms.max} ms (target p99 ≤ 50 ms)`);
console.log(`server side, commit + hand-over to all sockets per event: ${report.server_commit_and_fan_out_ms.join(', ')} ms`);
console.log(`per idle stream: RSS ${report.per_idle_stream_kb.rss} KB, heap ${report.per_idle_stream_kb.heap} KB (target ≤ 50 KB)`);
console.log(report.pass ? 'PASS' : 'FAIL');
mkdirSync(path.join(root, 'bench', 'out'), { recursive: true });
writeFileSync(path.join(root, 'bench', 'out', 'sse.json'), `${JSON.stringify(report, null, 2)}\n`);

child.kill();
await app.close();
await runtime.close();
rmSync(dir, { recursive: true, force: true });
