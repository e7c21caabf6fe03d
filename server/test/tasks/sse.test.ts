import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewTaskEvent } from '../../src/events/types.js';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, otherWorkspace, setStatus, workspaceWithProduct, type Workspace } from './fixtures.js';
import { redisAvailable, redisUrl, startEventWriter, type EventWriter } from './processes.js';
import { openSse, type SseEvent } from './sse-client.js';

const redisUp = await redisAvailable();

interface Mode {
  name: string;
  redis: boolean;
  /** Events written by another process than the one holding the streams. */
  remoteWriter: boolean;
}

const MODES: Mode[] = [
  { name: 'in-process', redis: false, remoteWriter: false },
  { name: 'writer in another process, database watermark only', redis: false, remoteWriter: true },
  ...(redisUp ? [{ name: 'writer in another process, Redis pub/sub (BullMQ queue)', redis: true, remoteWriter: true }] : []),
];

const progress = (i: number): NewTaskEvent => ({ name: 'progress', data: { stage: 'text', done: i, total: 1000 } });
const seqs = (events: SseEvent[]) => events.map((e) => e.id);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe.each(MODES)('task event stream ($name)', (mode) => {
  let server: TestServer;
  let ws: Workspace;
  let writer: EventWriter | undefined;
  let append: (taskId: number, events: NewTaskEvent[]) => Promise<void>;

  beforeAll(async () => {
    server = await startTestServer({
      worker: false,
      env: mode.redis ? { REDIS_URL: redisUrl, JOB_QUEUE_PREFIX: `t-sse-${process.pid}-${Date.now()}` } : {},
    });
    ws = await workspaceWithProduct(server);
    if (mode.remoteWriter) writer = await startEventWriter(server);
    append = writer ? (id, events) => writer!.append(id, events) : (id, events) => server.ctx.events.append(id, events);
  });
  afterAll(async () => {
    await writer?.stop();
    await server?.close();
  });

  async function runningTask() {
    const task = await createTask(server, ws);
    await setStatus(server, task.id, 'generating');
    return task.id as number;
  }
  const ticket = async (taskId: number, token = ws.token) => (await ok(server, 'POST', `/tasks/${taskId}/sse-ticket`, token)).ticket as string;
  const streamUrl = (taskId: number, t: string, lastSeq?: number) =>
    `${server.url}${API}/tasks/${taskId}/stream?ticket=${encodeURIComponent(t)}${lastSeq === undefined ? '' : `&last_seq=${lastSeq}`}`;
  const open = async (taskId: number, opts: { lastSeq?: number; headers?: Record<string, string>; follow?: boolean } = {}) =>
    openSse(`${streamUrl(taskId, await ticket(taskId), opts.lastSeq)}${opts.follow ? '&follow=true' : ''}`, opts.headers);

  it('issues random one-time tickets and streams live events', async () => {
    const id = await runningTask();
    const issued = await ok(server, 'POST', `/tasks/${id}/sse-ticket`, ws.token);
    expect(issued.expires_in).toBe(60);
    expect(Buffer.from(issued.ticket, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(issued.ticket).not.toBe(await ticket(id));
    const stored = await server.ctx.db.selectFrom('one_time_tokens').select('token_hash').execute();
    expect(stored.map((r) => r.token_hash)).not.toContain(issued.ticket);

    const stream = await openSse(streamUrl(id, issued.ticket));
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    await append(id, [progress(1), progress(2)]);
    await stream.waitFor((e) => e.length === 2);
    expect(stream.events.map((e) => [e.id, e.event, e.data.done])).toEqual([
      [1, 'progress', 1],
      [2, 'progress', 2],
    ]);
    stream.close();
  });

  it('refuses a reused, expired, foreign, missing or JWT ticket with 401/40101; two concurrent opens: one wins', async () => {
    const id = await runningTask();
    const other = await runningTask();
    const t = await ticket(id);
    const first = await openSse(streamUrl(id, t));
    expect(first.status).toBe(200);
    const reused = await openSse(streamUrl(id, t));
    expect([reused.status, reused.body.code]).toEqual([401, 40101]);
    first.close();

    // Bound to its task: refused on another task (and still usable on its own).
    const bound = await ticket(id);
    const wrongTask = await openSse(streamUrl(other, bound));
    expect(wrongTask.status).toBe(401);
    const rightTask = await openSse(streamUrl(id, bound));
    expect(rightTask.status).toBe(200);
    rightTask.close();

    const expiring = await ticket(id);
    server.clock.advance(61_000);
    const expired = await openSse(streamUrl(id, expiring));
    expect([expired.status, expired.body.code]).toEqual([401, 40101]);

    const jwt = await openSse(streamUrl(id, ws.token));
    expect([jwt.status, jwt.body.code]).toEqual([401, 40101]);
    const withBearer = await openSse(`${server.url}${API}/tasks/${id}/stream`, { authorization: `Bearer ${ws.token}` });
    expect([withBearer.status, withBearer.body.code]).toEqual([401, 40101]);
    const garbage = await openSse(streamUrl(id, 'x'.repeat(43)));
    expect(garbage.status).toBe(401);

    const racing = await ticket(id);
    const both = await Promise.all([openSse(streamUrl(id, racing)), openSse(streamUrl(id, racing))]);
    expect(both.map((s) => s.status).sort()).toEqual([200, 401]);
    both.forEach((s) => s.close());
  });

  it('refuses tickets across workspaces and users that lost access', async () => {
    const id = await runningTask();
    const foreign = await otherWorkspace(server);
    const ticketRes = await server.request('POST', `${API}/tasks/${id}/sse-ticket`, { token: foreign.token });
    expect(ticketRes.status).toBe(404);
    // A ticket of the other workspace's own task does not open this one.
    const theirTask = await createTask(server, foreign);
    const theirs = await ticket(theirTask.id, foreign.token);
    expect((await openSse(streamUrl(id, theirs))).status).toBe(401);

    const op = await userWithRole(server, `op-sse-${mode.redis ? 'r' : mode.remoteWriter ? 'w' : 'l'}`, 'operator');
    const opTicket = await ticket(id, op.token);
    await ok(server, 'PATCH', `/users/${op.id}`, ws.token, { is_active: false });
    expect((await openSse(streamUrl(id, opTicket))).status).toBe(401);
  });

  it('replays after last_seq or Last-Event-ID, whichever is larger, then goes live', async () => {
    const id = await runningTask();
    await append(id, range(1, 5).map(progress));
    const fromQuery = await open(id, { lastSeq: 2 });
    await fromQuery.waitFor((e) => e.length === 3);
    expect(seqs(fromQuery.events)).toEqual([3, 4, 5]);
    const fromHeader = await open(id, { headers: { 'last-event-id': '4' } });
    await fromHeader.waitFor((e) => e.length === 1);
    const larger = await open(id, { lastSeq: 1, headers: { 'last-event-id': '3' } });
    await larger.waitFor((e) => e.length === 2);
    expect(seqs(larger.events)).toEqual([4, 5]);
    await append(id, [progress(6)]);
    for (const s of [fromQuery, fromHeader, larger]) {
      await s.waitFor((e) => e.at(-1)?.id === 6);
      s.close();
    }
    expect(seqs(fromHeader.events)).toEqual([5, 6]);
    expect((await server.request('GET', `${API}/tasks/${id}/stream?ticket=${await ticket(id)}&last_seq=-1`)).status).toBe(400);
  });

  it('loses and duplicates nothing when events are appended while the client reconnects', async () => {
    const id = await runningTask();
    const total = 120;
    let writing = true;
    const producer = (async () => {
      for (let i = 1; i <= total; i += 3) await append(id, [progress(i), progress(i + 1), progress(i + 2)]);
      writing = false;
    })();
    const received: number[] = [];
    let last = 0;
    // Reconnect repeatedly while the producer writes, each time from the last seq seen.
    for (let round = 0; writing || last < total; round++) {
      const stream = await open(id, { headers: { 'last-event-id': String(last) } });
      const want = Math.min(total, last + 7);
      await stream.waitFor((e) => e.length > 0 && e.at(-1)!.id >= want, 20_000).catch(() => undefined);
      stream.close();
      for (const e of stream.events) received.push(e.id);
      if (stream.events.length) last = stream.events.at(-1)!.id;
      if (round > 200) throw new Error('too many rounds');
    }
    await producer;
    expect(received).toEqual(range(1, total));
  });

  it('closes after done; right after the replay when the task is settled; stays open while it runs', async () => {
    const id = await runningTask();
    const live = await open(id);
    await append(id, [{ name: 'status', data: { task_id: id, status: 'pending_selection' } }, { name: 'done', data: { status: 'pending_selection' } }]);
    await setStatus(server, id, 'pending_selection');
    await live.ended;
    expect(live.events.map((e) => e.event)).toEqual(['status', 'done']);

    const replayed = await open(id);
    await replayed.ended;
    expect(seqs(replayed.events)).toEqual([1, 2]);
    const nothingNew = await open(id, { lastSeq: 2 });
    await nothingNew.ended;
    expect(nothingNew.events).toEqual([]);

    // A regenerate reopens the sequence: the same stream then waits for the next done.
    const regen = await server.request('POST', `${API}/tasks/${id}/regenerate`, { token: ws.token });
    expect(regen.status).toBe(200);
    const again = await open(id, { lastSeq: 2 });
    await again.waitFor((e) => e.length === 1);
    expect(again.events[0]).toMatchObject({ id: 3, event: 'status', data: { status: 'generating' } });
    let endedEarly = false;
    void again.ended.then(() => (endedEarly = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(endedEarly).toBe(false);
    await append(id, [{ name: 'done', data: { status: 'failed' } }]);
    await again.ended;
    expect(seqs(again.events)).toEqual([3, 4]);
  });

  it('with follow=true stays open after done and for a settled task, carrying later status changes', async () => {
    const id = await runningTask();
    const following = await open(id, { follow: true });
    await append(id, [{ name: 'status', data: { task_id: id, status: 'pending_selection' } }, { name: 'done', data: { status: 'pending_selection' } }]);
    await setStatus(server, id, 'pending_selection');
    await following.waitFor((e) => e.length === 2);
    // Opened on the settled task, a following stream replays and stays too.
    const late = await open(id, { follow: true });
    await late.waitFor((e) => e.length === 2);
    let ended = false;
    void Promise.race([following.ended, late.ended]).then(() => (ended = true));

    // A user's action after generation (here: archive) reaches both open pages.
    const archived = await server.request('POST', `${API}/tasks/${id}/archive`, { token: ws.token });
    expect(archived.status).toBe(200);
    for (const stream of [following, late]) {
      await stream.waitFor((e) => e.length === 3);
      expect(stream.events[2]).toMatchObject({ id: 3, event: 'status', data: { task_id: id, status: 'archived' } });
    }
    expect(ended).toBe(false);
    following.close();
    late.close();
  });

  it('drops the subscription as soon as the client goes away', async () => {
    const id = await runningTask();
    const bus = server.ctx.events as unknown as { subscriberCount: number };
    const before = bus.subscriberCount;
    const streams = await Promise.all([open(id), open(id), open(id)]);
    await new Promise((r) => setTimeout(r, 100));
    expect(bus.subscriberCount).toBe(before + 3);
    streams.forEach((s) => s.close());
    const deadline = Date.now() + 5000;
    while (bus.subscriberCount !== before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(bus.subscriberCount).toBe(before);
  });
});

describe('task event stream and shutdown', () => {
  it('ends open streams when the server closes', async () => {
    const server = await startTestServer({ worker: false });
    const ws = await workspaceWithProduct(server);
    const task = await createTask(server, ws);
    await setStatus(server, task.id, 'generating');
    const t = (await ok(server, 'POST', `/tasks/${task.id}/sse-ticket`, ws.token)).ticket;
    const stream = await openSse(`${server.url}${API}/tasks/${task.id}/stream?ticket=${t}`);
    expect(stream.status).toBe(200);
    const started = Date.now();
    await server.close();
    await stream.ended;
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
