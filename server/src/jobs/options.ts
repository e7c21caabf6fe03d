import { ConfigError, intFrom } from '../config.js';
import type { JobLane } from './types.js';

export interface JobOptions {
  /** Jobs one worker process runs at the same time (JOB_CONCURRENCY). */
  concurrency: number;
  /** Jobs of the `notify` lane (webhook deliveries) one worker process runs at the same time (JOB_NOTIFY_CONCURRENCY). */
  notifyConcurrency: number;
  /** Attempts per job before it fails for good (JOB_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** Delay before the first retry; doubles with each further attempt (JOB_BACKOFF_MS). */
  backoffMs: number;
  /** How long a running job is held without a heartbeat before another worker may take it (JOB_LEASE_MS). */
  leaseMs: number;
  /** How often an idle in-process worker looks for jobs other processes enqueued (JOB_POLL_MS). */
  pollMs: number;
  /** How often worker processes look for stale work (JOB_SWEEP_MS). */
  sweepMs: number;
  /** Times stale work is resumed before it is failed (JOB_MAX_RESUMES). */
  maxResumes: number;
  /** How long shutdown waits for running jobs before releasing them (JOB_SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /** Redis key prefix of the BullMQ queue, so deployments can share a Redis (JOB_QUEUE_PREFIX). */
  prefix: string;
}


export function jobOptionsFrom(env: NodeJS.ProcessEnv): JobOptions {
  const prefix = env.JOB_QUEUE_PREFIX || 'cps';
  if (!/^[\w.-]{1,64}$/.test(prefix)) throw new ConfigError('JOB_QUEUE_PREFIX may hold only letters, digits, "_", "." and "-"');
  return {
    concurrency: intFrom(env, 'JOB_CONCURRENCY', 2, 1),
    notifyConcurrency: intFrom(env, 'JOB_NOTIFY_CONCURRENCY', 8, 1),
    maxAttempts: intFrom(env, 'JOB_MAX_ATTEMPTS', 3, 1),
    backoffMs: intFrom(env, 'JOB_BACKOFF_MS', 2_000, 0),
    leaseMs: intFrom(env, 'JOB_LEASE_MS', 30_000, 200),
    pollMs: intFrom(env, 'JOB_POLL_MS', 1_000, 10),
    sweepMs: intFrom(env, 'JOB_SWEEP_MS', 30_000, 50),
    maxResumes: intFrom(env, 'JOB_MAX_RESUMES', 3, 0),
    shutdownGraceMs: intFrom(env, 'JOB_SHUTDOWN_GRACE_MS', 10_000, 0),
    prefix,
  };
}

export function laneConcurrency(options: JobOptions, lane: JobLane): number {
  return lane === 'notify' ? options.notifyConcurrency : options.concurrency;
}

/** Exponential backoff: backoffMs, 2×, 4×, … after the 1st, 2nd, 3rd failed attempt. */
export function retryDelayMs(options: JobOptions, failedAttempts: number): number {
  return options.backoffMs * 2 ** Math.max(0, failedAttempts - 1);
}
