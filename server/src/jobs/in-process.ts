import { BroadcastChannel } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import type { Db, Dialect } from '../db/database.js';
import { laneConcurrency, retryDelayMs, type JobOptions } from './options.js';
import {
  claimNextJob,
  countJobs,
  deleteFinishedJob,
  hasLiveJobRow,
  insertJob,
  markJobFailed,
  releaseJob,
  renewJobLease,
  scheduleJobRetry,
  type ClaimedJob,
  type KindFilter,
} from './repository.js';
import { errorMessage, runJob, type RunEnv } from './runner.js';
import { handlersByLane, type JobBackend, type JobHandlers, type JobKind, type JobWorker, type QueueCounts } from './types.js';

const nowIso = () => new Date().toISOString();
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

/**
 * The default queue: jobs are rows of the `jobs` table, so queued work survives a restart and
 * several processes sharing one database (`npm run api` + `npm run worker`) share the queue.
 * Workers in this process are woken on enqueue (in its other threads too, through `threadChannel`:
 * npm start's job thread); other processes find the job by polling.
 */
export class InProcessJobBackend implements JobBackend {
  private readonly workers = new Set<InProcessWorker>();
  private readonly otherThreads: BroadcastChannel | undefined;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    readonly options: JobOptions,
    threadChannel?: string,
  ) {
    if (threadChannel) {
      this.otherThreads = new BroadcastChannel(`${threadChannel}:jobs`);
      this.otherThreads.unref();
      this.otherThreads.onmessage = () => this.wakeWorkers();
    }
  }

  async enqueue(kind: JobKind, refId: number): Promise<void> {
    await insertJob(this.db, kind, refId, nowIso());
    this.wakeWorkers();
    this.otherThreads?.postMessage(kind);
  }

  private wakeWorkers(): void {
    for (const worker of this.workers) worker.wake();
  }

  hasLiveJob(kind: JobKind, refId: number): Promise<boolean> {
    return hasLiveJobRow(this.db, kind, refId);
  }

  counts(): Promise<QueueCounts> {
    return countJobs(this.db, nowIso());
  }

  /** One worker per lane with handlers, each with its lane's concurrency and kinds. */
  startWorker(ctx: AppContext, handlers: JobHandlers): JobWorker {
    const lanes = handlersByLane(handlers);
    const elsewhere = (lane: string) => lanes.filter(([other]) => other !== lane).flatMap(([, h]) => Object.keys(h));
    const workers = lanes.map(([lane, laneHandlers]) => {
      const kinds: KindFilter = lane === 'work' ? { except: elsewhere(lane) } : { only: Object.keys(laneHandlers) };
      const options = { ...this.options, concurrency: laneConcurrency(this.options, lane) };
      const worker = new InProcessWorker({ ctx, handlers, options }, this.db, this.dialect, kinds, ctx.log, () => this.workers.delete(worker));
      this.workers.add(worker);
      return worker;
    });
    return { close: async () => void (await Promise.all(workers.map((w) => w.close()))) };
  }

  async close(): Promise<void> {
    this.otherThreads?.close();
    await Promise.all([...this.workers].map((w) => w.close()));
  }
}

interface Running {
  job: ClaimedJob;
  done: Promise<void>;
}

class InProcessWorker implements JobWorker {
  private readonly running = new Map<number, Running>();
  /** Aborts running jobs: only when the shutdown grace period is over. */
  private readonly stop = new AbortController();
  private claiming = true;
  /** Set by wake(): an enqueue or a finished job during a claim must not wait for the next poll. */
  private woken = false;
  private wakeUp: (() => void) | undefined;
  private readonly loop: Promise<void>;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly env: RunEnv,
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly kinds: KindFilter,
    private readonly log: Logger,
    private readonly onClosed: () => void,
  ) {
    this.loop = this.claimLoop();
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async claimLoop(): Promise<void> {
    const { options } = this.env;
    while (this.claiming) {
      this.woken = false;
      let claimed: ClaimedJob | undefined;
      if (this.running.size < options.concurrency) {
        try {
          claimed = await claimNextJob(this.db, this.dialect, nowIso(), inMs(options.leaseMs), this.kinds);
        } catch (err) {
          this.log.error({ err: errorMessage(err) }, 'claiming a job failed');
        }
      }
      if (claimed && this.claiming) {
        this.start(claimed);
        continue;
      }
      if (claimed) {
        await releaseJob(this.db, claimed, nowIso()).catch(() => undefined);
        break;
      }
      if (!this.claiming) break;
      if (this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  private start(job: ClaimedJob): void {
    const { options } = this.env;
    const done = runJob(this.env, { kind: job.kind, refId: job.ref_id, attempt: job.attempts }, {
      stop: this.stop.signal,
      heartbeat: () => renewJobLease(this.db, job, inMs(options.leaseMs), nowIso()),
    })
      .then(async (outcome) => {
        switch (outcome.status) {
          case 'done':
            return deleteFinishedJob(this.db, job);
          case 'retry':
            return scheduleJobRetry(this.db, job, inMs(retryDelayMs(options, job.attempts)), outcome.reason, nowIso());
          case 'failed':
            return markJobFailed(this.db, job, outcome.reason, nowIso());
          case 'released':
            return releaseJob(this.db, job, nowIso());
          case 'busy':
            return releaseJob(this.db, job, nowIso(), inMs(outcome.retryInMs));
          case 'lost':
            return undefined;
        }
      })
      .catch((err: unknown) => {
        // The row keeps its lease until it lapses; then a worker claims it again.
        this.log.error({ job: job.kind, refId: job.ref_id, err: errorMessage(err) }, 'recording a job outcome failed');
      })
      .finally(() => {
        this.running.delete(job.id);
        this.wake();
      });
    this.running.set(job.id, { job, done });
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const { shutdownGraceMs } = this.env.options;
    // Stop claiming first; running jobs keep going for the grace period.
    this.claiming = false;
    this.wake();
    await this.loop;
    const settled = Promise.all([...this.running.values()].map((r) => r.done));
    const inTime = await Promise.race([settled.then(() => true), sleep(shutdownGraceMs).then(() => false)]);
    if (!inTime) {
      this.log.warn({ jobs: this.running.size }, 'releasing jobs still running at shutdown');
      this.stop.abort();
      // Handlers that honour the signal stop between steps and their jobs are released; the
      // rows of those that do not are released here, so nothing waits for a lease to lapse.
      await Promise.race([settled, sleep(1_000)]);
      await Promise.all([...this.running.values()].map((r) => releaseJob(this.db, r.job, nowIso()).catch(() => undefined)));
    }
    this.onClosed();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
