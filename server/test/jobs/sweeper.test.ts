import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/bootstrap.js';
import { json } from '../../src/db/codec.js';
import type { TaskStatus } from '../../src/db/schema.js';
import { StaleWorkSweeper } from '../../src/jobs/sweeper.js';
import { jobRegistry, type JobBackend, type JobHandler } from '../../src/jobs/types.js';
import { taskGenerateJob } from '../../src/modules/tasks/pipeline.js';
import type { Runtime } from '../../src/runtime.js';
import { disposeBackend, freshJobsDb, makeBackend, redisUnavailable, sleep, testJobOptions, waitFor, type BackendName, type JobsDb } from './harness.js';

const bullmqSkipReason = await redisUnavailable();
const LEASE_MS = 300;

for (const name of ['in-process', 'bullmq'] as BackendName[]) {
  describe.skipIf(name === 'bullmq' && bullmqSkipReason !== undefined)(`record leases and the stale-work sweeper (${name})`, () => {
    let db: JobsDb;
    let runtime: Runtime;
    let backend: JobBackend;
    let productId: number;

    beforeEach(async () => {
      db = await freshJobsDb();
      runtime = await db.open();
      await bootstrap(runtime.ctx);
      const now = new Date().toISOString();
      productId = (
        await runtime.ctx.db
          .insertInto('products')
          .values({
            workspace_id: 1,
            name: 'Sweeper product',
            category: 'test',
            source: 'custom',
            selling_points: json([]),
            text_angles: json([]),
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      backend = makeBackend(name, runtime, testJobOptions({ leaseMs: LEASE_MS, maxResumes: 2 }));
    });
    afterEach(async () => {
      await disposeBackend(backend);
      await db.dispose();
    });

    async function task(status: TaskStatus, opts: { leaseUntil?: string | null; updatedAt: string }): Promise<number> {
      const row = await runtime.ctx.db
        .insertInto('tasks')
        .values({
          workspace_id: 1,
          product_id: productId,
          operator_id: 1,
          theme: 'sweeper',
          text_count: 1,
          image_count: 0,
          track: 'ai',
          status,
          need_product_image: false,
          overlay_text: true,
          generation: 1,
          progress: json(null),
          lease_until: opts.leaseUntil ?? null,
          created_at: opts.updatedAt,
          updated_at: opts.updatedAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    }

    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();

    it('resumes lapsed and orphaned work, leaves live work alone, and fails work that keeps stalling', async () => {
      const runs: number[] = [];
      const leaseHeld: boolean[] = [];
      // Stands in for a generation whose worker keeps vanishing: it never settles the task.
      const handler: JobHandler = {
        async run(ctx, refId) {
          const row = await ctx.db.selectFrom('tasks').select('lease_until').where('id', '=', refId).executeTakeFirstOrThrow();
          leaseHeld.push(row.lease_until !== null && Date.parse(row.lease_until) > Date.now());
          runs.push(refId);
        },
        async onFailed(ctx, refId, reason) {
          await ctx.db.updateTable('tasks').set({ status: 'failed', failure_reason: reason }).where('id', '=', refId).where('status', '=', 'generating').execute();
        },
      };
      const sweeper = new StaleWorkSweeper(runtime.ctx, backend, jobRegistry([{ ...taskGenerateJob, ...handler }]), backend.options);

      const lapsed = await task('generating', { leaseUntil: ago(60_000), updatedAt: ago(3_600_000) });
      const orphaned = await task('pending', { updatedAt: ago(3_600_000) });
      const leased = await task('generating', { leaseUntil: ahead(3_600_000), updatedAt: ago(3_600_000) });
      const fresh = await task('pending', { updatedAt: new Date().toISOString() });
      const queued = await task('generating', { leaseUntil: ago(60_000), updatedAt: ago(3_600_000) });
      const settled = await task('pending_selection', { updatedAt: ago(3_600_000) });
      await backend.enqueue('task.generate', queued);

      const first = await sweeper.sweep();
      expect(first.resumed.map(([, id]) => id).sort()).toEqual([lapsed, orphaned].sort());
      expect(first.failed).toEqual([]);
      // Another sweeper (or this one again) right away does not count the same stall twice.
      expect(await sweeper.sweep()).toEqual({ resumed: [], failed: [] });

      backend.startWorker(runtime.ctx, jobRegistry([{ ...taskGenerateJob, ...handler }]));
      await waitFor('the resumed and queued runs', () => runs.length === 3);
      expect(runs.sort()).toEqual([lapsed, orphaned, queued].sort());
      expect(runs).not.toContain(leased);
      expect(runs).not.toContain(fresh);
      expect(runs).not.toContain(settled);
      // The worker held the task's lease while it ran, and let go of it afterwards.
      expect(leaseHeld).toEqual([true, true, true]);
      const after = await runtime.ctx.db.selectFrom('tasks').select('lease_until').where('id', '=', lapsed).executeTakeFirstOrThrow();
      expect(after.lease_until).toBeNull();

      // Still generating with nobody on it: resumed a second time, then given up (maxResumes 2).
      await sleep(2 * LEASE_MS + 50);
      await runtime.ctx.db.updateTable('tasks').set({ updated_at: ago(3_600_000) }).execute();
      const second = await sweeper.sweep();
      expect(second.resumed.map(([, id]) => id)).toContain(lapsed);
      await waitFor('the second resume', () => runs.filter((id) => id === lapsed).length === 2);
      await waitFor('the queue to drain', async () => !(await backend.hasLiveJob('task.generate', lapsed)));

      await sleep(2 * LEASE_MS + 50);
      const third = await sweeper.sweep();
      expect(third.failed.map(([, id]) => id)).toContain(lapsed);
      expect(third.resumed.map(([, id]) => id)).not.toContain(lapsed);
      const failed = await runtime.ctx.db.selectFrom('tasks').select(['status', 'failure_reason']).where('id', '=', lapsed).executeTakeFirstOrThrow();
      expect(failed.status).toBe('failed');
      expect(failed.failure_reason).toMatch(/restarted 2 times/);

      await sleep(2 * LEASE_MS + 50);
      const fourth = await sweeper.sweep();
      expect(fourth.resumed.map(([, id]) => id)).not.toContain(lapsed);
      expect(fourth.failed.map(([, id]) => id)).not.toContain(lapsed);
      expect(runs.filter((id) => id === lapsed)).toHaveLength(2);
    });

    it('starts no run while another run holds the record lease; runs once it lapses, without using an attempt', async () => {
      const id = await task('generating', { leaseUntil: ahead(800), updatedAt: new Date().toISOString() });
      const attempts: number[] = [];
      backend.startWorker(
        runtime.ctx,
        jobRegistry([
          {
            ...taskGenerateJob,
            async run(_ctx, _refId, job) {
              attempts.push(job.attempt);
            },
            async onFailed() {},
          },
        ]),
      );
      await backend.enqueue('task.generate', id);
      await sleep(500);
      expect(attempts).toEqual([]);
      expect(await backend.hasLiveJob('task.generate', id)).toBe(true);
      await waitFor('the run after the lease lapsed', () => attempts.length === 1);
      expect(attempts).toEqual([1]);
    });

    it('sweeps only kinds this worker can run', async () => {
      await task('generating', { leaseUntil: ago(60_000), updatedAt: ago(3_600_000) });
      const sweeper = new StaleWorkSweeper(runtime.ctx, backend, {}, backend.options);
      expect(await sweeper.sweep()).toEqual({ resumed: [], failed: [] });
    });
  });
}
