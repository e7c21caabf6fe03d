import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, workspaceWithProduct, type Workspace } from './fixtures.js';
import { redisAvailable, redisUrl, startWorkerProcess } from './processes.js';
import { openSse, type SseEvent } from './sse-client.js';

const redisUp = await redisAvailable();

const MODES = [
  { name: 'embedded worker, in-process queue', redis: false },
  ...(redisUp ? [{ name: 'BullMQ on Redis, worker in a separate process', redis: true }] : []),
];

/**
 * The operator's path with the offline `local` provider: create over HTTP, follow the stream
 * until `done`, read the detail; images load from their signed URLs without a bearer header.
 */
describe.each(MODES)('task end to end ($name)', (mode) => {
  let server: TestServer;
  let ws: Workspace;
  let worker: Awaited<ReturnType<typeof startWorkerProcess>> | undefined;

  beforeAll(async () => {
    server = await startTestServer({
      worker: !mode.redis,
      env: mode.redis ? { REDIS_URL: redisUrl, JOB_QUEUE_PREFIX: `t-e2e-${process.pid}-${Date.now()}` } : {},
    });
    ws = await workspaceWithProduct(server);
    if (mode.redis) worker = await startWorkerProcess(server);
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
    await server?.close();
  });

  it('streams a generation to done: three sets of scored texts and storyboard images', async () => {
    const task = await createTask(server, ws, { text_count: 3, image_count: 2 });
    expect(task.status).toBe('pending');
    const { ticket } = await ok(server, 'POST', `/tasks/${task.id}/sse-ticket`, ws.token);
    const stream = await openSse(`${server.url}${API}/tasks/${task.id}/stream?ticket=${ticket}`);
    expect(stream.status).toBe(200);
    await Promise.race([stream.ended, stream.waitFor((e) => e.some((x) => x.event === 'done'), 60_000)]);
    await stream.ended;
    const events = stream.events;
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'pending_selection' } });
    const named = (name: string) => events.filter((e: SseEvent) => e.event === name).map((e) => e.data);
    expect(named('status')[0]).toEqual({ task_id: task.id, status: 'generating' });

    const detail = await ok(server, 'GET', `/tasks/${task.id}`, ws.token);
    expect(detail.status).toBe('pending_selection');
    expect(detail.text_candidates.map((t: any) => t.strategy)).toEqual(['A', 'B', 'C']);
    for (const text of detail.text_candidates) {
      expect(text.title.length).toBeGreaterThan(0);
      expect(text.score.total).toBe(text.score.title + text.score.emotion + text.score.selling + text.score.keyword + text.score.compliance);
      expect(text.score.total).toBeGreaterThan(0);
    }
    // The stream carried the same candidate shapes as the detail.
    expect(named('text_candidate').map((t) => t.candidate_id).sort()).toEqual(detail.text_candidates.map((t: any) => t.candidate_id).sort());
    const fromStream = named('text_candidate').find((t) => t.candidate_id === detail.text_candidates[0].candidate_id);
    expect(fromStream).toEqual(detail.text_candidates[0]);

    expect(detail.image_candidates).toHaveLength(6);
    for (const s of ['A', 'B', 'C']) {
      expect(detail.image_candidates.filter((i: any) => i.strategy === s).map((i: any) => i.seq).sort()).toEqual([1, 2]);
    }
    for (const image of detail.image_candidates) {
      const res = await fetch(`${server.url}${image.url}`);
      expect(res.status, image.url).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^image\//);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }

    // A late viewer replays everything and the stream closes by itself.
    const again = await ok(server, 'POST', `/tasks/${task.id}/sse-ticket`, ws.token);
    const late = await openSse(`${server.url}${API}/tasks/${task.id}/stream?ticket=${again.ticket}`);
    await late.ended;
    expect(late.events.map((e) => e.id)).toEqual(events.map((e) => e.id));
  }, 120_000);

  it('reconnecting with Last-Event-ID during a generation misses and repeats nothing', async () => {
    const task = await createTask(server, ws, { text_count: 6, image_count: 3 });
    const received: SseEvent[] = [];
    for (let round = 0; !received.some((e) => e.event === 'done'); round++) {
      if (round > 100) throw new Error('the generation did not finish');
      const { ticket } = await ok(server, 'POST', `/tasks/${task.id}/sse-ticket`, ws.token);
      const lastId = received.at(-1)?.id ?? 0;
      const stream = await openSse(`${server.url}${API}/tasks/${task.id}/stream?ticket=${ticket}`, { 'last-event-id': String(lastId) });
      expect(stream.status).toBe(200);
      // Leave after a few events, mid-generation, as a flaky network would.
      await Promise.race([stream.ended, stream.waitFor((e) => e.length >= 3, 60_000)]);
      stream.close();
      received.push(...stream.events);
    }
    expect(received.map((e) => e.id)).toEqual(received.map((_, i) => i + 1));
    const stored = await server.ctx.events.replay(task.id, 0);
    expect(received.map((e) => [e.id, e.event])).toEqual(stored.map((e) => [e.seq, e.name]));
  }, 120_000);
});
