import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullJobBackend } from '../../src/jobs/bullmq.js';
import { startFakeOpenAI, type FakeOpenAI } from '../generation/fake-openai.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { serviceEntry } from '../helpers/service-entry.js';
import { redisUnavailable, redisUrl, waitFor } from '../jobs/harness.js';
import { ok, workspaceWithProduct } from '../tasks/fixtures.js';
import { sharedEnv } from '../tasks/processes.js';

const redisMissing = await redisUnavailable();
const serverDir = path.resolve(import.meta.dirname, '..', '..');
/** The connection's budget and the fake provider's own limit: ten requests a second. */
const RPM = 600;

/**
 * Pacing shared through Redis: a batch created over HTTP runs in two worker processes
 * (`src/main.ts --role worker`, BullMQ), each wanting far more calls than the budget, against a
 * fake provider that answers 429 past its per-minute limit. Together they keep to the
 * connection's budget: no 429, and no second holds more calls than the budget allows (each
 * process pacing on its own would make twice as many).
 */
describe.skipIf(redisMissing !== undefined)('a batch in two worker processes keeps to one shared budget', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAI({ textLatencyMs: 150, imageLatencyMs: 250, rateLimit: { perMinute: RPM } });
    server = await startTestServer({
      worker: false,
      env: { PROVIDER_OPENAI_BASE_URL: fake.url, REDIS_URL: redisUrl, JOB_QUEUE_PREFIX: `cps-t-pace-${process.pid}-${Date.now()}` },
    });
    const start = async () => {
      const env = sharedEnv(server, { LOG_LEVEL: 'info', PROVIDER_OPENAI_BASE_URL: fake.url, JOB_BULK_CONCURRENCY: '6', BATCH_PARALLEL_TASKS: '12', BATCH_SWEEP_MS: '200' });
      const child = spawn(process.execPath, [...serviceEntry(), '--role', 'worker'], { cwd: serverDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      workers.push(child);
      let output = '';
      child.stdout!.on('data', (d) => (output += String(d)));
      child.stderr!.on('data', (d) => (output += String(d)));
      await waitFor('a worker process to start', () => {
        if (child.exitCode !== null) throw new Error(`worker exited: ${output}`);
        return output.includes('job worker started');
      }, 30_000);
    };
    await Promise.all([start(), start()]);
  }, 90_000);

  afterAll(async () => {
    for (const child of workers) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
    if (server?.ctx.queue instanceof BullJobBackend) await server.ctx.queue.obliterate();
    await server?.close();
    await fake?.close();
  });

  it('runs every task with no 429 and never more than the budget in any second', async () => {
    const ws = await workspaceWithProduct(server, { apiKey: false });
    // Tokens unbounded, so the request budget is the one that binds: with OpenAI's preset 500 000
    // a minute, each notes call's output budget spaced the calls to two a second on their own.
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai', api_key: 'sk-paced-0000', rpm: RPM, tpm: 100_000_000, concurrency: 32 });
    const batch = await ok(server, 'POST', '/batches', ws.token, {
      name: '两个进程',
      matrix: { product_ids: [ws.productId], themes: ['一', '二', '三', '四', '五', '六', '七', '八', '九', '十', '十一', '十二'], text_count: 3, image_count: 0 },
    });
    let final: any;
    await waitFor('the batch to finish', async () => {
      final = await ok(server, 'GET', `/batches/${batch.id}`, ws.token);
      return final.status !== 'running';
    }, 90_000);
    expect(final.counts).toMatchObject({ done: 12, failed: 0 });
    // The pace the two workers kept, as the API process reads it from Redis.
    expect(final.pace).toEqual({ rpm: RPM, factor: 1, blocked_until: null });

    const calls = fake.calls.map((c) => c.startedAt).sort((a, b) => a - b);
    expect(fake.calls.filter((c) => c.status === 429)).toEqual([]);
    // 12 tasks × (3 notes + 3 judge): demand far above ten a second.
    expect(calls.length).toBeGreaterThanOrEqual(72);
    let busiest = 0;
    for (let i = 0, j = 0; i < calls.length; i++) {
      while (calls[i]! - calls[j]! >= 1000) j++;
      busiest = Math.max(busiest, i - j + 1);
    }
    // Ten a second, plus the pacer's burst of three and a little arrival jitter; two processes
    // pacing on their own would reach twenty.
    expect(busiest).toBeLessThanOrEqual(14);
    const seconds = (calls.at(-1)! - calls[0]!) / 1000;
    expect(calls.length / seconds).toBeLessThanOrEqual(RPM / 60 + 0.5);
    // The budget set the pace, not the demand: a run the workers could not feed would prove nothing.
    expect(calls.length / seconds).toBeGreaterThan((RPM / 60) * 0.7);
  }, 120_000);
});
