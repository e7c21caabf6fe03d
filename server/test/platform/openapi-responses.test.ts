import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentEveryRoute } from '../../src/http/openapi.js';
import { settledDetail } from '../generation/helpers.js';
import { settledFission } from '../fission/fixtures.js';
import { ADMIN_NEW_PASSWORD, ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.js';

describe('every API route is documented', () => {
  const documented = { operationId: 'getThing', summary: 'Get a thing', description: 'One thing', tags: ['products'] };

  async function register(schema: Record<string, unknown>, url = '/api/v1/things') {
    const app = Fastify();
    documentEveryRoute(app);
    app.get(url, { schema }, async () => ({}));
    try {
      await app.ready();
    } finally {
      await app.close();
    }
  }

  it('refuses at startup a route without operationId, summary, description or a declared tag', async () => {
    await expect(register(documented)).resolves.toBeUndefined();
    for (const key of ['operationId', 'summary', 'description'] as const) {
      const { [key]: _left, ...rest } = documented;
      await expect(register(rest)).rejects.toThrow(new RegExp(`GET /api/v1/things lacks ${key}`));
    }
    await expect(register({ ...documented, tags: [] })).rejects.toThrow(/needs tags from API_TAGS/);
    await expect(register({ ...documented, tags: ['undeclared'] })).rejects.toThrow(/needs tags from API_TAGS/);
  });

  it('refuses a multipart route whose form is not documented', async () => {
    await expect(register({ ...documented, consumes: ['multipart/form-data'] })).rejects.toThrow(/reads a multipart form/);
  });

  it('leaves hidden routes and routes outside the API alone', async () => {
    await expect(register({ hide: true })).resolves.toBeUndefined();
    await expect(register({}, '/healthz')).resolves.toBeUndefined();
  });
});

/** One real exchange: the operation (document path template and method) and what came back. */
interface Recorded {
  method: string;
  template: string;
  status: number;
  mediaType: string;
  body: Buffer;
}

type CallOptions = {
  token?: string;
  params?: Record<string, string | number>;
  query?: Record<string, string | number>;
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
};

/**
 * Every operation of the document, called through real HTTP on a real server (the offline
 * `local` provider makes the tasks, the fission and the packages), each response recorded and
 * then held against the document: its status declared, its media type declared, its body valid
 * against the declared schema (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 says).
 */
describe('real responses match the OpenAPI document', () => {
  let server: TestServer;
  let document: any;
  const recorded: Recorded[] = [];

  async function call(method: string, template: string, o: CallOptions = {}) {
    let path = template;
    for (const [name, value] of Object.entries(o.params ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    const query = o.query ? `?${new URLSearchParams(Object.entries(o.query).map(([k, v]): [string, string] => [k, String(v)]))}` : '';
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: RequestInit['body'];
    if (o.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.json);
    } else if (o.form) body = o.form;
    const res = await fetch(`${server.url}/api/v1${path}${query}`, { method, headers, body });
    const bytes = Buffer.from(await res.arrayBuffer());
    const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    recorded.push({ method: method.toLowerCase(), template, status: res.status, mediaType, body: bytes });
    let json: any;
    if (mediaType === 'application/json') json = JSON.parse(bytes.toString('utf8'));
    return { status: res.status, headers: res.headers, json, bytes };
  }

  /** `data` of a 200 answer, failing loudly on anything else. */
  async function data(method: string, template: string, o: CallOptions = {}): Promise<any> {
    const res = await call(method, template, o);
    if (res.status !== 200) throw new Error(`${method} ${template} → ${res.status} ${res.bytes.toString('utf8').slice(0, 300)}`);
    return res.json.data;
  }

  /** Waits until no image of the task is still being made. */
  async function imagesSettled(token: string, taskId: number) {
    for (const until = Date.now() + 30_000; Date.now() < until; ) {
      const detail = (await server.request('GET', `/api/v1/tasks/${taskId}`, { token })).body.data;
      if (!detail.image_candidates.some((image: any) => image.status === 'pending')) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`images of task ${taskId} still pending after 30 s`);
  }

  async function login(username: string, password: string, newPassword: string): Promise<string> {
    const first = await data('POST', '/auth/login', { json: { username, password } });
    const changed = await data('POST', '/auth/change-password', { token: first.token, json: { current_password: password, new_password: newPassword } });
    return changed.token;
  }

  const png = (color: string) => sharp({ create: { width: 300, height: 400, channels: 3, background: color } }).png().toBuffer();
  function imageForm(field: string, bytes: Buffer, fields: Record<string, string> = {}) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append(field, new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'picture.png');
    return form;
  }

  /** A webhook receiver on this machine (the server is told private addresses are allowed). */
  const receiver = { url: '', server: createServer((_request, response) => response.end('ok')) };

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000', ALLOW_PRIVATE_PROVIDER_URLS: '1', LOCAL_PROVIDER_IMAGE_FAILURES: 'task:1' } });
    document = (await server.request('GET', '/api/v1/openapi.json')).body;
  });
  afterAll(async () => {
    await server?.close();
    receiver.server.close();
  });

  it('records a real response of every operation', { timeout: 240_000 }, async () => {
    // Auth and the forced password change.
    expect((await call('POST', '/auth/login', { json: { username: 'admin', password: 'wrong-password-1' } })).status).toBe(401);
    const admin = await login('admin', ADMIN_PASSWORD, ADMIN_NEW_PASSWORD);
    expect((await call('GET', '/auth/me')).status).toBe(401);
    const me = await data('GET', '/auth/me', { token: admin });
    expect(me.current_workspace_id).toBeGreaterThan(0);

    // Workspaces, users, membership, invitations.
    await data('GET', '/workspaces', { token: admin });
    const second = await data('POST', '/workspaces', { token: admin, json: { name: 'Second', slug: 'second-ws' } });
    const secondToken = (await data('POST', '/workspaces/switch', { token: admin, json: { workspace_id: second.id } })).token as string;
    const operator = await data('POST', '/users', { token: admin, json: { username: 'op-doc', email: 'op-doc@example.com', password: 'first-password-1', role: 'operator' } });
    await data('GET', '/users', { token: admin, query: { page: 1 } });
    await data('PATCH', '/users/{id}', { token: admin, params: { id: operator.id }, json: { email: 'op-doc2@example.com' } });
    const operatorToken = await login('op-doc', 'first-password-1', 'second-password-2');
    expect((await call('GET', '/users', { token: operatorToken })).status).toBe(403);
    await data('POST', '/workspaces/{id}/members', { token: admin, params: { id: second.id }, json: { user_id: operator.id, role: 'operator' } });
    await data('DELETE', '/workspaces/{id}/members/{user_id}', { token: admin, params: { id: second.id, user_id: operator.id } });
    const invited = await data('POST', '/workspaces/{id}/invitations', { token: admin, params: { id: second.id }, json: { username: 'op-doc', role: 'operator' } });
    await data('GET', '/workspaces/{id}/invitations', { token: admin, params: { id: second.id } });
    await data('GET', '/invitations', { token: operatorToken });
    await data('POST', '/invitations/{id}/decline', { token: operatorToken, params: { id: invited.id } });
    expect((await call('POST', '/invitations/{id}/accept', { token: operatorToken, params: { id: invited.id } })).status).toBeGreaterThanOrEqual(400);
    const again = await data('POST', '/workspaces/{id}/invitations', { token: admin, params: { id: second.id }, json: { username: 'op-doc', role: 'operator' } });
    await data('POST', '/invitations/{id}/accept', { token: operatorToken, params: { id: again.id } });
    const linked = await data('POST', '/workspaces/{id}/invitations', { token: admin, params: { id: second.id }, json: { email: 'linked@example.com', role: 'operator' } });
    await data('POST', '/invitations/redeem', { token: operatorToken, json: { token: linked.token } });
    const third = await data('POST', '/workspaces/{id}/invitations', { token: admin, params: { id: second.id }, json: { email: 'nobody@example.com', role: 'operator' } });
    await data('DELETE', '/workspaces/{id}/invitations/{invitation_id}', { token: admin, params: { id: second.id, invitation_id: third.id } });
    expect((await call('GET', '/workspaces/{id}/invitations', { token: secondToken, params: { id: 2147483647 } })).status).toBe(404);

    // Provider keys (the offline `local` provider).
    const key = await data('POST', '/api-keys', { token: admin, json: { provider: 'local', api_key: 'local-doc-key' } });
    await data('GET', '/api-keys', { token: admin });
    await data('GET', '/api-keys/presets', { token: admin });
    await data('PATCH', '/api-keys/{id}', { token: admin, params: { id: key.id }, json: { name: '离线演示' } });
    await data('POST', '/api-keys/{id}/test', { token: admin, params: { id: key.id }, json: { image: true } });
    await data('GET', '/api-keys/{id}/models', { token: admin, params: { id: key.id } });
    await data('GET', '/workspaces/current/generation', { token: admin });
    await data('PUT', '/workspaces/current/generation', { token: admin, json: { text_key_id: key.id, vision_key_id: null, image_key_id: null } });

    // Webhooks, delivered to a local receiver.
    const hook = await data('POST', '/webhooks', {
      token: admin,
      json: { name: '群通知', url: `${receiver.url}/hook`, kind: 'generic', events: ['task.approved'], secret: 'hook-secret' },
    });
    await data('GET', '/webhooks', { token: admin });
    await data('PATCH', '/webhooks/{id}', { token: admin, params: { id: hook.id }, json: { events: ['task.approved', 'package.ready'] } });
    await data('POST', '/webhooks/{id}/test', { token: admin, params: { id: hook.id } });
    await data('GET', '/webhooks/{id}/deliveries', { token: admin, params: { id: hook.id } });
    expect((await call('GET', '/webhooks', { token: operatorToken })).status).toBe(403);

    // Personal access tokens (§13): made, listed, used and revoked.
    const pat = await data('POST', '/auth/tokens', { token: admin, json: { name: '助手', scopes: ['read', 'produce'], expires_at: '2099-01-01T00:00:00Z' } });
    await data('GET', '/auth/me', { token: pat.token });
    await data('GET', '/auth/tokens', { token: admin });
    await data('DELETE', '/auth/tokens/{id}', { token: admin, params: { id: pat.id } });

    // Products, their images and the signed file links.
    const productBody = { name: '云朵保湿霜', category: '护肤', source: 'custom', selling_points: ['48小时保湿'] };
    const product = await data('POST', '/products', { token: admin, json: productBody });
    await data('GET', '/products', { token: admin, query: { q: '云朵' } });
    await data('GET', '/products/{id}', { token: admin, params: { id: product.id } });
    await data('PUT', '/products/{id}', { token: admin, params: { id: product.id }, json: { ...productBody, style_tone: '温柔' } });
    expect((await call('GET', '/products/{id}', { token: admin, params: { id: 2147483647 } })).status).toBe(404);
    expect((await call('GET', '/products', { token: admin, query: { page_size: 1000 } })).status).toBe(400);
    const image = await data('POST', '/products/{id}/images', { token: admin, params: { id: product.id }, form: imageForm('image', await png('#f0c0a0'), { scene: '使用前' }) });
    const spare = await data('POST', '/products/{id}/images', { token: admin, params: { id: product.id }, form: imageForm('image', await png('#a0c0f0')) });
    const notImage = new FormData();
    notImage.append('image', new Blob(['plain text, not a picture']), 'note.txt');
    expect((await call('POST', '/products/{id}/images', { token: admin, params: { id: product.id }, form: notImage })).status).toBe(415);
    await data('GET', '/products/{id}/images', { token: admin, params: { id: product.id } });
    await data('PATCH', '/products/{id}/images/{image_id}', { token: admin, params: { id: product.id, image_id: image.id }, json: { scene: '细节特写' } });
    await data('POST', '/products/{id}/images/{image_id}/primary', { token: admin, params: { id: product.id, image_id: image.id } });
    await data('DELETE', '/products/{id}/images/{image_id}', { token: admin, params: { id: product.id, image_id: spare.id } });
    const link = new URL(image.url, server.url);
    const fileKey = decodeURIComponent(link.pathname.split('/').at(-1)!);
    const signed = Object.fromEntries(link.searchParams);
    expect((await call('GET', '/files/{key}', { params: { key: fileKey }, query: signed })).status).toBe(200);
    expect((await call('GET', '/files/{key}', { params: { key: fileKey }, query: { ...signed, sig: 'forged' } })).status).toBe(403);
    expect((await call('GET', '/files/{key}', { params: { key: fileKey }, query: { sig: signed.sig! } })).status).toBe(400);
    expect((await call('GET', '/files/{key}', { params: { key: 'not-a-key.png' }, query: signed })).status).toBe(404);
    const doomed = await data('POST', '/products', { token: admin, json: { ...productBody, name: '待删除' } });
    await data('DELETE', '/products/{id}', { token: admin, params: { id: doomed.id } });

    // Benchmarks.
    const benchmark = await data('POST', '/products/{id}/benchmarks', { token: admin, params: { id: product.id }, json: { highlights: '开头一句戳痛点，结尾引导收藏' } });
    const shot = await data('POST', '/products/{id}/benchmarks/upload', {
      token: admin,
      params: { id: product.id },
      form: imageForm('screenshot', await png('#c0f0a0'), { highlights: '三段式结构' }),
    });
    await data('GET', '/products/{id}/benchmarks', { token: admin, params: { id: product.id } });
    await data('GET', '/benchmarks/{id}', { token: admin, params: { id: benchmark.id } });
    await data('PATCH', '/benchmarks/{id}', { token: admin, params: { id: benchmark.id }, json: { share_text: '【通勤防晒 - 阿敏 | 小红书 - 你的生活指南】 http://xhslink.com/a/Zz9，复制本条信息' } });
    await data('POST', '/benchmarks/{id}/analyze', { token: admin, params: { id: benchmark.id } });
    expect((await call('GET', '/benchmarks/export.csv', { token: admin, query: { product_id: product.id } })).status).toBe(200);
    await data('DELETE', '/benchmarks/{id}', { token: admin, params: { id: shot.id } });

    // Banned words.
    const word = await data('POST', '/banned-words', { token: admin, json: { word: '最便宜', level: 'hard_block', replacement: '高性价比' } });
    expect((await call('POST', '/banned-words', { token: admin, json: { word: '最便宜', level: 'hard_block' } })).status).toBe(409);
    await data('GET', '/banned-words', { token: admin, query: { q: '便宜' } });
    const presets = await data('GET', '/banned-words/presets', { token: admin });
    await data('POST', '/banned-words/presets/{name}/import', { token: admin, params: { name: presets.items[0].name } });
    await data('GET', '/banned-words/{id}', { token: admin, params: { id: word.id } });
    await data('PUT', '/banned-words/{id}', { token: admin, params: { id: word.id }, json: { word: '最便宜', level: 'soft_warn' } });
    await data('DELETE', '/banned-words/{id}', { token: admin, params: { id: word.id } });
    await data('POST', '/banned-words/bulk', { token: admin, json: { items: [{ word: '秒杀价', level: 'soft_warn' }, { word: '根治', level: 'hard_block' }] } });
    const pasted = (await data('GET', '/banned-words', { token: admin, query: { q: '秒杀价' } })).items as Array<{ id: number }>;
    await data('POST', '/banned-words/bulk-delete', { token: admin, json: { ids: pasted.map((w) => w.id) } });

    // A task generated by the offline provider, its stream, selection and editing.
    const created = await data('POST', '/tasks', {
      token: admin,
      headers: { 'idempotency-key': 'doc-task-1' },
      json: { product_id: product.id, theme: '秋冬换季护肤', text_count: 1, image_count: 2, track: 'ai' },
    });
    expect((await call('POST', '/tasks', { token: admin, json: { product_id: product.id, theme: '', text_count: 1, image_count: 1, track: 'ai' } })).status).toBe(400);
    // The first task image fails (LOCAL_PROVIDER_IMAGE_FAILURES), so retry-images has one to make.
    expect((await settledDetail(server, admin, created.id)).status).toBe('pending_selection');
    await data('POST', '/tasks/{id}/retry-images', { token: admin, params: { id: created.id } });
    await imagesSettled(admin, created.id);
    await data('POST', '/tasks/{id}/regenerate', { token: admin, params: { id: created.id } });
    const task = await settledDetail(server, admin, created.id);
    expect(task.status).toBe('pending_selection');
    await data('GET', '/tasks', { token: admin, query: { status: 'pending_selection' } });
    await data('GET', '/tasks', { token: admin, query: { q: '秋冬', hide_archived: 'true' } });
    await data('GET', '/tasks/covers', { token: admin, query: { ids: String(task.id) } });
    const detail = await data('GET', '/tasks/{id}', { token: admin, params: { id: task.id } });
    const { ticket } = await data('POST', '/tasks/{id}/sse-ticket', { token: admin, params: { id: task.id } });
    expect((await call('GET', '/tasks/{id}/stream', { params: { id: task.id }, query: { ticket } })).status).toBe(200);
    expect((await call('GET', '/tasks/{id}/stream', { params: { id: task.id } })).status).toBe(401);
    const text = detail.text_candidates[0];
    const picture = detail.image_candidates[0];
    const slide = detail.image_candidates.find((i: any) => i.seq > 1 && i.status === 'done');
    await data('PATCH', '/tasks/{id}/image-candidates/{candidate_id}', { token: admin, params: { id: task.id, candidate_id: slide.candidate_id }, json: { caption: '早晚各用一次' } });
    await data('POST', '/tasks/{id}/text-candidates/{candidate_id}/edit', {
      token: admin,
      params: { id: task.id, candidate_id: text.candidate_id },
      json: { content: '换季时皮肤容易干，我每天早晚用这款保湿霜，质地轻薄好吸收。', title: '换季保湿心得' },
    });
    await data('POST', '/tasks/{id}/image-candidates/{candidate_id}/regenerate', {
      token: admin,
      params: { id: task.id, candidate_id: picture.candidate_id },
      json: { instruction: '换成浅色背景' },
    });
    await imagesSettled(admin, task.id);
    await data('POST', '/tasks/{id}/image-candidates/upload', {
      token: admin,
      params: { id: task.id },
      form: imageForm('image', await png('#f0f0c0'), { strategy: picture.strategy, seq: String(picture.seq), role: picture.role }),
    });
    await data('POST', '/tasks/{id}/text-candidates/select', { token: admin, params: { id: task.id }, json: { candidate_id: text.candidate_id } });
    await data('POST', '/tasks/{id}/image-candidates/select', { token: admin, params: { id: task.id }, json: { candidate_id: picture.candidate_id } });
    await data('GET', '/tasks/{id}/preference/context', { token: admin, params: { id: task.id } });
    await data('GET', '/tasks/{id}/preference/signals', { token: admin, params: { id: task.id } });
    await data('GET', '/products/{id}/preference/scores', { token: admin, params: { id: product.id } });
    expect((await call('DELETE', '/products/{id}', { token: admin, params: { id: product.id } })).status).toBe(409);

    // An import-track task takes an external text.
    const imported = await data('POST', '/tasks', { token: admin, json: { product_id: product.id, theme: '外部文案', text_count: 1, image_count: 0, track: 'import' } });
    await data('POST', '/tasks/{id}/import-text', {
      token: admin,
      params: { id: imported.id },
      json: { content: '这是一段外部写好的笔记正文，讲保湿霜的使用感受。', angle_label: '使用感受', title: '外部笔记' },
    });

    // Review: submit, reject back, submit again, approve.
    await data('POST', '/tasks/{id}/submit-review', { token: admin, params: { id: task.id } });
    await data('GET', '/review/queue', { token: admin });
    await data('POST', '/review/{task_id}/reject', { token: admin, params: { task_id: task.id }, json: { reason: '标题再短一点' } });
    const remark = await data('POST', '/tasks/{id}/comments', { token: admin, params: { id: task.id }, json: { body: '标题再短一点' } });
    await data('GET', '/tasks/{id}/comments', { token: admin, params: { id: task.id } });
    await data('POST', '/tasks/{id}/comments/{comment_id}/resolve', { token: admin, params: { id: task.id, comment_id: remark.id }, json: {} });
    await data('DELETE', '/tasks/{id}/comments/{comment_id}', { token: admin, params: { id: task.id, comment_id: remark.id } });
    await data('POST', '/tasks/{id}/submit-review', { token: admin, params: { id: task.id } });
    await data('POST', '/review/{task_id}/approve', { token: admin, params: { task_id: task.id } });
    expect((await call('POST', '/review/{task_id}/approve', { token: admin, params: { task_id: task.id } })).status).toBe(409);
    await data('GET', '/tasks/{id}/reviews', { token: admin, params: { id: task.id } });
    await data('GET', '/tasks/{id}/audit', { token: admin, params: { id: task.id } });
    expect((await call('GET', '/tasks/{id}/audit', { token: admin, params: { id: task.id }, query: { format: 'csv' } })).status).toBe(200);

    // Delivery: a package built by the worker, its token and the zip, whole and in part.
    const { delivery_package_id: packageId } = await data('POST', '/tasks/{id}/package', { token: admin, params: { id: task.id }, json: {} });
    let pack = await data('GET', '/delivery-packages/{id}/download', { token: admin, params: { id: packageId } });
    for (const until = Date.now() + 30_000; pack.status === 'pending' && Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      pack = await data('GET', '/delivery-packages/{id}/download', { token: admin, params: { id: packageId } });
    }
    expect(pack.status).toBe('ready');
    await data('GET', '/tasks/{id}/packages', { token: admin, params: { id: task.id } });
    const download = await data('POST', '/delivery-packages/{id}/download-token', { token: admin, params: { id: packageId } });
    expect((await call('GET', '/delivery-packages/{id}/download-file', { params: { id: packageId }, query: { token: download.token } })).status).toBe(200);
    expect((await call('GET', '/delivery-packages/{id}/download-file', { token: admin, params: { id: packageId }, headers: { range: 'bytes=0-9' } })).status).toBe(206);
    expect((await call('GET', '/delivery-packages/{id}/download-file', { token: admin, params: { id: packageId }, headers: { range: 'bytes=999999999-' } })).status).toBe(416);
    expect((await call('GET', '/delivery-packages/{id}/download-file', { params: { id: packageId } })).status).toBe(401);
    await data('POST', '/delivery-packages/{id}/mark-downloaded', { token: admin, params: { id: packageId } });

    // Fission of the approved task.
    const fission = await data('POST', '/fission', { token: admin, json: { source_task_id: task.id, fanout_count: 1 } });
    const fissionId = fission.fission_id as number;
    await settledFission(server, admin, fissionId);
    await data('GET', '/fission/{id}', { token: admin, params: { id: fissionId } });
    await data('GET', '/fission', { token: admin, query: { source_task_id: task.id } });
    const notes = await data('GET', '/fission/{id}/notes', { token: admin, params: { id: fissionId } });

    // The publishing operation (§11): an account, a post of the approved note and one of its fission, the kit, published, results, the overview.
    const account = await data('POST', '/accounts', { token: admin, json: { name: '文档号' } });
    await data('GET', '/accounts', { token: admin });
    await data('GET', '/accounts/{id}', { token: admin, params: { id: account.id } });
    await data('PATCH', '/accounts/{id}', { token: admin, params: { id: account.id }, json: { persona: '干脆的通勤白领' } });
    const chosen = (await data('GET', '/tasks/{id}', { token: admin, params: { id: task.id } })).text_candidates.find((t: { is_selected: boolean }) => t.is_selected);
    const inHours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();
    const post = await data('POST', '/posts', { token: admin, json: { account_id: account.id, scheduled_at: inHours(1), task_id: task.id, strategy: chosen.strategy } });
    await data('GET', '/posts', { token: admin, query: { account_id: account.id } });
    await data('GET', '/posts/{id}', { token: admin, params: { id: post.id } });
    await data('PATCH', '/posts/{id}', { token: admin, params: { id: post.id }, json: { scheduled_at: inHours(2) } });
    await data('GET', '/posts/{id}/kit', { token: admin, params: { id: post.id } });
    await data('POST', '/posts/{id}/published', { token: admin, params: { id: post.id }, json: { note_url: 'https://www.xiaohongshu.com/explore/6650a1b2c3d4e5f6a7b8c9d0' } });
    await data('POST', '/posts/{id}/metrics', { token: admin, params: { id: post.id }, json: { views: 100, likes: 5 } });
    const sheet = new FormData();
    sheet.append('file', new Blob(['笔记ID,观看量,点赞\n6650a1b2c3d4e5f6a7b8c9d0,120,6\n']), 'notes.csv');
    await data('POST', '/metrics/import', { token: admin, form: sheet });
    await data('GET', '/analytics/overview', { token: admin });
    const fissionPost = await data('POST', '/posts', { token: admin, json: { account_id: account.id, scheduled_at: inHours(30), fission_id: fissionId, seq: notes.notes[0].seq, force: true } });
    await data('DELETE', '/posts/{id}', { token: admin, params: { id: fissionPost.id } });
    // A batch: its plan read, created from the plan's items, listed, read and cancelled.
    const plan = new FormData();
    plan.append('file', new Blob([`产品,主题,文案数,图片数\n${task.product_id},文档批次,1,0\n不存在,坏的一行,1,0\n`]), 'plan.csv');
    const read = await data('POST', '/batches/plan', { token: admin, form: plan });
    await data('POST', '/batches', { token: admin, json: { name: '文档批次', items: read.items } });
    // Forty tasks with images, six released at once: the cancel comes while most are held back.
    const batch = await data('POST', '/batches', { token: admin, json: { name: '要取消的批次', matrix: { product_ids: [task.product_id], themes: ['取消一', '取消二', '取消三', '取消四'], tasks_each: 10, text_count: 3, image_count: 3 } } });
    await data('POST', '/batches/{id}/cancel', { token: admin, params: { id: batch.id } });
    await data('GET', '/batches', { token: admin });
    await data('GET', '/batches/{id}', { token: admin, params: { id: batch.id } });
    await data('DELETE', '/accounts/{id}', { token: admin, params: { id: account.id } });
    expect((await call('GET', '/fission/{id}/download', { token: admin, params: { id: fissionId } })).status).toBe(200);
    const seq = notes.notes[0].seq;
    await data('POST', '/fission/{id}/notes/{seq}/edit', { token: admin, params: { id: fissionId, seq }, json: { title: '换季保湿这样做' } });
    expect((await call('GET', '/fission/{id}/notes/{seq}/download', { token: admin, params: { id: fissionId, seq } })).status).toBe(200);
    const retried = await call('POST', '/fission/{id}/notes/{seq}/retry-images', { token: admin, params: { id: fissionId, seq: notes.notes[0].seq } });
    expect([200, 409]).toContain(retried.status);

    // Archive the delivered task, and drop the key.
    await data('POST', '/tasks/{id}/archive', { token: admin, params: { id: task.id } });
    expect((await call('GET', '/products/export', { token: admin })).status).toBe(200);
    await data('DELETE', '/api-keys/{id}', { token: admin, params: { id: key.id } });
    await data('DELETE', '/webhooks/{id}', { token: admin, params: { id: hook.id } });
  });

  it('every operation of the document was called and answered with success at least once', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const method of Object.keys(item)) {
        const template = path.replace(/^\/api\/v1/, '');
        const answers = recorded.filter((r) => r.template === template && r.method === method);
        if (!answers.some((r) => r.status >= 200 && r.status < 300)) missing.push(`${method.toUpperCase()} ${template} (${answers.map((r) => r.status).join(', ') || 'never called'})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every recorded response has a declared status, a declared media type and a body valid against its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, formats: fullFormats });
    ajv.addSchema({ ...document, $id: 'openapi.json' });
    const problems: string[] = [];
    for (const r of recorded) {
      const where = `${r.method.toUpperCase()} ${r.template} → ${r.status}`;
      const operation = document.paths[`/api/v1${r.template}`]?.[r.method];
      if (!operation) {
        problems.push(`${where}: no such operation in the document`);
        continue;
      }
      const response = operation.responses[String(r.status)];
      if (!response) {
        problems.push(`${where}: status not declared (declared: ${Object.keys(operation.responses).join(', ')})`);
        continue;
      }
      const media = response.content?.[r.mediaType];
      if (!media) {
        problems.push(`${where}: media type ${r.mediaType || '(none)'} not declared (declared: ${Object.keys(response.content ?? {}).join(', ')})`);
        continue;
      }
      if (media.schema?.format === 'binary') {
        if (r.body.length === 0) problems.push(`${where}: empty file`);
        continue;
      }
      const pointer = ['paths', `/api/v1${r.template}`, r.method, 'responses', String(r.status), 'content', r.mediaType, 'schema']
        .map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1')))
        .join('/');
      const validate = ajv.getSchema(`openapi.json#/${pointer}`);
      if (!validate) {
        problems.push(`${where}: schema not found at ${pointer}`);
        continue;
      }
      const text = r.body.toString('utf8');
      const value = r.mediaType === 'application/json' ? JSON.parse(text) : text;
      if (!validate(value)) problems.push(`${where}: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 200)}`);
    }
    expect(problems).toEqual([]);
    expect(recorded.length).toBeGreaterThan(100);
  });
});
