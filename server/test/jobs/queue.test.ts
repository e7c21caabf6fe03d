import { Queue } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import type { JobOptions } from '../../src/jobs/options.js';
import { jobRegistry, PermanentJobError, type JobBackend, type JobHandler, type JobRun } from '../../src/jobs/types.js';
import type { Runtime } from '../../src/runtime.js';
import {
  disposeBackend,
  freshJobsDb,
  makeBackend,
  redisUnavailable,
  redisUrl,
  sleep,
  testJobOptions,
  waitFor,
  type BackendName,
  type JobsDb,
} from './harness.js';

const bullmqSkipReason = await redisUnavailable();

/** A handler that records what it was given; `body` decides what each run does. */
function recording(body: (refId: number, job: JobRun) => Promise<void> = async () => undefined) {
  const runs: Array<{ ctx: AppContext; refId: number; attempt: number; argCount: number }> = [];
  const failures: Array<{ refId: number; reason: string }> = [];
  const handler: JobHandler = {
    async run(...args: Parameters<JobHandler['run']>) {
      const [ctx, refId, job] = args;
      runs.push({ ctx, refId, attempt: job.attempt, argCount: args.length });
      await body(refId, job);
    },
    async onFailed(_ctx, refId, reason) {
      failures.push({ refId, reason });
    },
  };
  return { handler, runs, failures };
}

