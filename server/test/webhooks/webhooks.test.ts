import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { settledPackage } from '../delivery/fixtures.js';
import { settledDetail } from '../generation/helpers.js';
import { createTask, ok, otherWorkspace, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { redisAvailable, redisUrl } from '../tasks/processes.js';
import { Receiver, waitUntil, type Received } from './receiver.js';

/**
 * Team notifications over real HTTP (issue 16): webhooks are managed through the API, events
 * come from real state changes (the local provider generates, people submit, review, package,
 * fission), and a local receiver plays the team's endpoint or group bot. Runs on SQLite and
 * PostgreSQL (DATABASE_URL), with the in-process queue and with BullMQ on Redis.
 */

const PUBLIC_URL = 'https://console.example.com';
const SECRET = 'generic-signing-secret-1';
const deliveryEnv = {
  ALLOW_PRIVATE_PROVIDER_URLS: '1',
  PUBLIC_URL,
  WEBHOOK_POLL_MS: '25',
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_TIMEOUT_MS: '1500',
  // Tasks of the operator with an `openai` key fail fast: nothing listens there.
  PROVIDER_OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
  PROVIDER_MAX_RETRIES: '0',
};

/** The generic signature as a receiver checks it: HMAC-SHA256 of "<t>.<raw body>" with the shared secret. */
function verifyGeneric(r: Received, secret: string): boolean {
  const header = String(r.headers['x-signature'] ?? '');
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${r.raw}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex')) && Math.abs(Date.now() / 1000 - Number(match[1])) < 300;
}

const api = (server: TestServer, method: string, path: string, token: string, body?: unknown) =>
  server.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) });

