import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, otherWorkspace, workspaceWithProduct, type Workspace } from './fixtures.js';

/**
 * GET /tasks serves repeated pages from a per-process cache validated by the workspace's
 * task-list version: every change a page shows must show at once, whoever makes it.
 */
const MODES: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'cache on', env: {} },
  { name: 'cache off', env: { TASK_LIST_CACHE_BYTES: '0' } },
];

describe.each(MODES)('GET /tasks page cache ($name)', ({ env }) => {
  let server: TestServer;
  let ws: Workspace;
  /** A second connection to the same database: writes from "another process". */
  let elsewhere: Database;

  beforeAll(async () => {
    server = await startTestServer({ worker: false, env });
    ws = await workspaceWithProduct(server);
    elsewhere = openDatabase({ databaseUrl: server.ctx.config.databaseUrl, dataDir: server.ctx.config.dataDir, poolSize: 1 });
  });
  afterAll(async () => {
    await elsewhere?.close();
    await server?.close();
  });

  const list = async (query = 'page_size=20', token = ws.token) => {
    const res = await server.request('GET', `${API}/tasks?${query}`, { token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    return res.body.data as { items: any[]; total: number; page: number; page_size: number };
  };
  const version = async () =>
    (await server.ctx.db.selectFrom('task_list_versions').select('version').where('workspace_id', '=', ws.workspaceId).executeTakeFirst())?.version;

  it('answers a repeated page identically, and shows a new task, a status change and a rename at once', async () => {
    const first = await createTask(server, ws, { theme: '第一条' });
    const before = await list();
    expect(await list()).toEqual(before);
    expect(before.items.map((t) => t.id)).toEqual([first.id]);

    const second = await createTask(server, ws, { theme: '第二条' });
    const afterCreate = await list();
    expect(afterCreate.total).toBe(2);
    expect(afterCreate.items.map((t) => t.id)).toEqual([second.id, first.id]);

    const refused = await server.request('POST', `${API}/tasks/${second.id}/archive`, { token: ws.token });
    expect(refused.status).toBe(409);
    expect(await list()).toEqual(afterCreate);

    await server.ctx.db.updateTable('tasks').set({ status: 'pending_selection' }).where('id', '=', second.id).execute();
    await ok(server, 'POST', `/tasks/${second.id}/archive`, ws.token);
    expect((await list()).items[0]).toMatchObject({ id: second.id, status: 'archived' });
    expect((await list('page_size=20&status=archived')).items.map((t) => t.id)).toEqual([second.id]);

    await ok(server, 'PUT', `/products/${ws.productId}`, ws.token, { name: '云朵保湿霜 二代', category: '护肤', source: 'custom' });
    expect((await list()).items.map((t) => t.product_name)).toEqual(['云朵保湿霜 二代', '云朵保湿霜 二代']);
  });

  it('shows what another process wrote: listed columns, deletes; progress writes leave the version alone', async () => {
    const task = await createTask(server, ws, { theme: '别处改' });
    await list();
    await sql`UPDATE tasks SET review_status = 'rejected', reject_reason = '标题太长' WHERE id = ${task.id}`.execute(elsewhere.db);
    expect((await list()).items.find((t) => t.id === task.id)).toMatchObject({ review_status: 'rejected', reject_reason: '标题太长' });

    const unchanged = await version();
    await sql`UPDATE tasks SET progress = ${JSON.stringify({ stage: 'text', done: 1, total: 3 })}, event_seq = event_seq + 1 WHERE id = ${task.id}`.execute(elsewhere.db);
    expect(await version()).toBe(unchanged);

    const total = (await list()).total;
    await sql`DELETE FROM tasks WHERE id = ${task.id}`.execute(elsewhere.db);
    const after = await list();
    expect(after.total).toBe(total - 1);
    expect(after.items.map((t) => t.id)).not.toContain(task.id);
  });

  it('keeps pages, filters and workspaces apart', async () => {
    for (let i = 0; i < 3; i++) await createTask(server, ws, { theme: `分页 ${i}` });
    const page1 = await list('page=1&page_size=2');
    const page2 = await list('page=2&page_size=2');
    expect(page1.items).toHaveLength(2);
    expect(page2.page).toBe(2);
    expect(page2.items.map((t) => t.id)).not.toEqual(page1.items.map((t) => t.id));
    expect(await list('page=1&page_size=2')).toEqual(page1);
    expect((await list('page_size=20&status=approved')).items).toEqual([]);

    const other = await otherWorkspace(server);
    const mine = await list();
    const theirs = await list('page_size=20', other.token);
    expect(theirs.total).toBe(0);
    await createTask(server, other, { theme: '另一个空间' });
    expect((await list('page_size=20', other.token)).items.map((t) => t.theme)).toEqual(['另一个空间']);
    expect(await list()).toEqual(mine);
  });

  it('never serves one workspace the page of another at the same list version', async () => {
    const other = await otherWorkspace(server);
    const theirs = await createTask(server, other, { theme: '同版本的另一个空间' });
    // Versions count changes per workspace, so two workspaces meet at equal numbers in real use.
    await server.ctx.db.updateTable('task_list_versions').set({ version: 4242 }).where('workspace_id', 'in', [ws.workspaceId, other.workspaceId]).execute();
    const mine = await list();
    expect(mine.items.map((t) => t.id)).not.toContain(theirs.id);
    const seen = await list('page_size=20', other.token);
    expect(seen.items.map((t) => t.id)).toEqual([theirs.id]);
  });

  it('answers bad filters with 400 before any cache lookup', async () => {
    const res = await server.request('GET', `${API}/tasks?date_from=2026-02-01&date_to=2026-01-01`, { token: ws.token });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(40000);
  });
});
