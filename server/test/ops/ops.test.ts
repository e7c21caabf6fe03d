import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BullJobBackend } from '../../src/jobs/bullmq.js';
import { startFakeOpenAI, type FakeOpenAI } from '../generation/fake-openai.js';
import { settledDetail, waitFor } from '../generation/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { redisAvailable, redisUrl } from '../tasks/processes.js';
import { createTask, ok, workspaceWithProduct } from '../tasks/fixtures.js';
import { openSse } from '../tasks/sse-client.js';

/** The value of one series in Prometheus text, 0 when absent. */
function sample(metrics: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const body = /\{([^}]*)\}/.exec(line)?.[1] ?? '';
    const has = Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`));
    if (has) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('operations endpoints', () => {
  let server: TestServer;
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    server = await startTestServer({
      env: { PROVIDER_OPENAI_BASE_URL: fake.url, PROVIDER_MAX_RETRIES: '1', PROVIDER_RETRY_BASE_MS: '5', METRICS_TOKEN: 'metrics-secret-0123' },
    });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  const scrape = async () => {
    const res = await server.request('GET', '/metrics', { headers: { authorization: 'Bearer metrics-secret-0123' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    return res.text;
  };

  it('healthz answers without credentials and echoes a well-formed request id', async () => {
    const res = await server.request('GET', '/healthz', { headers: { 'x-request-id': 'probe-42' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toBe('probe-42');
    const generated = await server.request('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('requests the HTTP parser refuses still get the envelope (found by the fuzzer)', async () => {
    const res = await server.request('GET', `/api/v1/products?q=${'x'.repeat(20_000)}`);
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ code: 40000, message: expect.stringContaining('too large'), reason: 'request.headers_too_large', params: {} });
    // With a body on the way too: the client still reads the answer instead of a reset.
    const upload = await fetch(`${server.url}/api/v1/products?q=${'x'.repeat(20_000)}`, { method: 'POST', body: 'y'.repeat(2 * 1024 * 1024), headers: { 'content-type': 'application/json' } });
    expect(upload.status).toBe(431);
  });

  it('readyz checks the database and the file store', async () => {
    const res = await server.request('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', storage: 'ok' } });
  });

  it('metrics need the metrics token when one is configured', async () => {
    expect((await server.request('GET', '/metrics')).body.code).toBe(40100);
    const wrong = await server.request('GET', '/metrics', { headers: { authorization: 'Bearer metrics-secret-0124' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe(40101);
  });

  it('counts requests per route template, not per URL', async () => {
    const token = await server.adminToken();
    const before = sample(await scrape(), 'cps_http_request_duration_seconds_count', { route: '/api/v1/products/:id', status_code: '404' });
    for (const id of [999_001, 999_002, 999_003]) expect((await server.request('GET', `/api/v1/products/${id}`, { token })).status).toBe(404);
    const metrics = await scrape();
    expect(sample(metrics, 'cps_http_request_duration_seconds_count', { route: '/api/v1/products/:id', status_code: '404' })).toBe(before + 3);
    // No label names the URL's id (a bare '999001' may turn up inside some float).
    expect(metrics).not.toMatch(/products\/999001/);
    expect(metrics).toContain('process_cpu_seconds_total');
  });

  it('measures provider calls (failed attempts by kind), job runs per kind and the queue', async () => {
    const ws = await workspaceWithProduct(server, { apiKey: false });
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai', api_key: 'sk-test-metrics-9876' });
    const before = await scrape();
    // Every image call fails once with 500, then succeeds on the retry.
    const seen = new Set<string>();
    fake.options = {
      failImage: (prompt) => {
        if (seen.has(prompt)) return undefined;
        seen.add(prompt);
        return 500;
      },
    };
    const task = await createTask(server, ws, { text_count: 1, image_count: 2 });
    const detail = await settledDetail(server, ws.token, task.id ?? task.task_id);
    expect(detail.status).toBe('pending_selection');
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    const images = fake.calls.filter((c) => c.kind === 'image');
    const failedImages = images.filter((c) => c.status === 500).length;
    expect(failedImages).toBeGreaterThan(0);
    expect(delta('cps_provider_errors_total', { provider: 'openai', kind: 'unavailable' })).toBe(failedImages);
    expect(delta('cps_provider_call_duration_seconds_count', { provider: 'openai', operation: 'image generation', outcome: 'ok' })).toBe(images.length - failedImages);
    expect(delta('cps_job_duration_seconds_count', { kind: 'task.generate', outcome: 'ok' })).toBe(1);
    // The in-process queue is empty again once the job finished.
    expect(after).toMatch(/cps_queue_jobs\{state="waiting"\} 0/);
  });

  it('names the job and its record in every log line written while it runs', async () => {
    const lines = server.logs.flatMap((chunk) => chunk.split('\n')).filter(Boolean).map((l) => JSON.parse(l));
    const jobLines = lines.filter((l) => l.job === 'task.generate');
    expect(jobLines.length).toBeGreaterThan(0);
    for (const l of jobLines) expect(typeof l.refId).toBe('number');
    const requestLines = lines.filter((l) => l.req?.url === '/healthz');
    expect(requestLines.some((l) => l.reqId === 'probe-42')).toBe(true);
  });
});

/** Queue depth while nothing runs the jobs: every created task waits in the queue. */
async function waitingAfterTwoTasks(server: TestServer): Promise<number> {
  const ws = await workspaceWithProduct(server);
  await createTask(server, ws);
  await createTask(server, ws);
  const res = await server.request('GET', '/metrics');
  return sample(res.text, 'cps_queue_jobs', { state: 'waiting' });
}

describe('queue depth and readiness per queue backend', () => {
  it('in-process queue: waiting jobs are counted; open event streams too', async () => {
    const server = await startTestServer({ worker: false });
    try {
      expect(await waitingAfterTwoTasks(server)).toBe(2);
      const ws = await workspaceWithProduct(server, { apiKey: false });
      const task = await createTask(server, ws);
      const gauge = async () => sample((await server.request('GET', '/metrics')).text, 'cps_sse_connections');
      const base = await gauge();
      const streams = [];
      for (let i = 0; i < 2; i++) {
        const { ticket } = await ok(server, 'POST', `/tasks/${task.id}/sse-ticket`, ws.token);
        streams.push(await openSse(`${server.url}/api/v1/tasks/${task.id}/stream?ticket=${ticket}`));
      }
      expect(await gauge()).toBe(base + 2);
      for (const s of streams) s.close();
      await waitFor(async () => ((await gauge()) === base ? true : undefined), 5_000);
    } finally {
      await server.close();
    }
  });

  it('BullMQ: readiness fails without Redis, passes with it, and waiting jobs are counted', async () => {
    const down = await startTestServer({ worker: false, env: { REDIS_URL: 'redis://127.0.0.1:1' } }).catch((err: unknown) => err);
    // The event bus needs Redis at start, so a dead Redis already stops the process from serving.
    expect(down).toBeInstanceOf(Error);
    if (!(await redisAvailable())) return;
    const prefix = `ops-${process.pid}-${Date.now()}`;
    const server = await startTestServer({ worker: false, env: { REDIS_URL: redisUrl, JOB_QUEUE_PREFIX: prefix } });
    try {
      const res = await server.request('GET', '/readyz');
      expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', storage: 'ok', redis: 'ok' } });
      expect(await waitingAfterTwoTasks(server)).toBe(2);
    } finally {
      await (server.ctx.queue as BullJobBackend).obliterate();
      await server.close();
    }
  });
});
