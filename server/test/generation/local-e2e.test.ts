import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRATEGIES } from '../../src/content/schemas.js';
import { storyboardRoles } from '../../src/content/storyboard.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTask, ok, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { eventsOf, named, settledDetail } from './helpers.js';

/**
 * The whole pipeline with the offline `local` provider, driven the way users drive it: the task
 * is created over HTTP, the in-process worker runs the `task.generate` job, the result is read
 * over HTTP. Runs on SQLite, and on PostgreSQL with DATABASE_URL.
 */
describe('generation end to end (local provider, worker)', () => {
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    server = await startTestServer({ worker: true });
    ws = await workspaceWithProduct(server, { product: { selling_points: ['48小时保湿', '敏感肌可用'], text_angles: ['熬夜急救'] } });
    const image = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#88aacc' } }).jpeg().toBuffer();
    const form = new FormData();
    form.append('scene', '产品正面 白底');
    form.append('image', new Blob([image], { type: 'image/jpeg' }), 'p.jpg');
    const res = await fetch(`${server.url}/api/v1/products/${ws.productId}/images`, { method: 'POST', headers: { authorization: `Bearer ${ws.token}` }, body: form });
    expect(res.status).toBe(200);
  });
  afterAll(async () => server?.close());

  it('produces scored texts per strategy and storyboard images, then regenerates keeping the first run', async () => {
    const created = await createTask(server, ws, { text_count: 4, image_count: 2 });
    const taskId = created.id ?? created.task_id;
    const detail = await settledDetail(server, ws.token, taskId);
    expect(detail.status).toBe('pending_selection');
    expect(detail.need_product_image).toBe(true);

    // Texts: round-robin A, B, C, A; each scored within its maxima and banned-word checked.
    const texts = detail.text_candidates as any[];
    expect(texts.map((t) => t.strategy).sort()).toEqual(['A', 'A', 'B', 'C']);
    for (const t of texts) {
      expect(t.source).toBe('ai');
      expect(t.banned_word_status).toBe('pass');
      expect([...t.title].length).toBeLessThanOrEqual(20);
      expect(t.content).toMatch(/[\u4e00-\u9fff]/);
      expect(t.score.total).toBe(t.score.title + t.score.emotion + t.score.selling + t.score.keyword + t.score.compliance);
      expect(t.verdict).toBe(t.score.total >= 80 ? '通过' : t.score.total >= 60 ? '待优化' : '不推荐');
    }

    // Images: image_count per set, roles from the storyboard, first-run images are not regen.
    const images = detail.image_candidates as any[];
    expect(images).toHaveLength(6);
    for (const s of STRATEGIES) {
      const set = images.filter((i) => i.strategy === s).sort((a, b) => a.seq - b.seq);
      expect(set.map((i) => i.role)).toEqual(storyboardRoles(s, 2));
      expect(set.map((i) => i.seq)).toEqual([1, 2]);
    }
    expect(images.every((i) => i.is_regen === false)).toBe(true);
    const file = await fetch(`${server.url}${images[0].url}`);
    expect(file.status).toBe(200);
    const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([1080, 1440]);
    expect(meta.exif).toBeUndefined();

    // Events: generating first, done last, one event per candidate, progress reaching its total.
    const events = await eventsOf(server, taskId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(named(events, 'status')[0]).toEqual({ task_id: taskId, status: 'generating' });
    expect(events.at(-1)).toMatchObject({ name: 'done', data: { status: 'pending_selection' } });
    expect(named(events, 'text_candidate')).toHaveLength(4);
    expect(named(events, 'image_candidate')).toHaveLength(6);
    expect(named(events, 'text_candidate')[0]).toEqual(texts.find((t) => t.candidate_id === named(events, 'text_candidate')[0].candidate_id));
    const imageProgress = named(events, 'progress').filter((p) => p.stage === 'image');
    expect(imageProgress.at(-1)).toEqual({ stage: 'image', done: 6, failed: 0, total: 6 });
    expect(named(events, 'error')).toEqual([]);
    expect(detail.progress).toEqual({ stage: 'image', done: 6, failed: 0, total: 6 });

    // What was injected is snapshotted for the generation.
    const snapshot = await server.ctx.db.selectFrom('preference_snapshots').selectAll().where('task_id', '=', taskId).execute();
    expect(snapshot.map((s) => s.generation)).toEqual([1]);

    await ok(server, 'POST', `/tasks/${taskId}/regenerate`, ws.token);
    const again = await settledDetail(server, ws.token, taskId);
    expect(again.status).toBe('pending_selection');
    expect(again.text_candidates).toHaveLength(8);
    expect(again.image_candidates).toHaveLength(12);
    const ids = new Set((again.image_candidates as any[]).map((i) => i.candidate_id));
    for (const old of images) expect(ids.has(old.candidate_id)).toBe(true);
    expect((again.image_candidates as any[]).filter((i) => i.is_regen)).toHaveLength(6);
    const secondRun = (await eventsOf(server, taskId)).filter((e) => e.seq > events.length);
    expect(secondRun.at(-1)).toMatchObject({ name: 'done', data: { status: 'pending_selection' } });
    expect(named(secondRun, 'image_candidate').every((i) => i.is_regen)).toBe(true);
  }, 180_000);

  it('the import track skips text generation and illustrates min(3, text_count) sets', async () => {
    const created = await createTask(server, ws, { track: 'import', text_count: 2, image_count: 1 });
    const taskId = created.id ?? created.task_id;
    const detail = await settledDetail(server, ws.token, taskId);
    expect(detail.status).toBe('pending_selection');
    expect(detail.text_candidates).toEqual([]);
    expect((detail.image_candidates as any[]).map((i) => [i.strategy, i.role]).sort()).toEqual([['A', 'main'], ['B', 'main']]);
  }, 120_000);
});
