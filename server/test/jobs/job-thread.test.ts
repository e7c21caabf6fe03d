import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreadEventTransport } from '../../src/events/thread-transport.js';
import type { StoredTaskEvent } from '../../src/events/types.js';
import { InProcessJobBackend } from '../../src/jobs/in-process.js';
import { jobOptionsFrom } from '../../src/config.js';
import { describeOncePerCi, startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, Deployment, must, storedEvents, TaskFollower } from '../reliability/harness.js';

/**
 * npm start runs its jobs in a thread of its own (job-thread.ts). What crosses between the
 * threads is checked on its own (a channel per process run), then the whole process: a
 * generation run by the thread, followed live through the API, its figures on /metrics, and a
 * SIGTERM in the middle of one.
 */
describe('between the threads of one process', () => {
  it('carries task events from one thread’s bus to the other’s listeners, and only within its own channel', async () => {
    const channel = `test-${randomUUID()}`;
    const [sender, receiver, stranger] = [new ThreadEventTransport(channel), new ThreadEventTransport(channel), new ThreadEventTransport(`test-${randomUUID()}`)];
    const received: StoredTaskEvent[][] = [];
    const strangers: StoredTaskEvent[][] = [];
    const arrived = new Promise<void>((resolve) => void receiver.start((events) => (received.push(events), resolve())));
    await stranger.start((events) => strangers.push(events));
    await sender.start(() => {
      throw new Error('a channel does not deliver back to its sender');
    });
    const events: StoredTaskEvent[] = [{ taskId: 7, seq: 3, name: 'progress', data: { stage: 'text', done: 1, total: 2 } } as unknown as StoredTaskEvent];
    await sender.publish(events);
    await arrived;
    expect(received).toEqual([events]);
    expect(strangers).toEqual([]);
    await Promise.all([sender, receiver, stranger].map((t) => t.close()));
  });

  describe('job wake-ups', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ worker: false });
    });
    afterAll(async () => {
      await server.close();
    });

    it('an enqueue in one thread wakes the workers of the others at once, with no poll to wait for', async () => {
      const channel = `test-${randomUUID()}`;
      // Polling once an hour: only the wake-up can start the job within the test.
      const options = { ...jobOptionsFrom({}), pollMs: 3_600_000 };
      const { db, dialect } = server.ctx;
      const api = new InProcessJobBackend(db, dialect, options, channel);
      const jobs = new InProcessJobBackend(db, dialect, options, channel);
      let ran!: (refId: number) => void;
      const started = new Promise<number>((resolve) => (ran = resolve));
      const handler = { findStale: async () => [], run: async (_ctx: unknown, refId: number) => ran(refId), onFailed: async () => undefined };
      const worker = jobs.startWorker(server.ctx, { 'package.build': handler } as never);
      // The worker's first claim finds nothing; it then sleeps for the hour.
      await new Promise((r) => setTimeout(r, 200));
      await api.enqueue('package.build', 41);
      expect(await started).toBe(41);
      await worker.close();
      await Promise.all([api.close(), jobs.close()]);
    });
  });
});

describeOncePerCi('npm start: jobs in a thread of their own', { timeout: 180_000 }, () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await Deployment.create();
  });
  afterAll(async () => {
    await d.close();
  });

  it('generates in the job thread: its events stream live through the API, its figures are on /metrics, SIGTERM lets it finish', async () => {
    // A short grace: on a busy machine a generation outlasts the 15 s shutdown deadline, and the test
    // is that SIGTERM releases it to the next start, not how fast the machine is.
    const startService = () => d.start('all', { JOB_SHUTDOWN_GRACE_MS: '2000' });
    let proc = await startService();
    const token = await adminToken(proc.url!);
    await must(proc.url!, 'POST', '/api-keys', token, { provider: 'local', api_key: 'local-thread-key' });
    const product = await must(proc.url!, 'POST', '/products', token, { name: '云朵保湿霜', category: '护肤', source: 'custom', selling_points: ['48小时保湿'] });
    const start = async (theme: string) => (await must(proc.url!, 'POST', '/tasks', token, { product_id: product.id, theme, text_count: 3, image_count: 2, track: 'ai' })).id as number;

    const first = await start('线程');
    const follower = new TaskFollower(() => proc.url!, token, first);
    expect(await follower.run(Date.now() + 60_000)).toBe(true);
    expect(follower.problems(await storedEvents(d, first))).toEqual([]);
    expect(follower.reconnects).toBe(0);
    // The thread's lines reach stdout through its own asynchronous writer.
    await waitFor(async () => /"thread":"jobs".*"job":"task.generate".*"msg":"job run finished"/.test(proc.service.stdout()));
    expect(proc.service.stdout()).toMatch(/"thread":"jobs".*"msg":"job worker started"/);

    const metrics = (await call(proc.url!, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/^cps_job_duration_seconds_count\{kind="task.generate",outcome="ok"\} 1$/m);
    // The process-wide figures are the main thread's, once.
    expect(metrics.match(/^process_cpu_user_seconds_total /gm)).toHaveLength(1);
    expect(metrics).toMatch(/^cps_http_request_duration_seconds_count\{/m);

    // SIGTERM while a generation runs: the thread finishes it (or leaves it to the next start) and the process exits 0.
    const second = await start('停机');
    await waitFor(async () => (await must(proc.url!, 'GET', `/tasks/${second}`, token)).status === 'generating');
    expect(await proc.service.stop()).toBe(0);
    d.procs.splice(d.procs.indexOf(proc), 1);
    expect(d.errorLines()).toEqual([]);
    proc = await startService();
    await waitFor(async () => (await must(proc.url!, 'GET', `/tasks/${second}`, token)).status === 'pending_selection');
  });
});

async function waitFor(check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