for (const name of ['in-process', 'bullmq'] as BackendName[]) {
  describe.skipIf(name === 'bullmq' && bullmqSkipReason !== undefined)(`job queue (${name})`, () => {
    let db: JobsDb;
    let runtime: Runtime;
    const backends: JobBackend[] = [];

    beforeEach(async () => {
      db = await freshJobsDb();
      runtime = await db.open();
    });
    afterEach(async () => {
      for (const b of backends.splice(0)) await disposeBackend(b);
      await db.dispose();
    });

    function backend(options: JobOptions = testJobOptions(), on: Runtime = runtime): JobBackend {
      const b = makeBackend(name, on, options);
      backends.push(b);
      return b;
    }

    it('runs an enqueued job once, with only its id; a second enqueue while it waits is merged', async () => {
      const options = testJobOptions();
      const b = backend(options);
      const { handler, runs } = recording();
      await b.enqueue('task.generate', 41);
      await b.enqueue('task.generate', 41);
      expect(await b.hasLiveJob('task.generate', 41)).toBe(true);
      expect(await b.hasLiveJob('task.generate', 42)).toBe(false);
      if (name === 'bullmq') {
        const queue = new Queue('jobs', { connection: { url: redisUrl }, prefix: options.prefix });
        const waiting = await queue.getWaiting();
        await queue.close();
        expect(waiting.map((j) => j.data)).toEqual([{ kind: 'task.generate', refId: 41 }]);
      } else {
        const rows = await runtime.ctx.db.selectFrom('jobs').select(['kind', 'ref_id', 'status']).execute();
        expect(rows).toEqual([{ kind: 'task.generate', ref_id: 41, status: 'queued' }]);
      }

      b.startWorker(runtime.ctx, jobRegistry([{ kind: 'task.generate', ...handler }]));
      await waitFor('the run', () => runs.length === 1);
      await waitFor('the job to finish', async () => !(await b.hasLiveJob('task.generate', 41)));
      await sleep(300);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ refId: 41, attempt: 1, argCount: 3 });
      expect(runs[0]!.ctx).toBe(runtime.ctx);
    });

    it('queues exactly one follow-up for an enqueue made while the same work runs, never running both at once', async () => {
      const b = backend();
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let active = 0;
      let maxActive = 0;
      const { handler, runs } = recording(async () => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        if (runs.length === 1) await gate;
        active -= 1;
      });
      b.startWorker(runtime.ctx, jobRegistry([{ kind: 'task.generate', ...handler }]));
      await b.enqueue('task.generate', 7);
      await waitFor('the first run to start', () => runs.length === 1);
      await b.enqueue('task.generate', 7);
      await b.enqueue('task.generate', 7);
      await sleep(200);
      expect(runs).toHaveLength(1);
      release();
      await waitFor('the follow-up run', () => runs.length === 2);
      await waitFor('the queue to drain', async () => !(await b.hasLiveJob('task.generate', 7)));
      await sleep(300);
      expect(runs).toHaveLength(2);
      expect(maxActive).toBe(1);
    });

    it('retries a failing job with backoff up to the maximum, then calls onFailed once with the reason', async () => {
      const b = backend(testJobOptions({ maxAttempts: 3 }));
      const { handler, runs, failures } = recording(async (_refId, job) => {
        throw new Error(`provider down on attempt ${job.attempt}`);
      });
      b.startWorker(runtime.ctx, jobRegistry([{ kind: 'package.build', ...handler }]));
      await b.enqueue('package.build', 5);
      await waitFor('onFailed', () => failures.length === 1);
      await waitFor('the job to leave the queue', async () => !(await b.hasLiveJob('package.build', 5)));
      await sleep(300);
      expect(runs.map((r) => r.attempt)).toEqual([1, 2, 3]);
      expect(failures).toEqual([{ refId: 5, reason: 'provider down on attempt 3' }]);
    });

    it('succeeds on a retry without calling onFailed', async () => {
      const b = backend();
      const { handler, runs, failures } = recording(async (_refId, job) => {
        if (job.attempt === 1) throw new Error('timeout');
      });
      b.startWorker(runtime.ctx, jobRegistry([{ kind: 'task.generate', ...handler }]));
      await b.enqueue('task.generate', 9);
      await waitFor('the retry', () => runs.length === 2);
      await waitFor('the job to finish', async () => !(await b.hasLiveJob('task.generate', 9)));
      await sleep(200);
      expect(runs.map((r) => r.attempt)).toEqual([1, 2]);
      expect(failures).toEqual([]);
    });

    it('does not retry a PermanentJobError', async () => {
      const b = backend();
      const { handler, runs, failures } = recording(async () => {
        throw new PermanentJobError('the task no longer exists');
      });
      b.startWorker(runtime.ctx, jobRegistry([{ kind: 'task.generate', ...handler }]));
      await b.enqueue('task.generate', 3);
      await waitFor('onFailed', () => failures.length === 1);
      await sleep(300);
      expect(runs).toHaveLength(1);
      expect(failures).toEqual([{ refId: 3, reason: 'the task no longer exists' }]);
    });

    it('fails a job of a kind with no handler visibly (logged, not live, not silently dropped)', async () => {
      const b = backend();
      const { handler } = recording();
      b.startWorker(runtime.ctx, jobRegistry([{ kind: 'task.generate', ...handler }]));
      await b.enqueue('fission.retry-images', 12);
      await waitFor('the job to fail', async () => !(await b.hasLiveJob('fission.retry-images', 12)));
      await waitFor('the error in the log', () => db.logs.some((l) => l.includes('no handler is registered for job kind \\"fission.retry-images\\"')));
      const line = JSON.parse(db.logs.find((l) => l.includes('no handler is registered'))!);
      expect(line.level).toBe(50);
      expect(line.refId).toBe(12);
      if (name === 'in-process') {
        const row = await runtime.ctx.db.selectFrom('jobs').select(['status', 'last_error']).where('ref_id', '=', 12).executeTakeFirstOrThrow();
        expect(row).toEqual({ status: 'failed', last_error: 'no handler is registered for job kind "fission.retry-images"' });
      }
    });

    it('runs at most JOB_CONCURRENCY jobs at once per worker', async () => {
      const b = backend(testJobOptions({ concurrency: 2 }));
      let active = 0;
      let maxActive = 0;
      const { handler, runs } = recording(async () => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        await sleep(150);
        active -= 1;
      });
      for (let id = 1; id <= 6; id++) await b.enqueue('package.build', id);
      b.startWorker(runtime.ctx, jobRegistry([{ kind: 'package.build', ...handler }]));
      await waitFor('all six runs', () => runs.length === 6 && active === 0);
      expect(maxActive).toBe(2);
      expect(runs.map((r) => r.refId).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('keeps queued jobs across a restart of the process', async () => {
      const options = testJobOptions();
      const before = makeBackend(name, runtime, options);
      for (const id of [21, 22, 23]) await before.enqueue('package.build', id);
      await before.close();
      await runtime.close();

      const reopened = await db.open();
      const after = backend(options, reopened);
      const { handler, runs } = recording();
      after.startWorker(reopened.ctx, jobRegistry([{ kind: 'package.build', ...handler }]));
      await waitFor('the queued jobs to run', () => runs.length === 3);
      expect(runs.map((r) => r.refId).sort()).toEqual([21, 22, 23]);
    });

    it('lets a running job finish on shutdown within the grace period', async () => {
      const b = backend(testJobOptions({ shutdownGraceMs: 5_000 }));
      let finished = false;
      let aborted = false;
      const { handler, runs } = recording(async (_refId, job) => {
        await sleep(400);
        aborted = job.signal.aborted;
        finished = true;
      });
      const worker = b.startWorker(runtime.ctx, jobRegistry([{ kind: 'task.generate', ...handler }]));
      await b.enqueue('task.generate', 31);
      await waitFor('the run to start', () => runs.length === 1);
      await worker.close();
      expect(finished).toBe(true);
      expect(aborted).toBe(false);
      expect(await b.hasLiveJob('task.generate', 31)).toBe(false);
    });

    it('releases a job still running when the grace period ends, without counting the attempt', async () => {
      const options = testJobOptions({ shutdownGraceMs: 200 });
      const b = backend(options);
      const first = recording(async (_refId, job) => {
        for (let step = 0; step < 100; step++) {
          if (job.signal.aborted) throw new Error('stopped between steps');
          await sleep(50);
        }
      });
      const worker = b.startWorker(runtime.ctx, jobRegistry([{ kind: 'task.generate', ...first.handler }]));
      await b.enqueue('task.generate', 32);
      await waitFor('the run to start', () => first.runs.length === 1);
      await worker.close();
      expect(await b.hasLiveJob('task.generate', 32)).toBe(true);

      const second = recording();
      b.startWorker(runtime.ctx, jobRegistry([{ kind: 'task.generate', ...second.handler }]));
      await waitFor('the released job to run again', () => second.runs.length === 1);
      expect(second.runs[0]!.attempt).toBe(1);
      expect([...first.failures, ...second.failures]).toEqual([]);
    });
  });
}
