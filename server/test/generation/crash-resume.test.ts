import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import type { TaskEventBus } from '../../src/events/types.js';
import { runTaskGeneration } from '../../src/modules/tasks/pipeline.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTask, ok, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';
import { eventsOf, named, taskDetail } from './helpers.js';

/**
 * A run that dies between steps leaves only whole steps behind; running the job again finishes
 * the task without duplicate candidates and without paying again for calls that had returned.
 * (The kill -9 version with real worker processes lives in the jobs tests.)
 */
describe('crash and resume of a generation', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    server = await startTestServer({ worker: false, env: { PROVIDER_OPENAI_BASE_URL: fake.url, PROVIDER_MAX_RETRIES: '0' } });
    ws = await workspaceWithProduct(server, { apiKey: false });
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai', api_key: 'sk-crash-test-0000' });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  /** The event bus of a process that dies when it is about to persist the chosen steps. */
  function crashingCtx(crashBefore: (events: Array<{ name: string; data: any }>, n: { images: number }) => boolean): AppContext {
    const real = server.ctx.events;
    const n = { images: 0 };
    const events: TaskEventBus = {
      ...real,
      append: (taskId, list) => real.append(taskId, list),
      replay: (taskId, after, limit) => real.replay(taskId, after, limit),
      subscribe: (taskId, listener) => real.subscribe(taskId, listener),
      commit: (taskId, work) =>
        real.commit(taskId, async (trx) => {
          const done = await work(trx);
          if (done.events.some((e) => e.name === 'image_candidate')) n.images += 1;
          // Throwing inside the transaction rolls back everything the step wrote, as a crash would.
          if (crashBefore(done.events, n)) throw new Error('simulated crash');
          return done;
        }),
    };
    return { ...server.ctx, events };
  }

  const count = (kind: string) => fake.calls.filter((c) => c.kind === kind && c.status === 200).length;

  it('resumes after crashes between steps without duplicates or repeated paid calls', async () => {
    const created = await createTask(server, ws, { text_count: 3, image_count: 6 });
    const taskId = (created.id ?? created.task_id) as number;
    const before = { notes: count('notes'), score: count('score'), image: count('image') };

    // Crash 1: set B's texts came back (and were paid for) but were never stored.
    // Crash 2: the 4th image came back but its candidate was never stored.
    const crashing = crashingCtx((events, n) => events.some((e) => e.name === 'text_candidate' && e.data.strategy === 'B') || (events.some((e) => e.name === 'image_candidate') && n.images === 4));
    await expect(runTaskGeneration(crashing, taskId)).rejects.toThrow('simulated crash');

    const mid = await taskDetail(server, ws.token, taskId);
    expect(mid.status).toBe('generating');
    expect((mid.text_candidates as any[]).map((t) => t.strategy).sort()).toEqual(['A', 'C']);
    const imagesBeforeResume = (mid.image_candidates as any[]).length;
    // Images start once a set's texts are written, before they are stored: all 18 but the lost one.
    expect(imagesBeforeResume).toBe(17);
    expect(count('notes') - before.notes).toBe(3);

    await runTaskGeneration(server.ctx, taskId);
    const done = await taskDetail(server, ws.token, taskId);
    expect(done.status).toBe('pending_selection');
    expect((done.text_candidates as any[]).map((t) => t.strategy).sort()).toEqual(['A', 'B', 'C']);
    const images = done.image_candidates as any[];
    expect(images).toHaveLength(18);
    expect(new Set(images.map((i) => `${i.strategy}${i.seq}`)).size).toBe(18);

    // Paid calls: one notes call and one judge call per set, one call per image, whatever crashed.
    expect(count('notes') - before.notes).toBe(3);
    expect(count('score') - before.score).toBe(3);
    expect(count('image') - before.image).toBe(18);

    // Every candidate was announced exactly once; the stream ends with done.
    const events = await eventsOf(server, taskId);
    expect(named(events, 'text_candidate')).toHaveLength(3);
    expect(named(events, 'image_candidate')).toHaveLength(18);
    expect(named(events, 'done')).toEqual([{ status: 'pending_selection' }]);

    // A late duplicate of the job finds the task settled and changes nothing.
    await runTaskGeneration(server.ctx, taskId);
    expect(await eventsOf(server, taskId)).toHaveLength(events.length);
    expect(count('image') - before.image).toBe(18);
  });

  it('a task whose workspace lost every key fails with an actionable reason', async () => {
    const created = await createTask(server, ws, { text_count: 1, image_count: 1 });
    const taskId = (created.id ?? created.task_id) as number;
    await server.ctx.db.updateTable('tasks').set({ api_key_id: null }).where('workspace_id', '=', ws.workspaceId).execute();
    await server.ctx.db.deleteFrom('api_keys').where('workspace_id', '=', ws.workspaceId).execute();
    await runTaskGeneration(server.ctx, taskId);
    const detail = await taskDetail(server, ws.token, taskId);
    expect(detail.status).toBe('failed');
    const events = await eventsOf(server, taskId);
    expect(named(events, 'error')[0].message).toMatch(/no connection that writes text/);
    expect(events.at(-1)).toMatchObject({ name: 'done', data: { status: 'failed' } });
  });
});
