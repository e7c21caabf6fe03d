import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { openDatabase } from '../../src/db/database.js';
import { DbTaskEventBus } from '../../src/events/bus.js';
import { followTask } from '../../src/events/follow.js';
import { RedisEventTransport } from '../../src/events/redis-transport.js';
import type { StoredTaskEvent, TaskEventBus } from '../../src/events/types.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTask, workspaceWithProduct } from './fixtures.js';
import { redisAvailable, redisUrl, startEventWriter } from './processes.js';

const silent = pino({ level: 'silent' });
const redisUp = await redisAvailable();

describe('task event bus on the database', () => {
  let server: TestServer;
  let taskId: number;
  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    const ws = await workspaceWithProduct(server);
    taskId = (await createTask(server, ws)).id;
  });
  afterAll(async () => server?.close());

  it('numbers events gap-free per task under concurrent writers in two processes', async () => {
    const other = await startEventWriter(server);
    try {
      const writes = Array.from({ length: 40 }, (_, i) => {
        const n = 1 + (i % 3);
        const events = Array.from({ length: n }, (_, k) => ({ name: 'progress' as const, data: { writer: i, k } }));
        return i % 2 ? other.append(taskId, events) : server.ctx.events.append(taskId, events);
      });
      await Promise.all(writes);
      const stored = await server.ctx.events.replay(taskId, 0);
      const expected = Array.from({ length: 40 }, (_, i) => 1 + (i % 3)).reduce((a, b) => a + b, 0);
      expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: expected }, (_, i) => i + 1));
      // The events of one append stay together and in order.
      for (let i = 0; i < 40; i++) {
        const mine = stored.filter((e) => (e.data as any).writer === i);
        expect(mine.map((e) => (e.data as any).k)).toEqual(mine.map((_, k) => k));
        expect(mine.at(-1)!.seq - mine[0]!.seq).toBe(mine.length - 1);
      }
      expect((await server.ctx.events.replay(taskId, expected - 2, 10)).map((e) => e.seq)).toEqual([expected - 1, expected]);
    } finally {
      await other.stop();
    }
  });

  it('rolls the events back with the state when the transaction fails', async () => {
    const before = await server.ctx.events.replay(taskId, 0);
    await expect(
      server.ctx.events.commit(taskId, async (trx) => {
        await trx.updateTable('tasks').set({ theme: 'changed' }).where('id', '=', taskId).execute();
        return { result: undefined, events: [{ name: 'status', data: { task_id: taskId, status: 'failed' } }, { name: 'progress', data: 'x'.repeat(10) }] };
      }).then(async () => {
        throw new Error('after commit');
      }),
    ).rejects.toThrow('after commit');
    await expect(
      server.ctx.events.commit(taskId, async () => {
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    const after = await server.ctx.events.replay(taskId, 0);
    expect(after.length).toBe(before.length + 2);
    await expect(server.ctx.events.append(987654, [{ name: 'progress', data: {} }])).rejects.toThrow(/does not exist/);
  });

  it('delivers events another process committed through the database watermark', async () => {
    const second = openDatabase({ databaseUrl: server.config.databaseUrl, dataDir: server.config.dataDir });
    const other = new DbTaskEventBus(second.db, server.clock, silent);
    try {
      const seen: number[] = [];
      const last = (await server.ctx.events.replay(taskId, 0)).at(-1)!.seq;
      const done = new Promise<void>((resolve) => {
        const unsubscribe = server.ctx.events.subscribe(taskId, (e) => {
          seen.push(e.seq);
          if (e.seq === last + 3) {
            unsubscribe();
            resolve();
          }
        });
      });
      await other.append(taskId, [{ name: 'progress', data: 1 }, { name: 'progress', data: 2 }, { name: 'progress', data: 3 }]);
      await done;
      // Only the newest event of a task first seen; a follower reads the rest by seq.
      expect(seen).toEqual([last + 3]);
    } finally {
      await other.close();
      await second.close();
    }
  });
});

/** An in-memory bus whose replay can be held open, to place live events inside the window. */
class ScriptedBus implements TaskEventBus {
  stored: StoredTaskEvent[] = [];
  listeners = new Set<(e: StoredTaskEvent) => void>();
  replayGate: Promise<void> = Promise.resolve();
  replays = 0;
  add(seq: number) {
    const e: StoredTaskEvent = { taskId: 1, seq, name: 'progress', data: seq };
    this.stored.push(e);
    return e;
  }
  publish(e: StoredTaskEvent) {
    for (const l of this.listeners) l(e);
  }
  async commit(): Promise<never> {
    throw new Error('not used');
  }
  async append(): Promise<void> {}
  async replay(_taskId: number, afterSeq: number, limit?: number) {
    this.replays += 1;
    const snapshot = this.stored.filter((e) => e.seq > afterSeq).slice(0, limit ?? Infinity);
    await this.replayGate;
    return snapshot;
  }
  subscribe(_taskId: number, l: (e: StoredTaskEvent) => void) {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

describe('followTask', () => {
  const follow = (bus: ScriptedBus, after: number) => {
    const got: number[] = [];
    let replayed = false;
    const follower = followTask(bus, 1, after, { onEvent: (e) => got.push(e.seq), onReplayed: () => (replayed = true), onError: (err) => { throw err; } });
    return { got, follower, isReplayed: () => replayed };
  };
  const settle = () => new Promise((r) => setTimeout(r, 10));

  it('keeps events committed between its subscription and the end of its replay, once each', async () => {
    const bus = new ScriptedBus();
    [1, 2, 3].forEach((s) => bus.add(s));
    let open!: () => void;
    bus.replayGate = new Promise((r) => (open = r));
    const { got, isReplayed } = follow(bus, 1);
    // Committed after the replay read its snapshot, published while it is still running.
    bus.publish(bus.add(4));
    bus.publish(bus.stored[2]!);
    open();
    await settle();
    expect(isReplayed()).toBe(true);
    expect(got).toEqual([2, 3, 4]);
    bus.publish(bus.add(5));
    bus.publish(bus.stored[3]!);
    await settle();
    expect(got).toEqual([2, 3, 4, 5]);
  });

  it('reads a gap from the store when a live event skips ahead, and stops after close', async () => {
    const bus = new ScriptedBus();
    const { got, follower } = follow(bus, 0);
    await settle();
    bus.add(1);
    bus.add(2);
    // Seq 1 and 2 were committed elsewhere and their messages lost; 3 arrives.
    bus.publish(bus.add(3));
    await settle();
    expect(got).toEqual([1, 2, 3]);
    follower.close();
    bus.publish(bus.add(4));
    await settle();
    expect(got).toEqual([1, 2, 3]);
    expect(bus.listeners.size).toBe(0);
  });
});

describe.skipIf(!redisUp)('Redis event transport', () => {
  it('carries events to the other processes of the same prefix only, not back to the sender', async () => {
    const prefix = `t-transport-${process.pid}-${Date.now()}`;
    const a = new RedisEventTransport(redisUrl, prefix, silent);
    const b = new RedisEventTransport(redisUrl, prefix, silent);
    const stranger = new RedisEventTransport(redisUrl, `${prefix}-other`, silent);
    const got = { a: [] as number[], b: [] as number[], stranger: [] as number[] };
    let arrived!: () => void;
    const arrival = new Promise<void>((r) => (arrived = r));
    await a.start((events) => got.a.push(...events.map((e) => e.seq)));
    await b.start((events) => {
      got.b.push(...events.map((e) => e.seq));
      arrived();
    });
    await stranger.start((events) => got.stranger.push(...events.map((e) => e.seq)));
    try {
      await a.publish([{ taskId: 9, seq: 1, name: 'progress', data: { x: 1 } }, { taskId: 9, seq: 2, name: 'done', data: { status: 'failed' } }]);
      await arrival;
      // A round trip on the stranger's own channel proves it was listening all along.
      let strangerReady!: () => void;
      const strangerHeard = new Promise<void>((r) => (strangerReady = r));
      const probe = new RedisEventTransport(redisUrl, `${prefix}-other`, silent);
      await probe.start(() => {});
      const before = got.stranger.length;
      const check = setInterval(() => got.stranger.length > before && strangerReady(), 5);
      await probe.publish([{ taskId: 1, seq: 99, name: 'progress', data: null }]);
      await strangerHeard;
      clearInterval(check);
      await probe.close();
      expect(got.b).toEqual([1, 2]);
      expect(got.a).toEqual([]);
      expect(got.stranger).toEqual([99]);
    } finally {
      await Promise.all([a.close(), b.close(), stranger.close()]);
    }
  });
});
