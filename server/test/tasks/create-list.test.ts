import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, setStatus, workspaceWithProduct, type Workspace } from './fixtures.js';

describe('POST /tasks', () => {
  let server: TestServer;
  let ws: Workspace;
  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    ws = await workspaceWithProduct(server, { product: { selling_points: ['温和不刺激'], custom_prompt: '语气亲切' } });
  });
  afterAll(async () => server?.close());

  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}, token = ws.token) =>
    server.request('POST', `${API}/tasks`, {
      token,
      headers,
      body: { product_id: ws.productId, theme: '换季护肤', text_count: 3, image_count: 2, track: 'ai', ...body },
    });

  it('stores a pending task, queues only its id and answers at once', async () => {
    const res = await post({ benchmark_ids: [] });
    expect(res.status).toBe(200);
    const task = res.body.data;
    expect(task).toMatchObject({ product_id: ws.productId, product_name: '云朵保湿霜', theme: '换季护肤', status: 'pending', track: 'ai', text_count: 3, image_count: 2 });
    const jobs = await server.ctx.db.selectFrom('jobs').selectAll().where('ref_id', '=', task.id).execute();
    expect(jobs.map((j) => [j.kind, j.status])).toEqual([['task.generate', 'queued']]);
  });

  it('validates counts, track and ids (400), foreign or missing product (404)', async () => {
    for (const body of [{ text_count: 0 }, { text_count: 31 }, { image_count: -1 }, { image_count: 10 }, { track: 'manual' }, { theme: '' }, { text_count: '3x' }]) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe(40000);
    }
    expect((await post({ theme: '   ' })).status).toBe(400);
    const missing = await post({ product_id: 999999 });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe(40400);
    expect((await post({ benchmark_ids: [999999] })).status).toBe(404);
  });

  it('refuses benchmarks of another product', async () => {
    const other = await ok(server, 'POST', '/products', ws.token, { name: '另一个产品', category: '护肤', source: 'custom' });
    const bench = await ok(server, 'POST', `/products/${other.id}/benchmarks`, ws.token, { highlights: '好用', link_url: null, screenshot_url: null });
    const res = await post({ benchmark_ids: [bench.id] });
    expect(res.status).toBe(400);
  });

  it('422/42202 lists the hard_block words found in theme, product, selling points, prompt and benchmark highlights', async () => {
    const bench = await ok(server, 'POST', `/products/${ws.productId}/benchmarks`, ws.token, { highlights: '效果第一名', link_url: null, screenshot_url: null });
    for (const word of ['换季', '云朵', '温和', '亲切', '第一名']) {
      await ok(server, 'POST', '/banned-words', ws.token, { word, level: 'hard_block', replacement: null, updatable: true });
    }
    await ok(server, 'POST', '/banned-words', ws.token, { word: '护肤', level: 'soft_warn', replacement: null, updatable: true });
    const before = await server.ctx.db.selectFrom('tasks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await post({ benchmark_ids: [bench.id] });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe(42202);
    for (const word of ['换季', '云朵', '温和', '亲切', '第一名']) expect(res.body.message).toContain(word);
    expect(res.body.message).not.toContain('护肤');
    const after = await server.ctx.db.selectFrom('tasks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const words = await ok(server, 'GET', '/banned-words?page_size=100', ws.token);
    for (const w of words.items) await ok(server, 'DELETE', `/banned-words/${w.id}`, ws.token);
    expect((await post({ benchmark_ids: [bench.id] })).status).toBe(200);
  });

  it('returns the first task for a repeated Idempotency-Key within 24 h, a new one after', async () => {
    const first = await post({ theme: '幂等' }, { 'idempotency-key': 'k-123' });
    const again = await post({ theme: '幂等' }, { 'idempotency-key': 'k-123' });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    const concurrent = await Promise.all([1, 2, 3].map(() => post({ theme: '并发' }, { 'idempotency-key': 'k-concurrent' })));
    expect(new Set(concurrent.map((r) => r.body.data.id)).size).toBe(1);
    const jobs = await server.ctx.db.selectFrom('jobs').select('id').where('ref_id', '=', concurrent[0]!.body.data.id).execute();
    expect(jobs).toHaveLength(1);
    const dayAgo = new Date(server.clock.now().getTime() - 24 * 3600 * 1000 - 1000).toISOString();
    await server.ctx.db.updateTable('tasks').set({ created_at: dayAgo }).where('id', '=', first.body.data.id).execute();
    const later = await post({ theme: '幂等' }, { 'idempotency-key': 'k-123' });
    expect(later.body.data.id).not.toBe(first.body.data.id);
    expect((await post({}, { 'idempotency-key': 'bad key with spaces' })).status).toBe(400);
  });

  it('an Idempotency-Key reused with another body is 409 / 40900, not the first task (issue 17, finding 7)', async () => {
    const count = async () => Number((await server.ctx.db.selectFrom('tasks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const first = await post({ theme: '同一个键' }, { 'idempotency-key': 'k-body' });
    expect(first.status).toBe(200);
    const before = await count();
    for (const changed of [{ theme: '另一个主题' }, { theme: '同一个键', text_count: 4 }, { theme: '同一个键', overlay_text: false }]) {
      const res = await post(changed, { 'idempotency-key': 'k-body' });
      expect({ changed, status: res.status, code: res.body.code }).toEqual({ changed, status: 409, code: 40900 });
      expect(res.body.message).toMatch(/Idempotency-Key/);
    }
    // Concurrent repeats with different bodies: one task, the others 409.
    const raced = await Promise.all(['甲', '乙', '丙'].map((theme) => post({ theme }, { 'idempotency-key': 'k-race' })));
    expect(raced.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await count()).toBe(before + 1);
    // The same request spelled otherwise: keys in another order, an unknown field, a default
    // spelled out, spaces around the theme (stored trimmed).
    const same = await server.request('POST', `${API}/tasks`, {
      token: ws.token,
      headers: { 'idempotency-key': 'k-body' },
      body: { track: 'ai', image_count: 2, text_count: 3, theme: ' 同一个键 ', product_id: ws.productId, overlay_text: true, unknown_field: 1 },
    });
    expect(same.status, same.text).toBe(200);
    expect(same.body.data.id).toBe(first.body.data.id);
    // Another user's key of the same name is theirs alone.
    const other = await userWithRole(server, 'idem-other', 'operator');
    expect((await post({ theme: '别人的' }, { 'idempotency-key': 'k-body' }, other.token)).status).toBe(200);
  });

  it('422/42201 when the workspace has no API key', async () => {
    const keys = await ok(server, 'GET', '/api-keys', ws.token);
    for (const k of keys.items) await ok(server, 'DELETE', `/api-keys/${k.id}`, ws.token);
    const res = await post({});
    expect(res.status).toBe(422);
    expect(res.body.code).toBe(42201);
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'local', api_key: 'local-test-key' });
  });

  it('fails the task at once (with its events) when the queue refuses the id; regenerate restarts it', async () => {
    const queue = server.ctx.queue;
    const enqueue = queue.enqueue;
    queue.enqueue = async () => {
      throw new Error('queue down');
    };
    let res;
    try {
      res = await post({ theme: '队列故障' });
    } finally {
      queue.enqueue = enqueue;
    }
    expect(res.status).toBe(500);
    expect(res.body.code).toBe(50000);
    const task = await server.ctx.db.selectFrom('tasks').selectAll().where('theme', '=', '队列故障').executeTakeFirstOrThrow();
    expect(task.status).toBe('failed');
    expect(task.failure_reason).toMatch(/queue/);
    const events = await server.ctx.events.replay(task.id, 0);
    // The same events, in the same order, as any failed generation (the lifecycle's fail_generation).
    expect(events.map((e) => e.name)).toEqual(['error', 'status', 'done']);
    const again = await server.request('POST', `${API}/tasks/${task.id}/regenerate`, { token: ws.token });
    expect(again.status).toBe(200);
    const jobs = await server.ctx.db.selectFrom('jobs').select('kind').where('ref_id', '=', task.id).execute();
    expect(jobs).toHaveLength(1);
  });

  it('lets operators create tasks; needs a token', async () => {
    const op = await userWithRole(server, 'op1', 'operator');
    expect((await post({}, {}, op.token)).status).toBe(200);
    const anon = await server.request('POST', `${API}/tasks`, { body: { product_id: ws.productId } });
    expect(anon.status).toBe(401);
  });
});

describe('GET /tasks', () => {
  let server: TestServer;
  let ws: Workspace;
  let ids: number[];
  let second: number;
  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    ws = await workspaceWithProduct(server);
    const other = await ok(server, 'POST', '/products', ws.token, { name: '第二产品', category: '家居', source: 'custom' });
    second = other.id;
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await createTask(server, ws, { theme: `主题${i}`, product_id: i % 2 ? second : ws.productId })).id);
    // Spread creation times over three days: 2026-11-20, 21, 22 (UTC).
    const at = ['2026-11-20T00:00:00.000Z', '2026-11-20T23:59:59.999Z', '2026-11-21T12:00:00.000Z', '2026-11-22T00:00:00.000Z', '2026-11-22T08:30:00.000Z'];
    for (let i = 0; i < 5; i++) await server.ctx.db.updateTable('tasks').set({ created_at: at[i]! }).where('id', '=', ids[i]!).execute();
    await server.ctx.db.updateTable('tasks').set({ status: 'failed' }).where('id', '=', ids[2]!).execute();
  });
  afterAll(async () => server?.close());

  const list = (q: string) => server.request('GET', `${API}/tasks${q}`, { token: ws.token });

  it('lists newest first with product_name and paging', async () => {
    const res = await list('?page_size=2&page=1');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 5, page: 1, page_size: 2 });
    expect(res.body.data.items.map((t: any) => t.id)).toEqual([ids[4], ids[3]]);
    expect(res.body.data.items[1].product_name).toBe('第二产品');
    const page3 = await list('?page_size=2&page=3');
    expect(page3.body.data.items.map((t: any) => t.id)).toEqual([ids[0]]);
    const defaults = await list('');
    expect(defaults.body.data).toMatchObject({ page: 1, page_size: 20 });
    expect(defaults.body.data.items[0].created_at).toBe('2026-11-22T08:30:00.000Z');
  });

  it('refuses page_size outside 1..100 and page < 1', async () => {
    for (const q of ['?page_size=101', '?page_size=0', '?page=0', '?page_size=abc']) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe(40000);
    }
    expect((await list('?page_size=100')).status).toBe(200);
  });

  it('filters by status and product', async () => {
    expect((await list('?status=failed')).body.data.items.map((t: any) => t.id)).toEqual([ids[2]]);
    expect((await list(`?product_id=${second}`)).body.data.items.map((t: any) => t.id)).toEqual([ids[3], ids[1]]);
    expect((await list('?status=nonsense')).status).toBe(400);
  });

  it('filters by whole UTC days and by date-times, inclusive', async () => {
    const idsOf = async (q: string) => (await list(q)).body.data.items.map((t: any) => t.id);
    expect(await idsOf('?date_from=2026-11-20&date_to=2026-11-20')).toEqual([ids[1], ids[0]]);
    expect(await idsOf('?date_from=2026-11-21')).toEqual([ids[4], ids[3], ids[2]]);
    expect(await idsOf('?date_to=2026-11-21')).toEqual([ids[2], ids[1], ids[0]]);
    expect(await idsOf('?date_from=2026-11-22T00:00:00Z&date_to=2026-11-22T08:30:00Z')).toEqual([ids[4], ids[3]]);
    // 2026-11-22T09:00+08:00 is 01:00 UTC
    expect(await idsOf('?date_from=2026-11-21T20:00:00-04:00&date_to=2026-11-22T09:00:00%2B08:00')).toEqual([ids[3]]);
    for (const q of ['?date_from=2026-02-30', '?date_from=22/11/2026', '?date_to=2026-11-22T10:00', '?date_from=2026-11-23&date_to=2026-11-22', '?date_from=yesterday']) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe(40000);
    }
  });

  it('reports totals that match the tasks, whichever way their status changed', async () => {
    await setStatus(server, ids[0]!, 'approved');
    const archived = await server.request('POST', `${API}/tasks/${ids[0]}/archive`, { token: ws.token });
    expect(archived.status).toBe(200);
    await server.ctx.db.updateTable('tasks').set({ status: 'generating' }).where('id', 'in', [ids[1]!, ids[3]!]).execute();
    await createTask(server, ws, { product_id: second });
    const statuses = [undefined, 'pending', 'generating', 'archived', 'failed', 'approved'] as const;
    for (const status of statuses) {
      for (const productId of [undefined, ws.productId, second]) {
        let query = server.ctx.db.selectFrom('tasks').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', ws.workspaceId);
        if (status) query = query.where('status', '=', status);
        if (productId) query = query.where('product_id', '=', productId);
        const expected = Number((await query.executeTakeFirstOrThrow()).n);
        const q = new URLSearchParams({ page_size: '1', ...(status ? { status } : {}), ...(productId ? { product_id: String(productId) } : {}) });
        const res = await list(`?${q}`);
        expect(res.body.data.total, q.toString()).toBe(expected);
        expect(res.body.data.items.length).toBe(Math.min(1, expected));
      }
    }
  });

  it('shows the detail shape with empty candidates and null progress', async () => {
    const detail = await ok(server, 'GET', `/tasks/${ids[4]}`, ws.token);
    expect(detail).toMatchObject({ id: ids[4], benchmark_ids: [], text_candidates: [], image_candidates: [], progress: null, status: 'pending', generation: 0 });
    for (const key of ['product_name', 'need_product_image', 'review_status', 'reject_reason', 'reviewed_at', 'text_count', 'image_count', 'track']) expect(detail).toHaveProperty(key);
    expect((await server.request('GET', `${API}/tasks/99999999`, { token: ws.token })).status).toBe(404);
    expect((await server.request('GET', `${API}/tasks/abc`, { token: ws.token })).status).toBe(400);
  });
});
