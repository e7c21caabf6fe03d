import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { imageBytes, seedImage, seedTask, seedText } from '../delivery/fixtures.js';
import { ok, setStatus, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';

/** An approved task whose set A has a selected text and a cover, as generation and review leave it. */
async function seedApprovedNote(server: TestServer, ws: Workspace): Promise<number> {
  const me = await ok(server, 'GET', '/auth/me', ws.token);
  const taskId = await seedTask(server, { workspaceId: ws.workspaceId, productId: ws.productId, operatorId: me.id, status: 'approved' });
  await seedText(server, { id: taskId, workspaceId: ws.workspaceId }, { strategy: 'A', selected: true, title: '助手排期的笔记', content: '一段只属于这篇笔记的正文，讲清楚怎么用。' });
  await seedImage(server, { id: taskId, workspaceId: ws.workspaceId }, { strategy: 'A', seq: 1, role: 'hook', data: await imageBytes({ color: '#39f' }) });
  return taskId;
}

/** The MCP server at POST /mcp, driven by the SDK's own client over Streamable HTTP (§13). */
describe('MCP server', () => {
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    ws = await workspaceWithProduct(server);
  });
  afterAll(async () => server?.close());

  const token = async (session: string, scopes: string[]) => (await ok(server, 'POST', '/auth/tokens', session, { name: `mcp ${scopes.join('+')}`, scopes })).token as string;

  const connect = async (bearer: string) => {
    const client = new Client({ name: 'test-assistant', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } });
    await client.connect(transport);
    return client;
  };
  const json = (result: any, i = 0) => JSON.parse(result.content[i].text);

  it('initializes, lists the tools with the routes\' schemas, creates a task seen over HTTP, and follows it', async () => {
    const client = await connect(await token(ws.token, ['read', 'produce']));
    expect(client.getServerVersion()?.name).toBe('content-production-service');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_products', 'create_task', 'get_task', 'select_text_candidate', 'edit_text_candidate', 'submit_for_review', 'create_package', 'get_package_download_link']));
    // Without the review scope, the review tools are not offered.
    expect(names).not.toContain('approve_task');
    const createTask = tools.find((t) => t.name === 'create_task')!;
    expect(createTask.inputSchema.properties).toMatchObject({ text_count: { type: 'integer', minimum: 1, maximum: 30 }, theme: { type: 'string', maxLength: 500 } });
    expect(createTask.inputSchema.required).toEqual(expect.arrayContaining(['product_id', 'theme', 'text_count', 'image_count', 'track']));
    expect(tools.find((t) => t.name === 'edit_text_candidate')!.inputSchema.required).toEqual(expect.arrayContaining(['id', 'candidate_id']));

    const products = json(await client.callTool({ name: 'list_products', arguments: { page_size: 5 } }));
    expect(products.items.map((p: { id: number }) => p.id)).toContain(ws.productId);

    const created = await client.callTool({ name: 'create_task', arguments: { product_id: ws.productId, theme: '助手建的任务', text_count: 2, image_count: 0, track: 'ai' } });
    expect(created.isError).toBeFalsy();
    const task = json(created);
    expect((created.content as any[])[1].text).toContain(`get_task with id ${task.id}`);
    const overHttp = await ok(server, 'GET', `/tasks/${task.id}`, ws.token);
    expect(overHttp).toMatchObject({ id: task.id, theme: '助手建的任务' });
    const read = json(await client.callTool({ name: 'get_task', arguments: { id: task.id } }));
    expect(read.id).toBe(task.id);
    await client.close();
  });

  it('answers errors in the contract\'s envelope with what to do', async () => {
    const client = await connect(await token(ws.token, ['read', 'produce']));
    const invalid = await client.callTool({ name: 'create_task', arguments: { product_id: ws.productId, theme: 'x', text_count: 99, image_count: 0, track: 'ai' } });
    expect(invalid.isError).toBe(true);
    expect(json(invalid)).toMatchObject({ code: 40000, message: expect.stringContaining('text_count') });
    expect((invalid.content as any[])[1].text).toMatch(/Fix the arguments/);
    const missing = await client.callTool({ name: 'get_task', arguments: { id: 987654 } });
    expect(json(missing)).toMatchObject({ code: 40400 });
    await client.close();
  });

  it('refuses approval to a produce-only token, even an admin\'s, and allows it with review on a supervisor', async () => {
    const task = await ok(server, 'POST', '/tasks', ws.token, { product_id: ws.productId, theme: '待审', text_count: 1, image_count: 0, track: 'ai' });
    await setStatus(server, task.id, 'pending_review');
    const producer = await connect(await token(ws.token, ['read', 'produce']));
    const refused = await producer.callTool({ name: 'approve_task', arguments: { task_id: task.id } });
    expect(refused.isError).toBe(true);
    expect(json(refused)).toMatchObject({ code: 40300, message: expect.stringContaining('review scope') });
    await producer.close();

    const operator = await userWithRole(server, 'mcp-operator', 'operator');
    const opClient = await connect(await token(operator.token, ['read', 'produce']));
    expect(json(await opClient.callTool({ name: 'approve_task', arguments: { task_id: task.id } }))).toMatchObject({ code: 40300 });
    await opClient.close();

    const supervisor = await userWithRole(server, 'mcp-supervisor', 'supervisor');
    const reviewer = await connect(await token(supervisor.token, ['read', 'review']));
    expect((await reviewer.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_review_queue', 'approve_task', 'reject_task']));
    const approved = await reviewer.callTool({ name: 'approve_task', arguments: { task_id: task.id } });
    expect(approved.isError, JSON.stringify(approved)).toBeFalsy();
    expect((await ok(server, 'GET', `/tasks/${task.id}`, ws.token)).status).toBe('approved');
    await reviewer.close();
  });

  it('refuses a revoked token, and one without credentials, with 401 in the envelope', async () => {
    const made = await ok(server, 'POST', '/auth/tokens', ws.token, { name: 'to revoke', scopes: ['read'] });
    const client = await connect(made.token);
    await client.close();
    await ok(server, 'DELETE', `/auth/tokens/${made.id}`, ws.token);
    await expect(connect(made.token)).rejects.toThrow(/401|40101/);
    const bare = await server.request('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(bare.status).toBe(401);
    expect(bare.body).toMatchObject({ code: 40100 });
    // Stateless: no stream to open with GET.
    const live = await ok(server, 'POST', '/auth/tokens', ws.token, { name: 'get', scopes: ['read'] });
    expect((await server.request('GET', '/mcp', { token: live.token, headers: { accept: 'text/event-stream' } })).status).toBe(405);
  });

  it('plans a post of an approved note, reads its kit and results, but offers no tool to mark it published', async () => {
    const account = await ok(server, 'POST', '/accounts', ws.token, { name: '助手排期号' });
    const taskId = await seedApprovedNote(server, ws);
    const client = await connect(await token(ws.token, ['read', 'produce']));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_accounts', 'list_posts', 'schedule_post', 'get_post_kit', 'record_post_metrics', 'get_analytics_overview']));
    expect(names.some((n) => /publish/.test(n))).toBe(false);
    const at = new Date(Date.now() + 3 * 3_600_000).toISOString();
    const planned = await client.callTool({ name: 'schedule_post', arguments: { account_id: account.id, scheduled_at: at, task_id: taskId, strategy: 'A' } });
    expect(planned.isError).toBeFalsy();
    const post = json(planned);
    expect((await ok(server, 'GET', `/posts/${post.id}`, ws.token)).status).toBe('scheduled');
    const kit = json(await client.callTool({ name: 'get_post_kit', arguments: { id: post.id } }));
    expect(kit.hashtag_line).toMatch(/^#/);
    // The same note again: refused in the envelope, naming the post.
    const again = await client.callTool({ name: 'schedule_post', arguments: { account_id: account.id, scheduled_at: new Date(Date.now() + 9 * 3_600_000).toISOString(), task_id: taskId, strategy: 'A' } });
    expect(again.isError).toBe(true);
    expect(json(again)).toMatchObject({ code: 40900, message: expect.stringContaining(`already post ${post.id}`) });
    const overview = json(await client.callTool({ name: 'get_analytics_overview', arguments: {} }));
    expect(overview.posts.scheduled).toBeGreaterThanOrEqual(1);
    await client.close();
  });

  it('plans a batch, follows it and cancels it; a read-only token cannot create one', async () => {
    const product = await ok(server, 'POST', '/products', ws.token, { name: '助手批量产品', category: '护肤', source: 'custom' });
    const client = await connect(await token(ws.token, ['read', 'produce']));
    const created = await client.callTool({ name: 'create_batch', arguments: { name: '助手的一周', matrix: { product_ids: [product.id], themes: ['周一', '周二'], text_count: 1, image_count: 0 } } });
    expect(created.isError).toBeFalsy();
    const batch = json(created);
    expect(batch).toMatchObject({ name: '助手的一周', total: 2 });
    expect(JSON.stringify(created.content)).toContain(`get_batch with id ${batch.id}`);
    const read = json(await client.callTool({ name: 'get_batch', arguments: { id: batch.id } }));
    expect(read.items.map((i: any) => i.theme)).toEqual(['周一', '周二']);
    const cancelled = await client.callTool({ name: 'cancel_batch', arguments: { id: batch.id } });
    // Cancelled, or already finished by the worker (409 in the envelope): either is the route's answer.
    expect(cancelled.isError ? String(json(cancelled).code) : json(cancelled).status).toMatch(/^(cancelled|40900)$/);
    await client.close();
    const reader = await connect(await token(ws.token, ['read']));
    const refused = await reader.callTool({ name: 'create_batch', arguments: { name: 'x', matrix: { product_ids: [product.id], themes: ['t'], text_count: 1, image_count: 0 } } });
    expect(refused.isError).toBe(true);
    expect(json(refused)).toMatchObject({ code: 40300 });
    await reader.close();
  });
});
