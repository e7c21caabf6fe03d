import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedProduct, seedTask, seedText, workspaceOf } from '../delivery/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from '../tasks/fixtures.js';
import { redisAvailable, redisUrl, sharedEnv } from '../tasks/processes.js';
import { Receiver, waitUntil } from './receiver.js';
import { serviceEntry } from '../helpers/service-entry.js';

/**
 * kill -9 of the worker between the commit that writes an event and its delivery: the API
 * process (this test's server, no worker) commits the approval with its outbox row; worker A
 * claims the delivery and is killed while its request hangs at the receiver; worker B delivers
 * it once A's claim lapses, with the same delivery id. In-process queue and BullMQ.
 */

const serverDir = path.resolve(import.meta.dirname, '..', '..');
const webhookEnv = { ALLOW_PRIVATE_PROVIDER_URLS: '1', WEBHOOK_POLL_MS: '25', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '1000', JOB_LEASE_MS: '1000' };
const redis = await redisAvailable();

for (const mode of ['in-process', 'bullmq'] as const) {
  // Two worker processes start (seconds of module loading each on a busy machine).
  describe.skipIf(mode === 'bullmq' && !redis)(`webhooks: a worker killed mid-delivery (${mode} queue)`, { timeout: 90_000 }, () => {
    let server: TestServer;
    let receiver: Receiver;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      receiver = await new Receiver().start();
      server = await startTestServer({
        worker: false,
        env: { ...webhookEnv, ...(mode === 'bullmq' ? { REDIS_URL: redisUrl, JOB_QUEUE_PREFIX: `cps-whc-${process.pid}-${Date.now()}` } : {}) },
      });
    });
    afterEach(async () => {
      for (const child of children.splice(0)) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await new Promise((r) => child.once('exit', r));
        }
      }
    });
    afterAll(async () => {
      await server?.close();
      await receiver?.close();
    });

    async function startWorker(): Promise<ChildProcess> {
      const child = spawn(process.execPath, [...serviceEntry(), '--role', 'worker'], {
        cwd: serverDir,
        env: sharedEnv(server, { ...webhookEnv, LOG_LEVEL: 'info' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      child.stdout!.on('data', (d) => (out += String(d)));
      child.stderr!.on('data', (d) => (out += String(d)));
      await waitUntil('the worker to start', () => {
        if (child.exitCode !== null) throw new Error(`worker exited: ${out}`);
        return /job worker started/.test(out);
      });
      return child;
    }

    it('delivers the event after kill -9 of the worker that was sending it, with the same delivery id', async () => {
      const admin = await server.adminToken();
      const ws = await workspaceOf(server, admin);
      const me = await ok(server, 'GET', '/auth/me', admin);
      const hook = await ok(server, 'POST', '/webhooks', admin, { name: '崩溃测试', kind: 'generic', url: `${receiver.url}/crash`, events: ['task.approved'], secret: 's' });
      const productId = await seedProduct(server, ws);
      const taskId = await seedTask(server, { workspaceId: ws, productId, operatorId: me.id, status: 'pending_review' });
      await seedText(server, { id: taskId, workspaceId: ws }, { strategy: 'A', selected: true });
      receiver.answer = () => 'hang';

      // The commit: approval and outbox row in one transaction, no worker alive yet.
      await ok(server, 'POST', `/review/${taskId}/approve`, admin);
      const [pending] = (await ok(server, 'GET', `/webhooks/${hook.id}/deliveries`, admin)).items;
      expect(pending).toMatchObject({ event: 'task.approved', status: 'pending', attempts: 0 });

      const first = await startWorker();
      await waitUntil('worker A to start sending', () => receiver.on('/crash').length === 1);
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      receiver.answer = () => ({ status: 200, body: { ok: true } });

      await startWorker();
      const [delivered] = await waitUntil('worker B to deliver', async () => {
        const items = (await ok(server, 'GET', `/webhooks/${hook.id}/deliveries`, admin)).items;
        return items[0]?.status === 'delivered' && items;
      });
      // A's attempt was cut off before it could be recorded; B's is the second claim.
      expect(delivered).toMatchObject({ id: pending.id, status: 'delivered', attempts: 2, http_status: 200 });
      expect(delivered.attempt_log.map((a: any) => [a.attempt, a.ok])).toEqual([[2, true]]);
      const got = receiver.on('/crash');
      expect(got).toHaveLength(2);
      expect(got.map((r) => r.body.id)).toEqual([pending.id, pending.id]);
      expect(got[1]!.raw).toBe(got[0]!.raw);
      expect(got[1]!.body).toMatchObject({ event: 'task.approved', data: { task_id: taskId, status: 'approved' } });
    });
  });
}
