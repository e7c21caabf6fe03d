import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fissionRetryImagesJob, runFission } from '../../src/modules/fission/pipeline.js';
import { taskImagesJob } from '../../src/modules/tasks/images.js';
import { runTaskGeneration } from '../../src/modules/tasks/pipeline.js';
import { taskDetail } from '../generation/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTask, ok, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { imagesOfSet, notesOf, startFakeOpenAI, type FakeOpenAI } from './fixtures.js';

const SOURCE_KEY = 'sk-source-operator-3333';

/**
 * A task's queued images (retry, regenerate) and a fission note's (retry) are made by one path
 * (notes/service makeQueuedImages): each image paid through the ledger under its slot's key, so
 * a run again after a crash (the provider answered, the image was never recorded) pays nothing,
 * and the same rules settle what cannot be made. The worker is off: each test runs the jobs
 * itself, as a worker would after the HTTP call queued them.
 */
describe('queued images of tasks and fissions: one path', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  let ws: Workspace;
  let keyId: number;
  let taskId: number;
  let fissionId: number;

  const job = { attempt: 1, signal: new AbortController().signal };
  const imageCalls = () => fake.calls('image').length;
  const rowsOf = (ids: number[]) => server.ctx.db.selectFrom('image_candidates').selectAll().where('id', 'in', ids).orderBy('id').execute();
  const fissionImages = (seq: number) => imagesOfSet(server, fissionId, seq);

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    server = await startTestServer({ worker: false, env: { PROVIDER_OPENAI_BASE_URL: fake.baseUrl, PROVIDER_MAX_RETRIES: '0' } });
    ws = await workspaceWithProduct(server, { apiKey: false });
    keyId = (await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai', api_key: SOURCE_KEY })).id;
    // Two of the task's six images fail.
    let failures = 0;
    fake.behaviour = { failImage: () => (failures++ < 2 ? 400 : undefined) };
    taskId = (await createTask(server, ws, { text_count: 3, image_count: 2 })).id;
    await runTaskGeneration(server.ctx, taskId);
    // Every image of the fission's second set fails.
    fake.behaviour = { failImage: (prompt) => (prompt.includes('[s2-') ? 400 : undefined) };
    fissionId = (await ok(server, 'POST', '/fission', ws.token, { source_task_id: taskId, fanout_count: 2 })).fission_id;
    await runFission(server.ctx, fissionId);
    fake.behaviour = {};
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  it('a task retry makes the failed images once, each streamed; run again after a crash it pays nothing', async () => {
    const before = await taskDetail(server, ws.token, taskId);
    const failed = (before.image_candidates as any[]).filter((i) => i.status === 'failed');
    expect(failed).toHaveLength(2);
    const [first, second] = failed.map((i) => i.candidate_id as number);
    // One tile's retry retries that tile; naming an image that has not failed (now pending) is refused; then the rest.
    expect(await ok(server, 'POST', `/tasks/${taskId}/retry-images`, ws.token, { candidate_ids: [first] })).toMatchObject({ queued: true, count: 1, candidate_ids: [first] });
    const notFailed = await server.request('POST', `/api/v1/tasks/${taskId}/retry-images`, { token: ws.token, body: { candidate_ids: [first] } });
    expect([notFailed.status, notFailed.body.reason]).toEqual([409, 'image.not_failed']);
    expect(await ok(server, 'POST', `/tasks/${taskId}/retry-images`, ws.token)).toMatchObject({ queued: true, count: 1, candidate_ids: [second] });

    const from = imageCalls();
    await taskImagesJob.run(server.ctx, taskId, job);
    expect(imageCalls() - from).toBe(2);
    const ids = failed.map((i) => i.candidate_id);
    const made = await rowsOf(ids);
    expect(made.map((i) => i.status)).toEqual(['done', 'done']);
    // Nothing failed any more: nothing queued, no error (§8).
    expect(await ok(server, 'POST', `/tasks/${taskId}/retry-images`, ws.token)).toEqual({ queued: false, count: 0, candidate_ids: [], failed_roles: [] });
    const streamed = (await server.ctx.events.replay(taskId, 0)).filter((e) => e.name === 'image_candidate' && ids.includes((e.data as any).candidate_id));
    expect(streamed.map((e) => (e.data as any).status).filter((s) => s === 'done')).toHaveLength(2);

    // The worker died after the provider answered and before the images were recorded.
    await server.ctx.db.updateTable('image_candidates').set({ status: 'pending', file_key: null, raw_file_key: null }).where('id', 'in', ids).execute();
    await taskImagesJob.run(server.ctx, taskId, job);
    expect(imageCalls() - from).toBe(2);
    expect((await rowsOf(ids)).map((i) => [i.status, i.raw_file_key])).toEqual(made.map((i) => ['done', i.raw_file_key]));
  });

  it('a fission retry makes its set’s failed images once with the source key, settling set and fission; run again after a crash it pays nothing', async () => {
    expect((await notesOf(server, ws.token, fissionId)).notes.map((n: any) => n.status)).toEqual(['image_done', 'failed']);
    const retry = await ok(server, 'POST', `/fission/${fissionId}/notes/2/retry-images`, ws.token);
    expect(retry).toMatchObject({ queued: true, failed_roles: expect.any(Array) });

    const from = imageCalls();
    await fissionRetryImagesJob.run(server.ctx, retry.note_id, job);
    const calls = fake.calls('image').slice(from);
    expect(calls).toHaveLength(retry.failed_roles.length);
    expect(calls.every((r) => r.headers.authorization === `Bearer ${SOURCE_KEY}` && String(r.body.prompt).includes('[s2-'))).toBe(true);
    const notes = (await notesOf(server, ws.token, fissionId)).notes;
    expect(notes.map((n: any) => n.status)).toEqual(['image_done', 'image_done']);
    expect(notes[1].images.every((i: any) => i.url && !('error' in i) && !('retrying' in i))).toBe(true);
    expect(await ok(server, 'GET', `/fission/${fissionId}`, ws.token)).toMatchObject({ status: 'completed', progress: { done: 2, failed: 0, total: 2, running: 0 } });
    const made = await fissionImages(2);

    // The worker died after the provider answered and before the images were recorded: they are
    // still queued for the retry and their note still failed.
    await server.ctx.db.updateTable('image_candidates').set({ status: 'retrying', file_key: null, raw_file_key: null }).where('id', 'in', made.map((i) => i.id)).execute();
    await server.ctx.db.updateTable('text_candidates').set({ image_status: 'failed' }).where('id', '=', retry.note_id).execute();
    await fissionRetryImagesJob.run(server.ctx, retry.note_id, job);
    expect(imageCalls() - from).toBe(retry.failed_roles.length);
    expect((await fissionImages(2)).map((i) => [i.status, i.raw_file_key])).toEqual(made.map((i) => ['done', i.raw_file_key]));
    expect((await notesOf(server, ws.token, fissionId)).notes.map((n: any) => n.status)).toEqual(['image_done', 'image_done']);
  });

  it('without a connection that draws, a task’s and a fission’s queued images fail alike, ready to be retried', async () => {
    const detail = await taskDetail(server, ws.token, taskId);
    const target = (detail.image_candidates as any[]).find((i) => i.status === 'done');
    expect(await ok(server, 'POST', `/tasks/${taskId}/image-candidates/${target.candidate_id}/regenerate`, ws.token, {})).toEqual({ queued: true });
    const [cover] = await fissionImages(1);
    await server.ctx.db.updateTable('image_candidates').set({ status: 'failed' }).where('id', '=', cover!.id).execute();
    const retry = await ok(server, 'POST', `/fission/${fissionId}/notes/1/retry-images`, ws.token);
    expect(retry).toMatchObject({ queued: true });
    await ok(server, 'DELETE', `/api-keys/${keyId}`, ws.token);

    const from = imageCalls();
    await taskImagesJob.run(server.ctx, taskId, job);
    await fissionRetryImagesJob.run(server.ctx, retry.note_id, job);
    expect(imageCalls()).toBe(from);
    const regenerated = (await taskDetail(server, ws.token, taskId)).image_candidates.find((i: any) => i.is_regen);
    expect(regenerated).toMatchObject({ status: 'failed', error_key: 'failure.no_image_connection' });
    const element = (await notesOf(server, ws.token, fissionId)).notes[0].images.find((i: any) => i.seq === cover!.seq);
    expect(element).toMatchObject({ error_key: 'failure.no_image_connection' });
    expect(element).not.toHaveProperty('retrying');
    // Both can be retried once a connection draws again.
    expect((await taskDetail(server, ws.token, taskId)).allowed_actions).toContain('retry_images');
    expect((await server.request('POST', `/api/v1/fission/${fissionId}/notes/1/retry-images`, { token: ws.token })).body.data).toMatchObject({ queued: true });
  });
});
