import { setMaxListeners } from 'node:events';
import type { AppContext } from '../context.js';
import type { JobOptions } from './options.js';
import { dropRecordLease, renewRecordLease, takeRecordLease } from './repository.js';
import { PermanentJobError, type JobHandlers, type JobKind } from './types.js';

/**
 * One run of one job, the same for both backends: find the handler, take and hold the record's
 * lease while it runs (or report the record busy with another run), decide between done, retry,
 * final failure (calling the owner's onFailed) and release (shutdown or lost lease). The
 * backends only translate the outcome into their queue.
 */

export type RunOutcome =
  | { status: 'done' }
  | { status: 'retry'; reason: string }
  | { status: 'failed'; reason: string }
  /** Shutdown interrupted the run: hand the job back without counting the attempt. */
  | { status: 'released' }
  /** Another run holds the record: try again after `retryInMs`, without counting the attempt. */
  | { status: 'busy'; retryInMs: number }
  /** Another worker took the job over: touch nothing. */
  | { status: 'lost' };

export interface RunEnv {
  ctx: AppContext;
  handlers: JobHandlers;
  options: JobOptions;
}

export interface RunHooks {
  /** Aborted by the worker's shutdown. */
  stop: AbortSignal;
  /** Extends the backend's own lease on the job; false when it was lost. */
  heartbeat?: () => Promise<boolean>;
}

const MAX_ERROR_LENGTH = 2000;

export function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH)}…` : message;
}

function leaseUntil(options: JobOptions): string {
  // Wall-clock, not ctx.clock: leases coordinate processes, and a test moving the business
  // clock forward must not make every running job look abandoned.
  return new Date(Date.now() + options.leaseMs).toISOString();
}

async function failForGood(env: RunEnv, kind: JobKind, refId: number, reason: string): Promise<RunOutcome> {
  const handler = env.handlers[kind];
  env.ctx.log.error({ job: kind, refId, reason }, 'job failed for good');
  if (handler) {
    try {
      await handler.onFailed(env.ctx, refId, reason);
    } catch (err) {
      // The record keeps its state; the stale-work sweeper will find it and try again.
      env.ctx.log.error({ job: kind, refId, err: errorMessage(err) }, 'job onFailed hook failed');
    }
  }
  return { status: 'failed', reason };
}

export async function runJob(env: RunEnv, job: { kind: string; refId: number; attempt: number }, hooks: RunHooks): Promise<RunOutcome> {
  const { ctx, options } = env;
  const kind = job.kind;
  const handler = env.handlers[kind];
  if (!handler) {
    const reason = `no handler is registered for job kind "${job.kind}"`;
    ctx.log.error({ job: job.kind, refId: job.refId }, reason);
    return { status: 'failed', reason };
  }

  const lease = { until: leaseUntil(options) };
  const taken = await takeRecordLease(ctx.db, handler.leases, job.refId, lease.until, new Date().toISOString());
  if (taken === 'held') return { status: 'busy', retryInMs: Math.ceil(options.leaseMs / 2) };
  const ownsLease = taken === 'taken';
  if (job.attempt > options.maxAttempts) {
    const outcome = await failForGood(env, kind, job.refId, `the worker running it stopped ${options.maxAttempts} times without finishing`);
    if (ownsLease) await dropRecordLease(ctx.db, handler.leases, job.refId, lease.until).catch(() => undefined);
    return outcome;
  }

  const abort = new AbortController();
  // Every provider call of the job waits on its signal while it queues for a slot (a task of 18
  // images behind a pool of 2 adds 16 listeners, each removed when its call starts), and every
  // running job on the worker's stop signal: more than Node's default of 10 is the normal case,
  // not a leak, and each warning was a synchronous write to stderr.
  setMaxListeners(0, abort.signal, hooks.stop);
  let lost = false;
  const onStop = () => abort.abort(new Error('worker shutting down'));
  hooks.stop.addEventListener('abort', onStop, { once: true });
  if (hooks.stop.aborted) onStop();
  const beat = async () => {
    try {
      const next = leaseUntil(options);
      const kept =
        (hooks.heartbeat ? await hooks.heartbeat() : true) && (!ownsLease || (await renewRecordLease(ctx.db, handler.leases, job.refId, lease.until, next)));
      if (!kept) {
        lost = true;
        abort.abort(new Error('job lease lost'));
        return;
      }
      lease.until = next;
    } catch (err) {
      ctx.log.warn({ job: kind, refId: job.refId, err: errorMessage(err) }, 'job heartbeat failed');
    }
  };
  const timer = setInterval(() => void beat(), Math.max(50, Math.floor(options.leaseMs / 3)));

  try {
    await handler.run(ctx, job.refId, { attempt: job.attempt, signal: abort.signal });
    return lost ? { status: 'lost' } : { status: 'done' };
  } catch (err) {
    if (lost) return { status: 'lost' };
    if (hooks.stop.aborted) return { status: 'released' };
    const reason = errorMessage(err);
    if (err instanceof PermanentJobError || job.attempt >= options.maxAttempts) return failForGood(env, kind, job.refId, reason);
    ctx.log.warn({ job: kind, refId: job.refId, attempt: job.attempt, err: reason }, 'job attempt failed; will retry');
    return { status: 'retry', reason };
  } finally {
    clearInterval(timer);
    hooks.stop.removeEventListener('abort', onStop);
    if (!lost && ownsLease) await dropRecordLease(ctx.db, handler.leases, job.refId, lease.until).catch(() => undefined);
  }
}
