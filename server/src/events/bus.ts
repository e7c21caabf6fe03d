import type { Logger } from 'pino';
import type { Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import { json, nowIso } from '../db/codec.js';
import type { Db } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { NewTaskEvent, StoredTaskEvent, TaskEventBus } from './types.js';

/** Carries committed events to the other processes (API and workers) and theirs to us. */
export interface EventTransport {
  start(deliver: (events: StoredTaskEvent[]) => void): Promise<void>;
  publish(events: StoredTaskEvent[]): Promise<void>;
  close(): Promise<void>;
}

type Listener = (event: StoredTaskEvent) => void;

/**
 * Stores events in the caller's transaction and numbers them from `tasks.event_seq`: the
 * UPDATE … RETURNING row-locks the task until commit, so two writers of one task queue behind
 * each other and a reader that sees seq n has already been able to see every seq below it.
 */
export async function storeTaskEvents(
  trx: Transaction<DB>,
  taskId: number,
  events: NewTaskEvent[],
  at: Date,
): Promise<StoredTaskEvent[]> {
  if (events.length === 0) return [];
  const bumped = await trx
    .updateTable('tasks')
    .set((eb) => ({ event_seq: eb('event_seq', '+', events.length) }))
    .where('id', '=', taskId)
    .returning('event_seq')
    .executeTakeFirst();
  if (!bumped) throw new Error(`task ${taskId} does not exist; cannot store its events`);
  const first = bumped.event_seq - events.length + 1;
  const stored = events.map((e, i) => ({ taskId, seq: first + i, name: e.name, data: e.data }));
  const createdAt = nowIso(at);
  await trx
    .insertInto('task_events')
    .values(stored.map((e) => ({ task_id: taskId, seq: e.seq, name: e.name, data: json(e.data), created_at: createdAt })))
    .execute();
  return stored;
}

/** How often watched tasks are checked for events committed by another process. */
const WATCH_INTERVAL_MS = { withTransport: 2000, alone: 500 };
const WATCH_BATCH = 500;

/**
 * The event bus of one process. Live events reach listeners three ways: from this process
 * directly after commit; from other processes through the transport (Redis) when configured;
 * and, as the fallback that needs nothing but the database, from a watermark check that reads
 * `tasks.event_seq` of the watched tasks (one query per interval, however many streams) and
 * fetches what is newer than the last event seen here. The check also repairs lost messages.
 */
export class DbTaskEventBus implements TaskEventBus {
  private readonly listeners = new Map<number, Set<Listener>>();
  /** Highest seq delivered here per watched task. */
  private readonly latest = new Map<number, number>();
  private watchTimer: NodeJS.Timeout | undefined;
  private watching = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly transport?: EventTransport,
  ) {}

  async start(): Promise<void> {
    await this.transport?.start((events) => this.deliver(events));
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.latest.clear();
    this.stopWatch();
    await this.transport?.close();
  }

  async commit<T>(taskId: number, work: (trx: Transaction<DB>) => Promise<{ result: T; events: NewTaskEvent[] }>): Promise<T> {
    const { result, stored } = await this.db.transaction().execute(async (trx) => {
      const done = await work(trx);
      return { result: done.result, stored: await storeTaskEvents(trx, taskId, done.events, this.clock.now()) };
    });
    this.publish(stored);
    return result;
  }

  async append(taskId: number, events: NewTaskEvent[]): Promise<void> {
    await this.commit(taskId, async () => ({ result: undefined, events }));
  }

  /** Fans out events another writer stored (for example through storeTaskEvents) after its commit. */
  publish(events: StoredTaskEvent[]): void {
    if (events.length === 0) return;
    this.deliver(events);
    this.transport?.publish(events).catch((err: unknown) => {
      // Subscribers elsewhere recover from the database on their next event or heartbeat.
      this.log.warn({ err, taskId: events[0]!.taskId }, 'task events not published to other processes');
    });
  }

  async replay(taskId: number, afterSeq: number, limit?: number): Promise<StoredTaskEvent[]> {
    let query = this.db
      .selectFrom('task_events')
      .select(['seq', 'name', 'data'])
      .where('task_id', '=', taskId)
      .where('seq', '>', afterSeq)
      .orderBy('seq');
    if (limit !== undefined) query = query.limit(limit);
    const rows = await query.execute();
    return rows.map((r) => ({ taskId, seq: r.seq, name: r.name as StoredTaskEvent['name'], data: r.data }));
  }

  subscribe(taskId: number, listener: Listener): () => void {
    let set = this.listeners.get(taskId);
    if (!set) {
      set = new Set();
      this.listeners.set(taskId, set);
    }
    set.add(listener);
    this.startWatch();
    return () => {
      const current = this.listeners.get(taskId);
      if (!current) return;
      current.delete(listener);
      if (current.size > 0) return;
      this.listeners.delete(taskId);
      this.latest.delete(taskId);
      if (this.listeners.size === 0) this.stopWatch();
    };
  }

  /** How many live subscriptions this process holds (for shutdown logs and benches). */
  get subscriberCount(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  private startWatch(): void {
    if (this.watchTimer) return;
    const interval = this.transport ? WATCH_INTERVAL_MS.withTransport : WATCH_INTERVAL_MS.alone;
    this.watchTimer = setInterval(() => void this.watch(), interval);
    this.watchTimer.unref();
  }

  private stopWatch(): void {
    clearInterval(this.watchTimer);
    this.watchTimer = undefined;
  }

  /**
   * Delivers what other processes committed for the watched tasks. A task seen for the first
   * time gets only its newest event: its followers replayed the rest themselves, and one that
   * missed something notices the gap by seq and reads it from the database.
   */
  private async watch(): Promise<void> {
    if (this.watching) return;
    this.watching = true;
    try {
      const ids = [...this.listeners.keys()];
      for (let i = 0; i < ids.length; i += WATCH_BATCH) {
        const rows = await this.db.selectFrom('tasks').select(['id', 'event_seq']).where('id', 'in', ids.slice(i, i + WATCH_BATCH)).execute();
        for (const row of rows) {
          const seen = this.latest.get(row.id);
          if (seen !== undefined && row.event_seq <= seen) continue;
          if (!this.listeners.has(row.id)) continue;
          this.deliver(await this.replay(row.id, seen ?? row.event_seq - 1));
        }
      }
    } catch (err) {
      this.log.warn({ err }, 'task event watch failed; retrying on the next interval');
    } finally {
      this.watching = false;
    }
  }

  private deliver(events: StoredTaskEvent[]): void {
    for (const event of events) {
      const set = this.listeners.get(event.taskId);
      if (!set) continue;
      if (event.seq > (this.latest.get(event.taskId) ?? 0)) this.latest.set(event.taskId, event.seq);
      for (const listener of [...set]) {
        try {
          listener(event);
        } catch (err) {
          this.log.error({ err, taskId: event.taskId }, 'task event listener failed');
        }
      }
    }
  }
}
