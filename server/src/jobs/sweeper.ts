import type { AppContext } from '../context.js';
import type { JobOptions } from './options.js';
import { countResume } from './repository.js';
import { errorMessage } from './runner.js';
import { PeriodicChore } from './periodic.js';
import type { JobBackend, JobDefinition, JobHandlers, JobKind } from './types.js';

const BATCH = 100;
/** Resumes further back than this are forgotten (see countResume). */
const RESUME_WINDOW_MS = 24 * 3600 * 1000;

/**
 * The safety net under both queues: a record that should have background work going (a task
 * pending or generating, a fission generating, a package pending) but whose lease lapsed and
 * that has no live job, because its job was lost (Redis flushed, a crash between commit and
 * enqueue, a job failed while its onFailed could not write), is resumed by enqueuing its job
 * again, or failed through the owner's onFailed after `maxResumes` resumes. So no record stays
 * in flight forever. Runs in every worker process; a claim in job_resumes keeps several
 * sweepers from acting on the same record at once.
 */
export class StaleWorkSweeper extends PeriodicChore {
  constructor(
    ctx: AppContext,
    private readonly backend: JobBackend,
    private readonly handlers: JobHandlers,
    private readonly options: JobOptions,
  ) {
    super(ctx, 'stale-work sweep', options.sweepMs);
  }

  protected pass() {
    return this.sweep();
  }

  /** One pass over every kind this process has a handler for. Returns what it did, for tests and logs. */
  async sweep(): Promise<{ resumed: Array<[JobKind, number]>; failed: Array<[JobKind, number]> }> {
    const result = { resumed: [] as Array<[JobKind, number]>, failed: [] as Array<[JobKind, number]> };
    const now = Date.now();
    const nowIso = new Date(now).toISOString();
    // Twice the lease: a worker renews it every third of a lease, so this is well past any live one.
    const staleBeforeIso = new Date(now - 2 * this.options.leaseMs).toISOString();
    for (const [kind, handler] of Object.entries(this.handlers)) {
      // A kind whose work leaves no state to watch (fission image retries keep their error markers) declares no rule.
      const stale = handler.findStale ? await handler.findStale(this.ctx.db, { nowIso, staleBeforeIso, limit: BATCH }) : [];
      for (const refId of stale) {
        try {
          const outcome = await this.sweepOne(kind, handler, refId, nowIso, staleBeforeIso);
          if (outcome) result[outcome].push([kind, refId]);
        } catch (err) {
          this.ctx.log.error({ job: kind, refId, err: errorMessage(err) }, 'sweeping stale work failed');
        }
      }
    }
    return result;
  }

  private async sweepOne(
    kind: JobKind,
    handler: JobDefinition,
    refId: number,
    nowIso: string,
    staleBeforeIso: string,
  ): Promise<'resumed' | 'failed' | undefined> {
    if (await this.backend.hasLiveJob(kind, refId)) return undefined;
    const resumes = await countResume(this.ctx.db, kind, refId, {
      nowIso,
      sweptBeforeIso: staleBeforeIso,
      windowStartIso: new Date(Date.parse(nowIso) - RESUME_WINDOW_MS).toISOString(),
    });
    if (resumes === undefined) return undefined;
    if (resumes > this.options.maxResumes) {
      const reason = `the background work stopped without finishing and was restarted ${this.options.maxResumes} times; giving up`;
      this.ctx.log.error({ job: kind, refId }, reason);
      await handler.onFailed(this.ctx, refId, reason);
      return 'failed';
    }
    this.ctx.log.warn({ job: kind, refId, resumes }, 'resuming stale background work');
    await this.backend.enqueue(kind, refId);
    return 'resumed';
  }
}
