import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTaskGeneration } from '../../src/modules/tasks/pipeline.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTask, ok, workspaceWithProduct } from '../tasks/fixtures.js';
import { startFakeOpenAI, type CallLog, type FakeOpenAI } from './fake-openai.js';
import { settledDetail, taskDetail } from './helpers.js';

/** The most requests the fake was answering at the same time (an end and a start at the same ms do not overlap). */
function maxOverlap(calls: CallLog[]): number {
  const edges = calls.flatMap((c) => [
    { at: c.startedAt, step: 1 },
    { at: c.endedAt, step: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let max = 0;
  for (const edge of edges) {
    now += edge.step;
    max = Math.max(max, now);
  }
  return max;
}

describe("a task's image pool (GENERATION_IMAGE_CONCURRENCY)", () => {
  let fake: FakeOpenAI;
  let server: TestServer;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ imageLatencyMs: 150 });
    server = await startTestServer({
      worker: false,
      env: { PROVIDER_OPENAI_BASE_URL: fake.url, PROVIDER_CONCURRENCY: '8', GENERATION_IMAGE_CONCURRENCY: '2', PROVIDER_MAX_RETRIES: '0' },
    });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  it('bounds the image requests in flight, and is used to the full', async () => {
    const ws = await workspaceWithProduct(server, { apiKey: false, product: { name: '晚安面膜', selling_points: ['玻尿酸深层补水'] } });
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai', api_key: 'sk-test-pool-0000' });
    const created = await createTask(server, ws, { text_count: 1, image_count: 6 });
    const taskId = (created.id ?? created.task_id) as number;
    await runTaskGeneration(server.ctx, taskId);

    expect((await taskDetail(server, ws.token, taskId)).image_candidates).toHaveLength(6);
    const images = fake.calls.filter((c) => c.kind === 'image');
    expect(images).toHaveLength(6);
    // The provider would allow 8 at once: the task's pool of 2 is what holds them back.
    expect(maxOverlap(images)).toBe(2);
  });
});

describe('a task queued behind its image pool, run by the worker', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  beforeAll(async () => {
    fake = await startFakeOpenAI({ imageLatencyMs: 20 });
    server = await startTestServer({
      worker: true,
      env: { PROVIDER_OPENAI_BASE_URL: fake.url, GENERATION_IMAGE_CONCURRENCY: '1', PROVIDER_MAX_RETRIES: '0' },
    });
    process.on('warning', onWarning);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await server?.close();
    await fake?.close();
  });

  it('has every waiting call listen on the job signal without a listener-leak warning', async () => {
    const ws = await workspaceWithProduct(server, { apiKey: false, product: { name: '晚安面膜', selling_points: ['玻尿酸深层补水'] } });
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai', api_key: 'sk-test-pool-0001' });
    const created = await createTask(server, ws, { text_count: 3, image_count: 6 });
    const detail = await settledDetail(server, ws.token, (created.id ?? created.task_id) as number);

    // 18 images, one at a time: 17 calls at once wait on the job's abort signal.
    expect(detail.image_candidates).toHaveLength(18);
    expect(maxOverlap(fake.calls.filter((c) => c.kind === 'image'))).toBe(1);
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });
});
