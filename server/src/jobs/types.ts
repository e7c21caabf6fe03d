import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import type { JobOptions } from './options.js';

/**
 * Jobs carry only an id (the contract: creating a task only places the task id on a work queue;
 * the package build job receives only the package id). Everything else is read from the database.
 */
export type JobKind = string;

export interface JobQueue {
  /**
   * Makes sure a run of this work starts after the call. Delivery is at least once: a second
   * enqueue while one is still waiting is merged into it; one made while a run is active queues
   * exactly one follow-up run. Handlers must therefore tolerate being run on finished work.
   */
  enqueue(kind: JobKind, refId: number): Promise<void>;
}

export type QueueCounts = Record<'waiting' | 'delayed' | 'running' | 'failed', number>;

export interface JobRun {
  /** 1 on the first attempt. */
  attempt: number;
  /**
   * Aborted when the worker shuts down or loses the job's lease: stop between steps (the job is
   * released and resumed elsewhere, so persisted steps are not lost).
   */
  signal: AbortSignal;
}

/**
 * What the worker runs for one kind. `run` persists each step before the next, so a run after a
 * crash resumes where the last one stopped. `onFailed` is called once the job has failed for
 * good (attempts exhausted, a PermanentJobError, or stale-work resumes exhausted): the owner marks
 * its record failed with `reason`, conditionally, since it may already have moved on.
 */
export interface JobHandler {
  run(ctx: AppContext, refId: number, job: JobRun): Promise<void>;
  onFailed(ctx: AppContext, refId: number, reason: string): Promise<void>;
}

/**
 * The worker pool that runs a kind. `work` (JOB_CONCURRENCY per worker): generation, fission,
 * packages. `notify` (JOB_NOTIFY_CONCURRENCY): short outbound calls such as webhook deliveries,
 * which wait on other people's servers, so a slow receiver never holds a generation's slot and
 * a long generation never delays a notification. `bulk` (JOB_BULK_CONCURRENCY): the tasks and
 * fissions of batches, so a batch of two hundred never queues ahead of someone's single task.
 * Each lane is its own BullMQ queue.
 */
export type JobLane = 'work' | 'notify' | 'bulk';

/** Tables whose records a run leases (`lease_until`), so no two runs ever work on one record. */
export type LeasedTable = 'tasks' | 'fission_tasks';

export interface StaleWindow {
  nowIso: string;
  /** Records untouched since then are stale (twice the job lease ago). */
  staleBeforeIso: string;
  limit: number;
}

/**
 * A job kind, declared once by the module that owns its records: its name, what runs it, what
 * marks its record failed for good, which record a run leases, and the stale-work sweeper's rule
 * (records that should have work going but show no sign of it). modules/jobs.ts lists them all.
 */
export interface JobDefinition extends JobHandler {
  /** `<record>.<work>`, the name the queue stores. */
  kind: JobKind;
  /** `work` when absent. */
  lane?: JobLane;
  leases?: LeasedTable;
  /** Ids of records whose work should be going but whose lease lapsed or never started, untouched since `staleBeforeIso` (across workspaces: the sweeper serves them all). */
  findStale?: (db: Db, window: StaleWindow) => Promise<number[]>;
}

/** The kinds a worker runs, by name. */
export type JobHandlers = Readonly<Record<JobKind, JobDefinition>>;

export function jobRegistry(definitions: readonly JobDefinition[]): JobHandlers {
  return Object.fromEntries(definitions.map((d) => [d.kind, d]));
}

/** The kinds that run outside the `work` lane, by lane: what a queue needs to route an enqueue. */
export type KindLanes = Readonly<Record<JobKind, JobLane>>;

export function kindLanes(handlers: JobHandlers): KindLanes {
  return Object.fromEntries(Object.values(handlers).flatMap((d) => (d.lane && d.lane !== 'work' ? [[d.kind, d.lane]] : [])));
}

/** The handlers of each lane that has any, `work` first. */
export function handlersByLane(handlers: JobHandlers): Array<[JobLane, JobHandlers]> {
  const lanes = new Map<JobLane, Record<JobKind, JobDefinition>>();
  for (const [kind, definition] of Object.entries(handlers)) {
    const lane = definition.lane ?? 'work';
    if (!lanes.has(lane)) lanes.set(lane, {});
    lanes.get(lane)![kind] = definition;
  }
  return [...lanes.entries()].sort(([a], [b]) => (a === 'work' ? -1 : b === 'work' ? 1 : 0));
}

/** A failure that another attempt cannot fix (record gone, key deleted): no retry. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

/** The queue as a process owns it: the port plus what workers and the stale-work sweeper need. */
export interface JobBackend extends JobQueue {
  readonly options: JobOptions;
  /**
   * True while a job of this work is waiting, delayed for a retry or running, including one whose
   * worker died and that the queue itself will recover.
   */
  hasLiveJob(kind: JobKind, refId: number): Promise<boolean>;
  /** Jobs by state, for the queue-depth metric: waiting (due now), delayed (a retry), running, failed. */
  counts(): Promise<QueueCounts>;
  startWorker(ctx: AppContext, handlers: JobHandlers): JobWorker;
  close(): Promise<void>;
}

export interface JobWorker {
  /** Stops taking jobs, lets running ones finish within the grace period, releases the rest. */
  close(): Promise<void>;
}
