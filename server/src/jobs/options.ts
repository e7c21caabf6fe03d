import type { JobOptions } from '../config.js';
import type { JobLane } from './types.js';

export type { JobOptions };

export function laneConcurrency(options: JobOptions, lane: JobLane): number {
  return lane === 'notify' ? options.notifyConcurrency : lane === 'bulk' ? options.bulkConcurrency : options.concurrency;
}

/** Exponential backoff: backoffMs, 2×, 4×, … after the 1st, 2nd, 3rd failed attempt. */
export function retryDelayMs(options: JobOptions, failedAttempts: number): number {
  return options.backoffMs * 2 ** Math.max(0, failedAttempts - 1);
}
