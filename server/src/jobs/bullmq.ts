import { DelayedError, Queue, UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { AppContext } from '../context.js';
import { laneConcurrency, type JobOptions } from './options.js';
import { runJob } from './runner.js';
import { handlersByLane, type JobBackend, type JobHandlers, type JobKind, type JobLane, type JobWorker, type KindLanes, type QueueCounts } from './types.js';

const queueName = (lane: JobLane) => (lane === 'work' ? 'jobs' : `jobs-${lane}`);
const ENQUEUE_TIMEOUT_MS = 5_000;
const LIVE_STATES = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

interface JobData {
  kind: JobKind;
  refId: number;
}

const dedupId = (kind: string, refId: number) => `${kind}:${refId}`;

/**
 * BullMQ on Redis (REDIS_URL): any number of worker processes share one queue. Job data is only
 * {kind, refId}; the deduplication id merges enqueues of the same work while one waits and keeps
 * one follow-up while one runs (keepLastIfActive), so the same record never runs twice at once.
 * Retries use BullMQ's attempts with exponential backoff; a worker killed mid-job loses its lock
 * and the stalled-job check of any live worker puts the job back.
 */
export class BullJobBackend implements JobBackend {
  private readonly connection: Redis;
  /** One queue per lane: `jobs` for `work`, `jobs-notify` for `notify`, `jobs-bulk` for `bulk`. */
  private readonly queues: Record<JobLane, Queue<JobData>>;
  private readonly workers = new Set<BullWorker>();

  constructor(
    private readonly redisUrl: string,
    readonly options: JobOptions,
    private readonly lanes: KindLanes = {},
  ) {
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const queue = (lane: JobLane) => new Queue<JobData>(queueName(lane), { connection: this.connection, prefix: options.prefix });
    this.queues = { work: queue('work'), notify: queue('notify'), bulk: queue('bulk') };
  }

  private queueOf(kind: JobKind): Queue<JobData> {
    return this.queues[this.lanes[kind] ?? 'work'];
  }

  async enqueue(kind: JobKind, refId: number): Promise<void> {
    const added = this.queueOf(kind).add(kind, { kind, refId }, {
      deduplication: { id: dedupId(kind, refId), keepLastIfActive: true },
      attempts: this.options.maxAttempts,
      backoff: { type: 'exponential', delay: this.options.backoffMs },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
    });
    // While Redis is down BullMQ waits for it; an API request must not. The add still lands once
    // Redis is back, and otherwise the sweeper enqueues the record's work again.
    await Promise.race([
      added,
      sleep(ENQUEUE_TIMEOUT_MS).then(() => {
        throw new Error(`the job queue (Redis) did not answer within ${ENQUEUE_TIMEOUT_MS / 1000} s`);
      }),
    ]);
  }

  async hasLiveJob(kind: JobKind, refId: number): Promise<boolean> {
    const queue = this.queueOf(kind);
    const jobId = await queue.getDeduplicationJobId(dedupId(kind, refId));
    if (!jobId) return false;
    return LIVE_STATES.has(await queue.getJobState(jobId));
  }

  async counts(): Promise<QueueCounts> {
    const total: QueueCounts = { waiting: 0, delayed: 0, running: 0, failed: 0 };
    for (const queue of Object.values(this.queues)) {
      const c = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'failed');
      total.waiting += (c.waiting ?? 0) + (c.prioritized ?? 0);
      total.delayed += c.delayed ?? 0;
      total.running += c.active ?? 0;
      total.failed += c.failed ?? 0;
    }
    return total;
  }

  /** One BullMQ worker per lane with handlers, on that lane's queue, with its concurrency. */
  startWorker(ctx: AppContext, handlers: JobHandlers): JobWorker {
    const workers = handlersByLane(handlers).map(([lane]) => {
      const worker = new BullWorker(ctx, handlers, this.options, lane, this.redisUrl, () => this.workers.delete(worker));
      this.workers.add(worker);
      return worker;
    });
    return { close: async () => void (await Promise.all(workers.map((w) => w.close()))) };
  }

  async close(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.close()));
    for (const queue of Object.values(this.queues)) await queue.close();
    await this.connection.quit().catch(() => undefined);
  }

  /** Stops the workers and removes every key of this queue: tests only (each uses its own prefix). */
  async obliterate(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.close()));
    for (const queue of Object.values(this.queues)) await queue.obliterate({ force: true });
  }
}

class BullWorker implements JobWorker {
  private readonly connection: Redis;
  private readonly worker: Worker<JobData>;
  private readonly stop = new AbortController();
  private readonly lostLocks = new Set<string>();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly ctx: AppContext,
    handlers: JobHandlers,
    private readonly options: JobOptions,
    lane: JobLane,
    redisUrl: string,
    private readonly onClosed: () => void,
  ) {
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const env = { ctx, handlers, options };
    this.worker = new Worker<JobData>(
      queueName(lane),
      async (job: Job<JobData>, token?: string) => {
        const { kind, refId } = job.data;
        // A run cut short by a dead worker counts as an attempt, as in the in-process queue; a
        // run released at shutdown (moveToWait) does not.
        const attempt = job.attemptsMade + job.stalledCounter + 1;
        const outcome = await runJob(env, { kind, refId, attempt }, { stop: this.stop.signal, heartbeat: async () => !this.lostLocks.has(job.id!) });
        this.lostLocks.delete(job.id!);
        switch (outcome.status) {
          case 'done':
          case 'lost':
            return;
          case 'retry':
            throw new Error(outcome.reason);
          case 'failed':
            // Final: onFailed already ran; no further attempt whatever attempts remain.
            throw new UnrecoverableError(outcome.reason);
          case 'released':
            await job.moveToWait(token);
            throw new WaitingError();
          case 'busy':
            await job.moveToDelayed(Date.now() + outcome.retryInMs, token);
            throw new DelayedError();
        }
      },
      {
        connection: this.connection,
        prefix: options.prefix,
        concurrency: laneConcurrency(options, lane),
        lockDuration: options.leaseMs,
        stalledInterval: options.leaseMs,
        // Dead workers count as attempts in the runner, which gives up first and calls onFailed.
        maxStalledCount: options.maxAttempts,
        autorun: true,
      },
    );
    this.worker.on('error', (err) => ctx.log.error({ err: err.message }, 'job worker error'));
    // A lock BullMQ could not renew (the event loop stalled past the lease) may already be another
    // worker's: the run is told through its heartbeat and stops.
    this.worker.on('lockRenewalFailed', (jobIds) => {
      for (const id of jobIds) this.lostLocks.add(id);
    });
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const closed = this.worker.close();
    const inTime = await Promise.race([closed.then(() => true), sleep(this.options.shutdownGraceMs).then(() => false)]);
    if (!inTime) {
      this.ctx.log.warn('releasing jobs still running at shutdown');
      this.stop.abort();
      // Released jobs go back to waiting; a handler that ignores the signal leaves its job to
      // the stalled-job check once its lock expires.
      const released = await Promise.race([closed.then(() => true), sleep(1_000).then(() => false)]);
      if (!released) await this.worker.close(true);
    }
    await this.connection.quit().catch(() => undefined);
    this.onClosed();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
