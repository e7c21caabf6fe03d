import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.js';

/** Event names of contract-decisions §5. */
export type TaskEventName = 'status' | 'progress' | 'text_delta' | 'text_candidate' | 'image_candidate' | 'error' | 'done';

export interface NewTaskEvent {
  name: TaskEventName;
  data: unknown;
}

export interface StoredTaskEvent extends NewTaskEvent {
  taskId: number;
  seq: number;
}

/**
 * Task events are stored with a gap-free per-task seq in the same transaction as the state they
 * describe, then fanned out to live subscribers (in this process or, when configured, others).
 */
export interface TaskEventBus {
  /** Runs `work` in one transaction and appends the events it returns; publishes after commit. */
  commit<T>(taskId: number, work: (trx: Transaction<DB>) => Promise<{ result: T; events: NewTaskEvent[] }>): Promise<T>;
  /** Appends events that describe no other stored state (progress, text deltas). */
  append(taskId: number, events: NewTaskEvent[]): Promise<void>;
  /** Stored events with seq > afterSeq in seq order; at most `limit` of them when given. */
  replay(taskId: number, afterSeq: number, limit?: number): Promise<StoredTaskEvent[]>;
  /** Live events of one task; returns the unsubscribe function. */
  subscribe(taskId: number, listener: (event: StoredTaskEvent) => void): () => void;
}
