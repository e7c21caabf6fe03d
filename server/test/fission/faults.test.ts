import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settledDetail, waitFor } from '../generation/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTask, ok, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { keyOfUrl, notesOf, settledFission } from './fixtures.js';

/**
 * The `local` provider's fault switch over HTTP: with LOCAL_PROVIDER_IMAGE_FAILURES=fission:2 the
 * source task's images are all made, the first two fission images fail (the first set, whose two
 * images are drawn before the second set starts), and retry-images then makes them.
 */
describe('fission with LOCAL_PROVIDER_IMAGE_FAILURES=fission:2 (local provider)', () => {
  let server: TestServer;
  let ws: Workspace;
  let sourceId: number;

  beforeAll(async () => {
    server = await startTestServer({ env: { LOCAL_PROVIDER_IMAGE_FAILURES: 'fission:2' } });
    ws = await workspaceWithProduct(server);
    const task = await createTask(server, ws, { text_count: 3, image_count: 2 });
    const detail = await settledDetail(server, ws.token, task.id);
    expect(detail.status).toBe('pending_selection');
    sourceId = task.id;
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it('leaves task images alone: every image of the source task is made', async () => {
    const images = await server.ctx.db.selectFrom('image_candidates').select(['strategy', 'seq']).where('task_id', '=', sourceId).execute();
    expect(images).toHaveLength(6);
  });

  it('records the injected failures on the first set, then retry-images makes them', async () => {
    const created = await ok(server, 'POST', '/fission', ws.token, { source_task_id: sourceId, fanout_count: 2 });
    const id = created.fission_id;
    expect(await settledFission(server, ws.token, id)).toMatchObject({ status: 'completed', progress: { done: 1, failed: 1, total: 2 }, error: null });
    const before = (await notesOf(server, ws.token, id)).notes;
    expect(before.map((n: any) => n.status)).toEqual(['failed', 'image_done']);
    expect(before[0].images).toHaveLength(2);
    expect(before[0].images.map((i: any) => i.url)).toEqual([undefined, undefined]);
    // The two images are drawn in parallel: which one was failure 1 of 2 is not fixed.
    const errors: string[] = before[0].images.map((i: any) => i.error);
    expect(errors.map((e) => e.replace(/failure \d of/, 'failure n of'))).toEqual(
      before[0].images.map((i: any) => `${i.role} image failed: local provider: injected image failure n of 2 (LOCAL_PROVIDER_IMAGE_FAILURES)`),
    );
    expect(errors.map((e) => /failure (\d) of/.exec(e)![1]).sort()).toEqual(['1', '2']);
    expect(before[1].images.every((i: any) => i.url && !('error' in i))).toBe(true);

    const retry = await ok(server, 'POST', `/fission/${id}/notes/1/retry-images`, ws.token);
    expect(retry).toMatchObject({ fission_id: id, seq: 1, queued: true, failed_roles: before[0].images.map((i: any) => i.role) });
    const after = await waitFor(async () => {
      const notes = (await notesOf(server, ws.token, id)).notes;
      return notes.every((n: any) => n.status === 'image_done') ? notes : undefined;
    });
    expect(after[0].images.every((i: any) => i.url && !('error' in i) && !('retrying' in i))).toBe(true);
    const image = await fetch(`${server.url}${after[0].images[0].url}`);
    expect([image.status, image.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    // The second set was not touched by the retry.
    expect(after[1].images.map((i: any) => keyOfUrl(i.url))).toEqual(before[1].images.map((i: any) => keyOfUrl(i.url)));
    expect(await ok(server, 'GET', `/fission/${id}`, ws.token)).toMatchObject({ status: 'completed', progress: { done: 2, failed: 0, total: 2 }, error: null });
  }, 120_000);
});
