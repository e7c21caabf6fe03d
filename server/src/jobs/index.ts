import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import type { Database } from '../db/database.js';
import { InProcessJobBackend } from './in-process.js';
import type { JobOptions } from './options.js';
import { StaleWorkSweeper } from './sweeper.js';
import type { JobBackend, JobHandlers, JobWorker, KindLanes } from './types.js';

/**
 * BullMQ when REDIS_URL is set, else the durable queue in the database, whose enqueues wake the
 * workers of the process's other threads through `threadChannel` (BullMQ's are woken by Redis).
 * BullMQ is loaded only when it is used.
 */
export async function createJobBackend(
  config: Config,
  database: Pick<Database, 'db' | 'dialect'>,
  options: JobOptions = config.jobs,
  lanes: KindLanes = {},
  threadChannel?: string,
): Promise<JobBackend> {
  if (!config.redisUrl) return new InProcessJobBackend(database.db, database.dialect, options, threadChannel);
  const { BullJobBackend } = await import('./bullmq.js');
  return new BullJobBackend(config.redisUrl, options, lanes);
}

/** A periodic chore of the worker role (the unused-file sweep): started with the worker, stopped before it. */
export interface WorkerChore {
  start(): void;
  stop(): Promise<void>;
}

/** The worker role of a process: runs jobs, sweeps stale work and runs the chores until closed. */
export function startJobWorker(ctx: AppContext, backend: JobBackend, handlers: JobHandlers, chores: WorkerChore[] = []): JobWorker {
  const worker = backend.startWorker(ctx, handlers);
  const sweeper = new StaleWorkSweeper(ctx, backend, handlers, backend.options);
  sweeper.start();
  for (const chore of chores) chore.start();
  ctx.log.info(
    { queue: ctx.config.redisUrl ? 'bullmq' : 'in-process', concurrency: backend.options.concurrency, notifyConcurrency: backend.options.notifyConcurrency, kinds: Object.keys(handlers) },
    'job worker started',
  );
  return {
    async close() {
      for (const chore of chores) await chore.stop();
      await sweeper.stop();
      await worker.close();
    },
  };
}
