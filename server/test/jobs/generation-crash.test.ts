import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { BullJobBackend } from '../../src/jobs/bullmq.js';
import { startFakeOpenAI, type FakeOpenAI } from '../generation/fake-openai.js';
import { eventsOf, named } from '../generation/helpers.js';
import { startTestServer, usingPostgres, type TestServer } from '../helpers/server.js';
import { createTask, ok, workspaceWithProduct } from '../tasks/fixtures.js';
import { sharedEnv } from '../tasks/processes.js';
import { redisUnavailable, redisUrl, sleep, waitFor, type BackendName } from './harness.js';
import { serviceEntry } from '../helpers/service-entry.js';

const bullmqSkipReason = await redisUnavailable();
const serverDir = path.resolve(import.meta.dirname, '..', '..');
const IMAGE_LATENCY_MS = 400;

/**
 * The real task.generate job in real worker processes (`src/main.ts --role worker`) behind an
 * API that only enqueues: a worker is killed with SIGKILL in the middle of a task's images, a
 * second one takes the job over. The fake OpenAI-compatible server counts the paid calls.
 */
for (const name of ['in-process', 'bullmq'] as BackendName[]) {
  // On BullMQ it runs once per CI (helpers/server describeOncePerCi): prove's kill -9 scenario is PostgreSQL + Redis.
  describe.skipIf(name === 'bullmq' && (bullmqSkipReason !== undefined || usingPostgres))(`generation survives kill -9 of its worker (${name})`, () => {
    let fake: FakeOpenAI;
    let server: TestServer;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      fake = await startFakeOpenAI({ textLatencyMs: 200, imageLatencyMs: IMAGE_LATENCY_MS });
      server = await startTestServer({
        worker: false,
        env: {
          PROVIDER_OPENAI_BASE_URL: fake.url,
          PROVIDER_MAX_RETRIES: '0',
          ...(name === 'bullmq' ? { REDIS_URL: redisUrl, JOB_QUEUE_PREFIX: `cps-t-gen-${process.pid}-${Date.now()}` } : {}),
        },
      });
    }, 60_000);
    afterEach(async () => {
      for (const child of children.splice(0)) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await new Promise((r) => child.once('exit', r));
        }
      }
    });
    afterAll(async () => {
      if (server?.ctx.queue instanceof BullJobBackend) await server.ctx.queue.obliterate();
      await server?.close();
      await fake?.close();
    });

    async function startWorker(): Promise<ChildProcess> {
      const env = sharedEnv(server, {
        LOG_LEVEL: 'info',
        PROVIDER_OPENAI_BASE_URL: fake.url,
        PROVIDER_MAX_RETRIES: '0',
        JOB_LEASE_MS: '3000',
        JOB_POLL_MS: '100',
      });
      const child = spawn(process.execPath, [...serviceEntry(), '--role', 'worker'], { cwd: serverDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let output = '';
      child.stdout!.on('data', (d) => (output += String(d)));
      child.stderr!.on('data', (d) => (output += String(d)));
      await waitFor('the worker process to start', () => {
        if (child.exitCode !== null) throw new Error(`worker exited: ${output}`);
        return output.includes('job worker started');
      }, 30_000);
      return child;
    }

    const db = () => server.ctx.db;
    const imageCount = async (taskId: number) =>
      (await db().selectFrom('image_candidates').select((eb) => eb.fn.countAll<number>().as('n')).where('task_id', '=', taskId).executeTakeFirstOrThrow()).n;
    const ledgerKeys = async (taskId: number) =>
      (await db().selectFrom('provider_calls').select('call_key').where('call_key', 'like', `task:${taskId}:%`).execute()).map((r) => r.call_key);
    const paidCalls = (kind: string, since = 0) => fake.calls.filter((c) => c.kind === kind && c.status === 200 && c.startedAt >= since).length;

    it('a second worker finishes the task: no duplicate candidates, no paid call repeated for a finished step', async () => {
      const token = await server.adminToken();
      const ws = await workspaceWithProduct(server, { apiKey: false });
      await ok(server, 'POST', '/api-keys', token, { provider: 'openai', api_key: 'sk-kill-test-0000' });
      const first = await startWorker();
      const task = await createTask(server, ws, { text_count: 3, image_count: 6 });

      await waitFor('a few stored images', async () => (await imageCount(task.id)) >= 4, 60_000);
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      // Requests the dead worker had in flight still get their (paid) answer logged by the fake.
      await sleep(IMAGE_LATENCY_MS + 200);
      const atKill = {
        images: await imageCount(task.id),
        ledger: await ledgerKeys(task.id),
        status: (await db().selectFrom('tasks').select('status').where('id', '=', task.id).executeTakeFirstOrThrow()).status,
      };
      expect(atKill.status).toBe('generating');
      expect(atKill.images).toBeLessThan(18);

      const restartedAt = Date.now();
      await startWorker();
      await waitFor(
        'the task to settle',
        async () => (await db().selectFrom('tasks').select('status').where('id', '=', task.id).executeTakeFirstOrThrow()).status !== 'generating',
        90_000,
      );

      const detail = await ok(server, 'GET', `/tasks/${task.id}`, ws.token);
      expect(detail.status).toBe('pending_selection');
      expect((detail.text_candidates as any[]).map((t) => t.strategy).sort()).toEqual(['A', 'B', 'C']);
      const images = detail.image_candidates as any[];
      expect(images).toHaveLength(18);
      expect(new Set(images.map((i) => `${i.strategy}${i.seq}`)).size).toBe(18);

      // After the restart only the steps missing from the ledger were paid for, each once.
      const done = (kind: string) => atKill.ledger.filter((k) => k.includes(`:${kind}:`)).length;
      const ledgerAtKill = atKill.ledger.join(' ');
      expect(paidCalls('image', restartedAt), ledgerAtKill).toBe(18 - done('image'));
      expect(paidCalls('notes', restartedAt), ledgerAtKill).toBe(3 - done('text'));
      expect(paidCalls('score', restartedAt), ledgerAtKill).toBe(3 - done('score'));
      expect(done('image')).toBeGreaterThanOrEqual(atKill.images);

      // Every candidate was announced once, and the stream ends with one done.
      const events = await eventsOf(server, task.id);
      expect(named(events, 'text_candidate')).toHaveLength(3);
      expect(named(events, 'image_candidate')).toHaveLength(18);
      expect(named(events, 'done')).toEqual([{ status: 'pending_selection' }]);
    }, 180_000);
  });
}