describe('webhooks: management', () => {
  let server: TestServer;
  let admin: string;

  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    admin = await server.adminToken();
  });
  afterAll(async () => server?.close());

  it('creates, lists, changes and deletes; the URL is masked and the secret never returned or stored in clear', async () => {
    const url = 'https://open.feishu.cn/open-apis/bot/v2/hook/2f1c9a7e-1234-4bcd-9ef0-abcdef123456';
    const created = await api(server, 'POST', '/webhooks', admin, { name: '运营群', url, kind: 'feishu', events: ['task.submitted', 'task.approved'], secret: 'feishu-sign-secret' });
    expect(created.status, created.text).toBe(200);
    const hook = created.body.data;
    expect(hook).toMatchObject({ name: '运营群', kind: 'feishu', events: ['task.submitted', 'task.approved'], has_secret: true, is_active: true });
    expect(hook.url).toBe('https://open.feishu.cn/open-apis/bot/v2/hook/****3456');
    expect(created.text).not.toContain('feishu-sign-secret');
    expect(created.text).not.toContain('2f1c9a7e');
    const row = await server.ctx.db.selectFrom('webhooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('feishu-sign-secret');
    expect(JSON.stringify(row)).not.toContain('2f1c9a7e');

    const listed = await api(server, 'GET', '/webhooks', admin);
    expect(listed.body.data.items.map((w: any) => w.id)).toContain(hook.id);
    expect(listed.text).not.toContain('feishu-sign-secret');

    const changed = await api(server, 'PATCH', `/webhooks/${hook.id}`, admin, { name: '审核群', events: ['task.rejected'], secret: null, is_active: false });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toMatchObject({ name: '审核群', events: ['task.rejected'], has_secret: false, is_active: false, url: hook.url });

    const wecom = await api(server, 'POST', '/webhooks', admin, { name: '企微', url: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa', kind: 'wecom', events: ['package.ready'] });
    expect(wecom.body.data.url).toBe('https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=****5aaa');
    // A WeCom group robot signs nothing: a secret for it is a mistake worth saying.
    const wecomSecret = await api(server, 'PATCH', `/webhooks/${wecom.body.data.id}`, admin, { secret: 'x' });
    expect([wecomSecret.status, wecomSecret.body.code]).toEqual([400, 40000]);

    expect((await api(server, 'DELETE', `/webhooks/${hook.id}`, admin)).status).toBe(200);
    expect((await api(server, 'DELETE', `/webhooks/${hook.id}`, admin)).status).toBe(404);
    expect((await api(server, 'GET', `/webhooks/${hook.id}/deliveries`, admin)).status).toBe(404);
  });

  it('refuses bad input with 400 and private addresses unless the deployment allows them', async () => {
    const base = { name: '群', kind: 'generic', events: ['task.approved'] };
    for (const [body, why] of [
      [{ ...base, url: 'http://127.0.0.1:8080/hook' }, 'loopback'],
      [{ ...base, url: 'http://10.1.2.3/hook' }, 'private'],
      [{ ...base, url: 'http://169.254.169.254/latest' }, 'metadata'],
      [{ ...base, url: 'http://[::ffff:127.0.0.1]/x' }, 'mapped loopback'],
      [{ ...base, url: 'ftp://example.com/x' }, 'scheme'],
      [{ ...base, url: 'https://user:pw@example.com/x' }, 'credentials'],
      [{ ...base, url: 'not a url' }, 'not a URL'],
      [{ ...base, url: 'https://example.com/x', events: [] }, 'no events'],
      [{ ...base, url: 'https://example.com/x', events: ['task.approved', 'task.approved'] }, 'repeated event'],
      [{ ...base, url: 'https://example.com/x', events: ['task.deleted'] }, 'unknown event'],
      [{ ...base, url: 'https://example.com/x', kind: 'slack' }, 'unknown kind'],
      [{ ...base, url: 'https://example.com/x', name: '   ' }, 'blank name'],
    ] as const) {
      const res = await api(server, 'POST', '/webhooks', admin, body);
      expect([res.status, res.body.code], why).toEqual([400, 40000]);
      expect(res.body.message, why).toMatch(/\S/);
    }
    expect(await server.ctx.db.selectFrom('webhooks').select('id').where('name', '=', '群').execute()).toEqual([]);
  });

  it('reads its settings strictly: PUBLIC_URL must be a plain http(s) address, numbers must be numbers', () => {
    const base = { DATA_DIR: server.dataDir };
    expect(loadConfig({ ...base, PUBLIC_URL: 'https://content.example.com/' }).publicUrl).toBe('https://content.example.com');
    expect(loadConfig({ ...base, PUBLIC_URL: 'https://example.com/studio/' }).publicUrl).toBe('https://example.com/studio');
    expect(loadConfig(base).publicUrl).toBeUndefined();
    for (const bad of ['content.example.com', 'ftp://example.com', 'https://u:p@example.com', 'https://example.com/?a=1']) {
      expect(() => loadConfig({ ...base, PUBLIC_URL: bad }), bad).toThrow(/PUBLIC_URL/);
    }
    expect(() => loadConfig({ ...base, WEBHOOK_TIMEOUT_MS: 'ten' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
    expect(loadConfig(base).webhooks).toEqual({ timeoutMs: 10_000, retryBaseMs: 10_000, retryMaxMs: 3_600_000, retryWindowMs: 86_400_000, pollMs: 1_000 });
  });

  it('is for admins of the workspace only: other roles 403, another workspace 404', async () => {
    const hook = await ok(server, 'POST', '/webhooks', admin, { name: '本空间', url: 'https://example.com/hook', kind: 'generic', events: ['task.approved'] });
    for (const role of ['operator', 'supervisor'] as const) {
      const user = await userWithRole(server, `wh-${role}`, role);
      expect((await api(server, 'GET', '/webhooks', user.token)).status, role).toBe(403);
      expect((await api(server, 'POST', `/webhooks/${hook.id}/test`, user.token)).status, role).toBe(403);
    }
    const other = await otherWorkspace(server);
    for (const [method, path] of [
      ['PATCH', `/webhooks/${hook.id}`],
      ['DELETE', `/webhooks/${hook.id}`],
      ['POST', `/webhooks/${hook.id}/test`],
      ['GET', `/webhooks/${hook.id}/deliveries`],
    ] as const) {
      const res = await api(server, method, path, other.token, method === 'PATCH' ? { name: 'x' } : undefined);
      expect([res.status, res.body.code], `${method} ${path}`).toEqual([404, 40400]);
    }
    expect((await api(server, 'GET', '/webhooks', other.token)).body.data.items).toEqual([]);
  });
});

const redis = await redisAvailable();

for (const mode of ['in-process', 'bullmq'] as const) {
  describe.skipIf(mode === 'bullmq' && !redis)(`webhooks: delivery (${mode} queue)`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let ws: Workspace;

    beforeAll(async () => {
      receiver = await new Receiver().start();
      server = await startTestServer({
        env: { ...deliveryEnv, ...(mode === 'bullmq' ? { REDIS_URL: redisUrl, JOB_QUEUE_PREFIX: `cps-wh-${process.pid}-${Date.now()}` } : {}) },
      });
      ws = await workspaceWithProduct(server);
    });
    afterAll(async () => {
      await server?.close();
      await receiver?.close();
    });

    const hook = (body: Record<string, unknown>) => ok(server, 'POST', '/webhooks', ws.token, { name: '测试', kind: 'generic', ...body });
    const deliveries = async (hookId: number) => (await ok(server, 'GET', `/webhooks/${hookId}/deliveries?page_size=100`, ws.token)).items as any[];
    /** A task generated by the local provider, ready to pick, with its best text selected. */
    const readyTask = async () => {
      const created = await createTask(server, ws, { text_count: 1, image_count: 0 });
      const detail = await settledDetail(server, ws.token, created.id);
      expect(detail.status).toBe('pending_selection');
      await ok(server, 'POST', `/tasks/${detail.id}/text-candidates/select`, ws.token, { candidate_id: detail.text_candidates[0].candidate_id });
      return detail;
    };

    it('sends every event once per state change, signed, with the stable delivery id and a link to the console', async () => {
      const generic = await hook({ url: `${receiver.url}/generic`, events: ['task.pending_selection', 'task.failed', 'task.submitted', 'task.approved', 'task.rejected', 'package.ready', 'fission.completed'], secret: SECRET });
      const task = await readyTask();
      await ok(server, 'POST', `/tasks/${task.id}/submit-review`, ws.token);
      await ok(server, 'POST', `/review/${task.id}/reject`, ws.token, { reason: '标题不够吸引人' });
      await ok(server, 'POST', `/tasks/${task.id}/submit-review`, ws.token);
      await ok(server, 'POST', `/review/${task.id}/approve`, ws.token);
      const pkg = await ok(server, 'POST', `/tasks/${task.id}/package`, ws.token, {});
      expect((await settledPackage(server, ws.token, pkg.delivery_package_id)).status).toBe('ready');
      const fission = await ok(server, 'POST', '/fission', ws.token, { source_task_id: task.id, fanout_count: 1 });
      await waitUntil('the fission to complete', async () => (await ok(server, 'GET', `/fission/${fission.fission_id}`, ws.token)).status === 'completed');
      // A task that fails: this operator's only key points at a provider that is not there.
      const failer = await userWithRole(server, `failer-${mode}`, 'operator');
      await ok(server, 'POST', '/api-keys', failer.token, { provider: 'openai', api_key: 'sk-never-sent-anywhere-0001' });
      const failed = await ok(server, 'POST', '/tasks', failer.token, { product_id: ws.productId, theme: '会失败的任务', text_count: 1, image_count: 0, track: 'ai' });
      expect((await settledDetail(server, failer.token, failed.id)).status).toBe('failed');

      const expected = {
        'task.pending_selection': 1,
        'task.submitted': 2,
        'task.rejected': 1,
        'task.approved': 1,
        'package.ready': 1,
        'fission.completed': 1,
        'task.failed': 1,
      };
      const total = Object.values(expected).reduce((a, b) => a + b, 0);
      const rows = await waitUntil('every delivery to settle', async () => {
        const list = await deliveries(generic.id);
        return list.length === total && list.every((d) => d.status === 'delivered') && list;
      });
      expect(rows.every((d) => d.attempts === 1 && d.http_status === 200 && d.attempt_log.length === 1 && d.attempt_log[0].ok)).toBe(true);

      const got = receiver.on('/generic');
      expect(got).toHaveLength(total);
      const counts: Record<string, number> = {};
      for (const r of got) counts[r.body.event] = (counts[r.body.event] ?? 0) + 1;
      expect(counts).toEqual(expected);
      expect(new Set(got.map((r) => r.body.id)).size).toBe(total);
      expect(new Set(got.map((r) => r.body.id))).toEqual(new Set(rows.map((d) => d.id)));
      for (const r of got) {
        expect(Object.keys(r.body).sort()).toEqual(['data', 'event', 'id', 'occurred_at', 'workspace_id']);
        expect(r.body.workspace_id).toBe(ws.workspaceId);
        expect(r.headers['x-webhook-id']).toBe(r.body.id);
        expect(verifyGeneric(r, SECRET), r.body.event).toBe(true);
        expect(verifyGeneric(r, 'another-secret')).toBe(false);
        expect(r.raw).not.toContain(SECRET);
        expect(r.raw).not.toContain('local-test-key');
        expect(r.raw).not.toContain('sk-never-sent');
      }
      const byEvent = (event: string) => got.filter((r) => r.body.event === event).map((r) => r.body.data);
      expect(byEvent('task.rejected')[0]).toMatchObject({ task_id: task.id, reason: '标题不够吸引人', final: false, status: 'pending_selection', url: `${PUBLIC_URL}/tasks/${task.id}` });
      expect(byEvent('task.approved')[0]).toMatchObject({ task_id: task.id, status: 'approved', product: { id: ws.productId, name: '云朵保湿霜' }, theme: '秋冬换季护肤' });
      expect(byEvent('task.approved')[0].score).toBe(task.text_candidates[0].score.total);
      expect(byEvent('task.failed')[0]).toMatchObject({ task_id: failed.id, status: 'failed' });
      expect(byEvent('task.failed')[0].reason).toMatch(/\S/);
      // The key and params beside the English sentence, for a receiver to word it (the bots say it in Chinese).
      expect(byEvent('task.failed')[0]).toMatchObject({ reason_key: 'failure.nothing', reason_params: { error_kind: 'unavailable' } });
      expect(byEvent('package.ready')[0]).toMatchObject({ task_id: task.id, url: `${PUBLIC_URL}/tasks/${task.id}` });
      expect(byEvent('fission.completed')[0]).toMatchObject({ fission_id: fission.fission_id, source_task_id: task.id, url: `${PUBLIC_URL}/fission/${fission.fission_id}` });
    });

    it('notifies only active webhooks of the workspace where the change happened, and only of the events they chose', async () => {
      const listening = await hook({ url: `${receiver.url}/listening`, events: ['task.submitted'] });
      const paused = await hook({ url: `${receiver.url}/paused`, events: ['task.submitted'], is_active: false });
      const otherEvents = await hook({ url: `${receiver.url}/other-events`, events: ['task.approved'] });
      const other = await otherWorkspace(server);
      const foreign = await ok(server, 'POST', '/webhooks', other.token, { name: '别的空间', kind: 'generic', url: `${receiver.url}/foreign`, events: ['task.submitted'] });
      const task = await readyTask();
      await ok(server, 'POST', `/tasks/${task.id}/submit-review`, ws.token);
      await waitUntil('the listening webhook', async () => (await deliveries(listening.id))[0]?.status === 'delivered');
      expect(await deliveries(paused.id)).toEqual([]);
      expect(await deliveries(otherEvents.id)).toEqual([]);
      expect((await ok(server, 'GET', `/webhooks/${foreign.id}/deliveries`, other.token)).items).toEqual([]);
      expect(receiver.on('/paused').length + receiver.on('/other-events').length + receiver.on('/foreign').length).toBe(0);
      for (const h of [listening, paused, otherEvents]) await ok(server, 'DELETE', `/webhooks/${h.id}`, ws.token);
    });

    it('sends each bot its own documented shape and signing, in Chinese, with user text neutralised', async () => {
      const answers: Record<string, unknown> = { '/feishu': { code: 0, msg: 'success', data: {} }, '/wecom': { errcode: 0, errmsg: 'ok' }, '/dingtalk': { errcode: 0, errmsg: 'ok' } };
      receiver.answer = (r) => ({ status: 200, body: answers[r.path] ?? { ok: true } });
      const events = ['task.rejected'];
      await hook({ kind: 'feishu', url: `${receiver.url}/feishu`, events, secret: 'feishu-secret' });
      await hook({ kind: 'wecom', url: `${receiver.url}/wecom?key=wecom-robot-key`, events });
      await hook({ kind: 'dingtalk', url: `${receiver.url}/dingtalk?access_token=ding-token`, events, secret: 'SECding-secret' });
      const task = await readyTask();
      await ok(server, 'POST', `/tasks/${task.id}/submit-review`, ws.token);
      const reason = '卖点太散 [点我](http://evil.example) **别加粗**';
      await ok(server, 'POST', `/review/${task.id}/reject`, ws.token, { reason, final: true });
      await waitUntil('all three bots', () => ['/feishu', '/wecom', '/dingtalk'].every((p) => receiver.on(p).length === 1));

      // Feishu custom bot: interactive card; timestamp in seconds, sign = base64(HMAC-SHA256(key "<t>\n<secret>", "")).
      const feishu = receiver.on('/feishu')[0]!;
      expect(feishu.body.msg_type).toBe('interactive');
      expect(feishu.body.card.header.title).toEqual({ tag: 'plain_text', content: '任务被驳回（终止）' });
      const card = JSON.stringify(feishu.body.card);
      expect(card).toContain('云朵保湿霜');
      expect(card).toContain('秋冬换季护肤');
      expect(card).toContain('驳回原因');
      expect(card).toContain(`${PUBLIC_URL}/tasks/${task.id}`);
      expect(card).not.toContain('](http://evil');
      expect(card).not.toContain('**别加粗**');
      expect(feishu.body.timestamp).toMatch(/^\d{10}$/);
      expect(Math.abs(Number(feishu.body.timestamp) - Date.now() / 1000)).toBeLessThan(60);
      expect(feishu.body.sign).toBe(createHmac('sha256', `${feishu.body.timestamp}\nfeishu-secret`).update('').digest('base64'));

      // WeCom group robot: markdown, key in the URL, nothing signed.
      const wecom = receiver.on('/wecom')[0]!;
      expect(wecom.query.get('key')).toBe('wecom-robot-key');
      expect(Object.keys(wecom.body)).toEqual(['msgtype', 'markdown']);
      expect(wecom.body.msgtype).toBe('markdown');
      expect(wecom.body.markdown.content).toContain('任务被驳回（终止）');
      expect(wecom.body.markdown.content).toContain(`[查看任务](${PUBLIC_URL}/tasks/${task.id})`);
      expect(wecom.body.markdown.content).not.toContain('](http://evil');
      expect(Buffer.byteLength(wecom.body.markdown.content)).toBeLessThanOrEqual(4096);

      // DingTalk custom robot: markdown with title; timestamp (ms) and sign = base64(HMAC-SHA256(key secret, "<t>\n<secret>")) in the URL.
      const ding = receiver.on('/dingtalk')[0]!;
      expect(ding.query.get('access_token')).toBe('ding-token');
      const t = ding.query.get('timestamp')!;
      expect(t).toMatch(/^\d{13}$/);
      expect(ding.query.get('sign')).toBe(createHmac('sha256', 'SECding-secret').update(`${t}\nSECding-secret`).digest('base64'));
      expect(ding.body.msgtype).toBe('markdown');
      expect(ding.body.markdown.title).toBe('任务被驳回（终止）');
      expect(ding.body.markdown.text).toContain('云朵保湿霜');
      expect(ding.body.markdown.text).not.toContain('](http://evil');

      for (const r of [feishu, wecom, ding]) {
        expect(r.raw).not.toContain('feishu-secret');
        expect(r.raw).not.toContain('SECding-secret');
      }
      receiver.answer = () => ({ status: 200, body: { ok: true } });
    });

    it('retries a receiver that answers 500, then 200: one retry, one success, same delivery id and body', async () => {
      receiver.answer = (r, n) => (r.path === '/flaky' && n === 1 ? { status: 500, body: { error: 'temporarily down' } } : { status: 200, body: { ok: true } });
      const flaky = await hook({ url: `${receiver.url}/flaky`, events: ['task.approved'], secret: SECRET });
      const test = await ok(server, 'POST', `/webhooks/${flaky.id}/test`, ws.token);
      expect(test).toMatchObject({ event: 'webhook.test', status: 'pending', attempts: 0 });
      const [row] = await waitUntil('the retried delivery', async () => {
        const list = await deliveries(flaky.id);
        return list[0]?.status === 'delivered' && list;
      });
      expect(row).toMatchObject({ id: test.id, status: 'delivered', attempts: 2, http_status: 200, last_error: null });
      expect(row.attempt_log.map((a: any) => [a.attempt, a.ok, a.http_status, a.error_kind])).toEqual([
        [2, true, 200, null],
        [1, false, 500, 'http_status'],
      ]);
      expect(row.attempt_log[1].excerpt).toContain('temporarily down');
      const got = receiver.on('/flaky');
      expect(got).toHaveLength(2);
      expect(got.map((r) => r.body.id)).toEqual([test.id, test.id]);
      expect(got[0]!.raw).toBe(got[1]!.raw);
      expect(got.every((r) => verifyGeneric(r, SECRET))).toBe(true);
      const metrics = (await server.request('GET', '/metrics')).text;
      expect(metrics).toMatch(/^cps_webhook_attempts_total\{kind="generic",outcome="http_status"\} [1-9]/m);
      expect(metrics).toMatch(/^cps_webhook_attempts_total\{kind="generic",outcome="ok"\} [1-9]/m);
      receiver.answer = () => ({ status: 200, body: { ok: true } });
    });

    it('a bot that answers with its own error code is a failed attempt and is retried', async () => {
      receiver.answer = (r, n) =>
        r.path === '/ding-err' ? { status: 200, body: n === 1 ? { errcode: 310000, errmsg: 'sign not match' } : { errcode: 0, errmsg: 'ok' } } : { status: 200, body: {} };
      const ding = await hook({ kind: 'dingtalk', url: `${receiver.url}/ding-err?access_token=t`, events: ['task.approved'], secret: 'SECx' });
      await ok(server, 'POST', `/webhooks/${ding.id}/test`, ws.token);
      const [row] = await waitUntil('the bot delivery', async () => {
        const list = await deliveries(ding.id);
        return list[0]?.status === 'delivered' && list;
      });
      expect(row.attempt_log.map((a: any) => [a.ok, a.error_kind])).toEqual([
        [true, null],
        [false, 'app_error'],
      ]);
      expect(row.attempt_log[1].excerpt).toContain('sign not match');
      receiver.answer = () => ({ status: 200, body: { ok: true } });
    });

    it('a receiver that never answers delays neither the request nor the task; the attempt times out and is recorded', async () => {
      receiver.answer = (r) => (r.path === '/hang' ? 'hang' : { status: 200, body: {} });
      const hang = await hook({ url: `${receiver.url}/hang`, events: ['task.submitted', 'task.approved'] });
      const task = await readyTask();
      const started = Date.now();
      await ok(server, 'POST', `/tasks/${task.id}/submit-review`, ws.token);
      await ok(server, 'POST', `/review/${task.id}/approve`, ws.token);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect((await ok(server, 'GET', `/tasks/${task.id}`, ws.token)).status).toBe('approved');
      // Meanwhile generation runs as usual: its lane is not the notifications'.
      const another = await createTask(server, ws, { text_count: 1, image_count: 0 });
      expect((await settledDetail(server, ws.token, another.id)).status).toBe('pending_selection');

      const rows = await waitUntil('both attempts to time out', async () => {
        const list = await deliveries(hang.id);
        return list.length === 2 && list.every((d) => d.last_error === 'timeout' && d.attempt_log[0]?.error_kind === 'timeout') && list;
      });
      for (const d of rows) {
        expect(d.status).toBe('pending');
        expect(d.last_error).toBe('timeout');
        expect(d.attempt_log[0].latency_ms).toBeGreaterThanOrEqual(1_400);
        expect(d.attempt_log[0].latency_ms).toBeLessThan(5_000);
      }
      await ok(server, 'DELETE', `/webhooks/${hang.id}`, ws.token);
      receiver.answer = () => ({ status: 200, body: { ok: true } });
    });
  });
}

describe('webhooks: backoff and giving up', () => {
  let server: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    receiver.answer = () => ({ status: 503, body: { error: 'down for maintenance' } });
    server = await startTestServer({ env: { ...deliveryEnv, WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_WINDOW_MS: '1500' } });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('waits longer after each failure and marks the delivery failed once the retry window is over', async () => {
    const token = await server.adminToken();
    const hook = await ok(server, 'POST', '/webhooks', token, { name: '维护中', kind: 'generic', url: `${receiver.url}/down`, events: ['task.approved'] });
    const test = await ok(server, 'POST', `/webhooks/${hook.id}/test`, token);
    const [row] = await waitUntil('the delivery to give up', async () => {
      const items = (await ok(server, 'GET', `/webhooks/${hook.id}/deliveries`, token)).items;
      return items[0]?.status === 'failed' && items;
    });
    expect(row).toMatchObject({ id: test.id, status: 'failed', http_status: 503, last_error: 'http_status', next_attempt_at: null, delivered_at: null });
    const got = receiver.on('/down');
    expect(got.length).toBe(row.attempts);
    expect(got.length).toBeGreaterThanOrEqual(3);
    expect(new Set(got.map((r) => r.body.id))).toEqual(new Set([test.id]));
    // Each wait at least doubles (base 100 ms); the last one is cut short by the window.
    const gaps = got.slice(1).map((r, i) => r.at - got[i]!.at);
    gaps.slice(0, -1).forEach((gap, i) => expect(gap, `wait after attempt ${i + 1}`).toBeGreaterThanOrEqual(100 * 2 ** i - 30));
    expect(got.at(-1)!.at - Date.parse(row.created_at)).toBeGreaterThanOrEqual(1_500 - 50);
  });
});
