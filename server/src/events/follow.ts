import type { StoredTaskEvent, TaskEventBus } from './types.js';

const REPLAY_BATCH = 500;

export interface FollowHandlers {
  onEvent(event: StoredTaskEvent): void;
  /** Once, when everything stored at subscription time has been delivered. */
  onReplayed(): void;
  onError(err: unknown): void;
}

export interface TaskFollower {
  close(): void;
}

/**
 * Delivers a task's events after `afterSeq` exactly once and in seq order, stored ones first,
 * then live ones. It subscribes before it replays and buffers what arrives meanwhile, so an
 * event committed between the replay and the subscription cannot fall through; duplicates are
 * dropped by seq. A live event that skips a seq (another process committed the one before, and
 * its message is slower or lost) makes it read the gap from the database, where every event
 * lives before it is published.
 */
export function followTask(bus: TaskEventBus, taskId: number, afterSeq: number, handlers: FollowHandlers): TaskFollower {
  let last = afterSeq;
  let closed = false;
  let replayed = false;
  let running = false;
  let rerun = false;
  const early = new Map<number, StoredTaskEvent>();

  const deliver = (event: StoredTaskEvent) => {
    early.delete(event.seq);
    if (closed || event.seq !== last + 1) return;
    last = event.seq;
    handlers.onEvent(event);
  };

  const drain = async () => {
    while (!closed) {
      const next = early.get(last + 1);
      if (next) {
        deliver(next);
        continue;
      }
      const gap = [...early.keys()].some((seq) => seq > last + 1);
      if (replayed && !gap) return;
      const before = last;
      const batch = await bus.replay(taskId, last, REPLAY_BATCH);
      for (const event of batch) deliver(event);
      for (const seq of early.keys()) if (seq <= last) early.delete(seq);
      if (!replayed && (batch.length < REPLAY_BATCH || last === before)) {
        replayed = true;
        if (!closed) handlers.onReplayed();
      } else if (replayed && last === before) {
        // The database cannot fill the gap (the task's rows are gone): wait for the next event.
        return;
      }
    }
  };

  const pump = () => {
    if (running) {
      rerun = true;
      return;
    }
    running = true;
    drain()
      .catch((err: unknown) => {
        if (!closed) handlers.onError(err);
      })
      .finally(() => {
        running = false;
        if (rerun && !closed) {
          rerun = false;
          pump();
        }
      });
  };

  const unsubscribe = bus.subscribe(taskId, (event) => {
    if (closed || event.seq <= last) return;
    // The common case, in order and nothing pending: straight through, no async hop.
    if (replayed && !running && early.size === 0 && event.seq === last + 1) {
      deliver(event);
      return;
    }
    early.set(event.seq, event);
    if (replayed) pump();
  });
  pump();

  return {
    close() {
      if (closed) return;
      closed = true;
      early.clear();
      unsubscribe();
    },
  };
}
