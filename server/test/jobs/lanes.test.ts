import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BullJobBackend } from '../../src/jobs/bullmq.js';
import { InProcessJobBackend } from '../../src/jobs/in-process.js';
import { jobRegistry, kindLanes, type JobBackend, type JobDefinition } from '../../src/jobs/types.js';
import type { Runtime } from '../../src/runtime.js';
import { disposeBackend, freshJobsDb, redisUnavailable, redisUrl, testJobOptions, waitFor, type BackendName, type JobsDb } from './harness.js';

const bullmqSkipReason = await redisUnavailable();

/**
 * The `notify` lane (webhook deliveries) runs beside the `work` lane: notify jobs stuck on a
 * receiver that never answers fill their own slots, never the work lane's, and work jobs run
 * meanwhile; each lane keeps its own concurrency.
 */
for (const name of ['in-process', 'bullmq'] as BackendName[]) {
  describe.skipIf(name === 'bullmq' && bullmqSkipReason !== undefined)(`job lanes (${name})`, () => {
    let db: JobsDb;
    let runtime: Runtime;
    let backend: JobBackend;
    let release: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));

    const notifyRunning = new Set<number>();
    let notifyPeak = 0;
    const workDone: number[] = [];
    const notify: JobDefinition = {
      kind: 'test.notify',
      lane: 'notify',
      async run(_ctx, refId) {
        notifyRunning.add(refId);
        notifyPeak = Math.max(notifyPeak, notifyRunning.size);
        await blocked;
        notifyRunning.delete(refId);
      },
      async onFailed() {},
    };
    const work: JobDefinition = { kind: 'test.work', run: async (_ctx, refId) => void workDone.push(refId), async onFailed() {} };
    const handlers = jobRegistry([notify, work]);

    beforeEach(async () => {
      db = await freshJobsDb();
      runtime = await db.open();
      const options = testJobOptions({ concurrency: 1, notifyConcurrency: 3, leaseMs: 5_000 });
      backend =
        name === 'bullmq'
          ? new BullJobBackend(redisUrl, options, kindLanes(handlers))
          : new InProcessJobBackend(runtime.ctx.db, runtime.ctx.dialect, options);
    });
    afterEach(async () => {
      release();
      await disposeBackend(backend);
      await db.dispose();
    });

    it('runs work jobs while every notify slot is held, and holds notify jobs to their own concurrency', async () => {
      backend.startWorker(runtime.ctx, handlers);
      for (let id = 1; id <= 6; id++) await backend.enqueue('test.notify', id);
      await waitFor('the notify slots to fill', () => notifyRunning.size === 3);
      for (let id = 1; id <= 3; id++) await backend.enqueue('test.work', id);
      await waitFor('the work jobs to run beside the blocked notifications', () => workDone.length === 3);
      expect(workDone.sort()).toEqual([1, 2, 3]);
      expect(notifyRunning.size).toBe(3);
      expect(notifyPeak).toBe(3);
      release();
      await waitFor('the other notifications', async () => notifyRunning.size === 0 && (await backend.counts()).waiting === 0 && (await backend.counts()).running === 0);
      expect(notifyPeak).toBe(3);
    });
  });
}
