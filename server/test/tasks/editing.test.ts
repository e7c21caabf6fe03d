import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COVER_TEMPLATES, taskCoverTemplate } from '../../src/content/cover.js';
import { overlayText } from '../../src/images/overlay.js';
import { letterImage } from '../../src/modules/generation/service.js';
import { taskImagesJob } from '../../src/modules/tasks/images.js';
import { runTaskGeneration } from '../../src/modules/tasks/pipeline.js';
import { defaultNote, startFakeOpenAI, type FakeOpenAI } from '../generation/fake-openai.js';
import { eventsOf, named, taskDetail } from '../generation/helpers.js';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { API, createTask, emptyBannedWords, ok, otherWorkspace, setStatus, signalsOf, workspaceWithProduct, type Workspace } from './fixtures.js';

/**
 * The operator's editing loop (contract-decisions §8) through the HTTP API, against an
 * OpenAI-compatible fake provider: one image regenerated with an instruction, replaced by an
 * upload, failed images retried, cover titles edited and lettered from the chosen text.
 * The worker is off: each test runs the jobs itself, so what ran is exactly what it says.
 */
describe('editing loop', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    server = await startTestServer({
      worker: false,
      env: { PROVIDER_OPENAI_BASE_URL: fake.url, PROVIDER_MAX_RETRIES: '0', PROVIDER_RETRY_BASE_MS: '10' },
    });
    ws = await workspaceWithProduct(server, { apiKey: false, product: { name: '晚安面膜', selling_points: ['玻尿酸深层补水', '质地清爽不黏腻'] } });
    // Its subject is the words it adds itself.
    await emptyBannedWords(server, ws.token);
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai', api_key: 'sk-test-not-real-1234' });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  /** A generated task in pending_selection: 3 texts (one per set), `images` images per set. */
  async function generatedTask(images = 2, note = defaultNote) {
    fake.options = { note: (i, o) => note(i, o) };
    const created = await createTask(server, ws, { text_count: 3, image_count: images });
    await runTaskGeneration(server.ctx, created.id);
    const detail = await taskDetail(server, ws.token, created.id);
    expect(detail.status).toBe('pending_selection');
    return detail;
  }

  const imageCalls = () => fake.calls.filter((c) => c.kind === 'image');
  const runTaskImages = (taskId: number) => taskImagesJob.run(server.ctx, taskId, { attempt: 1, signal: new AbortController().signal });
  const row = (id: number) => server.ctx.db.selectFrom('image_candidates').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('a failed image is stored as a failed slot, offered for retry, and retry-images makes only it again', async () => {
    fake.options = { failImage: (prompt) => (prompt.includes('macro close-up') ? 400 : undefined) };
    const created = await createTask(server, ws, { text_count: 3, image_count: 6 });
    await runTaskGeneration(server.ctx, created.id);
    const detail = await taskDetail(server, ws.token, created.id);
    const failed = (detail.image_candidates as any[]).filter((i) => i.status === 'failed');
    expect(failed).toHaveLength(3);
    for (const image of failed) expect(image).toMatchObject({ role: 'quality', url: null, error_kind: expect.any(String), source: 'ai' });
    expect(detail.allowed_actions).toContain('retry_images');

    fake.options = {};
    const before = imageCalls().length;
    const retry = await ok(server, 'POST', `/tasks/${created.id}/retry-images`, ws.token);
    expect(retry).toMatchObject({ queued: true, count: 3, failed_roles: ['quality'] });
    const queued = await taskDetail(server, ws.token, created.id);
    expect((queued.image_candidates as any[]).filter((i) => i.status === 'pending')).toHaveLength(3);
    expect(queued.allowed_actions).not.toContain('retry_images');
    await runTaskImages(created.id);
    expect(imageCalls().length - before).toBe(3);

    const after = await taskDetail(server, ws.token, created.id);
    expect(after.image_candidates).toHaveLength(18);
    expect((after.image_candidates as any[]).every((i) => i.status === 'done' && typeof i.url === 'string')).toBe(true);
    // The same slots, made again in place: each streamed as image_candidate.
    expect(new Set((after.image_candidates as any[]).map((i) => i.candidate_id))).toEqual(new Set((detail.image_candidates as any[]).map((i) => i.candidate_id)));
    const streamed = named(await eventsOf(server, created.id), 'image_candidate').filter((e) => e.role === 'quality' && e.status === 'done');
    expect(streamed).toHaveLength(3);

    // Nothing failed any more: retry-images has nothing to do, and says so (§8), not an error.
    expect(await ok(server, 'POST', `/tasks/${created.id}/retry-images`, ws.token)).toEqual({ queued: false, count: 0, candidate_ids: [], failed_roles: [] });
  });

  it('regenerates one image with an instruction: a new candidate of the same slot, the old one kept, paid once even after a crash', async () => {
    const detail = await generatedTask(2);
    const target = (detail.image_candidates as any[]).find((i) => i.strategy === 'B' && i.seq === 2);
    const before = imageCalls().length;
    const queued = await ok(server, 'POST', `/tasks/${detail.id}/image-candidates/${target.candidate_id}/regenerate`, ws.token, { instruction: '换成浅色木桌背景' });
    expect(queued).toEqual({ queued: true });
    await runTaskImages(detail.id);
    const calls = imageCalls().slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.prompt).toContain('换成浅色木桌背景');

    const after = await taskDetail(server, ws.token, detail.id);
    const slot = (after.image_candidates as any[]).filter((i) => i.strategy === 'B' && i.seq === 2);
    expect(slot).toHaveLength(2);
    const fresh = slot.find((i) => i.candidate_id !== target.candidate_id);
    expect(fresh).toMatchObject({ role: target.role, is_regen: true, status: 'done', source: 'ai', instruction: '换成浅色木桌背景' });
    expect(fresh.url).toEqual(expect.any(String));
    const signal = (await signalsOf(server, detail.id)).find((s) => s.signal_type === 'regenerate');
    expect(signal).toMatchObject({ weight: -1, candidate_id: target.candidate_id, candidate_kind: 'image', strategy: 'B' });

    // A crash after the provider answered and before the image was recorded: the re-run pays nothing.
    await server.ctx.db.updateTable('image_candidates').set({ status: 'pending', file_key: null }).where('id', '=', fresh.candidate_id).execute();
    await runTaskImages(detail.id);
    expect(imageCalls().length - before).toBe(1);
    expect((await row(fresh.candidate_id)).status).toBe('done');
  });

  it('refuses single-image work outside pending_selection, for another workspace, and over-long or blocked instructions', async () => {
    const detail = await generatedTask(1);
    const image = detail.image_candidates[0];
    const path = `${API}/tasks/${detail.id}/image-candidates/${image.candidate_id}/regenerate`;

    const long = await server.request('POST', path, { token: ws.token, body: { instruction: '长'.repeat(201) } });
    expect(long.status).toBe(400);

    await ok(server, 'POST', '/banned-words', ws.token, { word: '最便宜', level: 'hard_block' });
    const blocked = await server.request('POST', path, { token: ws.token, body: { instruction: '写上最便宜' } });
    expect(blocked.status).toBe(422);

    const other = await otherWorkspace(server);
    const foreign = await server.request('POST', path, { token: other.token, body: {} });
    expect(foreign.status).toBe(404);
    const foreignRetry = await server.request('POST', `${API}/tasks/${detail.id}/retry-images`, { token: other.token });
    expect(foreignRetry.status).toBe(404);

    const operator = await userWithRole(server, 'editing-operator', 'operator');
    const byOperator = await server.request('POST', path, { token: operator.token, body: {} });
    expect(byOperator.status).toBe(200);

    await setStatus(server, detail.id, 'pending_review');
    const late = await server.request('POST', path, { token: ws.token, body: {} });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe(40900);
    const reviewing = await taskDetail(server, ws.token, detail.id);
    expect(reviewing.allowed_actions).not.toContain('regenerate_image');
    expect(reviewing.allowed_actions).not.toContain('upload_image');
  });

  it('replaces an image with an upload: checked by its bytes, 3:4 without metadata, lettered when it is a cover', async () => {
    const detail = await generatedTask(2);
    const cover = (detail.image_candidates as any[]).find((i) => i.strategy === 'A' && i.seq === 1);
    expect(cover.role).toBe('hook');
    const photo = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#4080c0' } })
      .jpeg()
      .withMetadata({ exif: { IFD0: { Copyright: 'secret-camera-owner' } } })
      .toBuffer();
    const upload = (fields: Record<string, string>, file: Buffer | null) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      if (file) form.append('image', new Blob([file]), 'photo.jpg');
      return server.request('POST', `${API}/tasks/${detail.id}/image-candidates/upload`, { token: ws.token, raw: form });
    };

    const res = await upload({ strategy: 'A', seq: '1', role: 'hook' }, photo);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ strategy: 'A', seq: 1, role: 'hook', source: 'upload', status: 'done', is_regen: false });
    const stored = await row(res.body.data.candidate_id);
    const served = Buffer.from(await (await fetch(`${server.url}${res.body.data.url}`)).arrayBuffer());
    const meta = await sharp(served).metadata();
    expect([meta.width, meta.height]).toEqual([1080, 1440]);
    expect(meta.exif).toBeUndefined();
    // The cover carries its set's cover title, drawn on the kept original.
    const text = (detail.text_candidates as any[]).find((t) => t.strategy === 'A');
    expect(stored.lettered_title).toBe(text.cover_title);
    expect(stored.raw_file_key).toBeTruthy();
    expect(stored.raw_file_key).not.toBe(stored.file_key);

    const notImage = await upload({ strategy: 'A', seq: '1', role: 'hook' }, Buffer.from('GIF89a not really an image'));
    expect(notImage.status).toBe(415);
    const noSlot = await upload({ strategy: 'A', seq: '9', role: 'hook' }, photo);
    expect(noSlot.status).toBe(404);
    const wrongRole = await upload({ strategy: 'A', seq: '1', role: 'convert' }, photo);
    expect(wrongRole.status).toBe(400);
    const noFile = await upload({ strategy: 'A', seq: '1', role: 'hook' }, null);
    expect(noFile.status).toBe(400);
    expect((await taskDetail(server, ws.token, detail.id)).image_candidates.filter((i: any) => i.source === 'upload')).toHaveLength(1);
  });

  it('frames a landscape upload as asked (a 3:4 window at a focus, or padded whole) and puts it in the slot\'s place in the selection', async () => {
    const detail = await generatedTask(2);
    const second = (detail.image_candidates as any[]).find((i) => i.strategy === 'A' && i.seq === 2);
    // A red strip on the left, a blue one on the right, white between: only a window pushed to
    // the left (focus 0) starts in red, only one pushed right (focus 1) ends in blue; a centre
    // crop shows white at both edges.
    const band = (width: number, color: string) => sharp({ create: { width, height: 600, channels: 3, background: color } }).png().toBuffer();
    const photo = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#ffffff' } })
      .composite([{ input: await band(160, '#ff0000'), left: 0, top: 0 }, { input: await band(160, '#0000ff'), left: 640, top: 0 }])
      .jpeg()
      .toBuffer();
    const upload = (fields: Record<string, string>) => {
      const form = new FormData();
      for (const [k, v] of Object.entries({ strategy: 'A', seq: '2', role: second.role, ...fields })) form.append(k, v);
      form.append('image', new Blob([photo]), 'landscape.jpg');
      return server.request('POST', `${API}/tasks/${detail.id}/image-candidates/upload`, { token: ws.token, raw: form });
    };
    const pixel = async (candidate: any, x: number, y: number) => {
      const bytes = Buffer.from(await (await fetch(`${server.url}${candidate.url}`)).arrayBuffer());
      const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
      const at = (y * info.width + x) * info.channels;
      return [data[at]!, data[at + 1]!, data[at + 2]!];
    };
    const reddish = (p: number[]) => p[0]! > 200 && p[2]! < 60;
    const bluish = (p: number[]) => p[2]! > 200 && p[0]! < 60;

    const left = (await upload({ fit: 'crop', focus: '0' })).body.data;
    expect(reddish(await pixel(left, 10, 720))).toBe(true);
    expect(bluish(await pixel(left, 1070, 720))).toBe(false);
    const right = (await upload({ fit: 'crop', focus: '1' })).body.data;
    expect(bluish(await pixel(right, 1070, 720))).toBe(true);
    expect(reddish(await pixel(right, 10, 720))).toBe(false);
    const centred = (await upload({})).body.data;
    expect([reddish(await pixel(centred, 10, 720)), bluish(await pixel(centred, 1070, 720))]).toEqual([false, false]);
    const padded = (await upload({ fit: 'pad', background: '#00ff00' })).body.data;
    const top = await pixel(padded, 540, 10);
    expect(top[1]! > 200 && top[0]! < 60).toBe(true);
    expect(reddish(await pixel(padded, 100, 720))).toBe(true);
    expect(bluish(await pixel(padded, 1000, 720))).toBe(true);
    const refused = await upload({ fit: 'stretch' });
    expect([refused.status, refused.body.reason]).toEqual([400, 'validation.one_of']);
    expect((await upload({ fit: 'crop', focus: '1.5' })).status).toBe(400);

    // Without a selection nothing is selected (the newest version ships); with one, the upload takes its slot's place.
    expect(left.is_selected).toBe(false);
    await ok(server, 'POST', `/tasks/${detail.id}/image-candidates/select`, ws.token, { candidate_id: second.candidate_id });
    const replacing = (await upload({})).body.data;
    expect(replacing.is_selected).toBe(true);
    const slot = (await taskDetail(server, ws.token, detail.id)).image_candidates.filter((i: any) => i.strategy === 'A' && i.seq === 2);
    expect(slot.filter((i: any) => i.is_selected).map((i: any) => i.candidate_id)).toEqual([replacing.candidate_id]);
  });

  it('sends where the banned-word check found each word, per part of the note, for the client to mark', async () => {
    const detail = await generatedTask(0);
    const text = (detail.text_candidates as any[])[0];
    await ok(server, 'POST', '/banned-words', ws.token, { word: '懒人必备', level: 'soft_warn' });
    await ok(server, 'POST', '/banned-words', ws.token, { word: '根治', level: 'hard_block' });
    const edited = await ok(server, 'POST', `/tasks/${detail.id}/text-candidates/${text.candidate_id}/edit`, ws.token, {
      title: '懒人必备的面霜',
      content: '早晚各一次，不能根治但很舒服',
      tags: ['护肤', '懒人必备'],
      cover_title: '实测7天',
    });
    expect(edited.banned_word_status).toBe('hard_block');
    expect(edited.banned_hits).toEqual([
      { field: 'title', tag_index: null, start: 0, end: 4, word: '懒人必备', level: 'soft_warn' },
      { field: 'content', tag_index: null, start: 8, end: 10, word: '根治', level: 'hard_block' },
      { field: 'tags', tag_index: 1, start: 0, end: 4, word: '懒人必备', level: 'soft_warn' },
    ]);
    const again = (await taskDetail(server, ws.token, detail.id)).text_candidates.find((t: any) => t.candidate_id === text.candidate_id);
    expect(again.banned_hits).toEqual(edited.banned_hits);
  });

  it('edits the cover title; the set’s covers follow the chosen text, lettered again from the original, never drawn over', async () => {
    const detail = await generatedTask(2);
    const textA = (detail.text_candidates as any[]).find((t) => t.strategy === 'A');
    const coverA = (detail.image_candidates as any[]).find((i) => i.strategy === 'A' && i.role === 'hook');
    const coverB = (detail.image_candidates as any[]).find((i) => i.strategy === 'B' && i.role === 'hook');
    const first = await row(coverA.candidate_id);
    const firstB = await row(coverB.candidate_id);
    expect(first.lettered_title).toBe(textA.cover_title);

    const tooLong = await server.request('POST', `${API}/tasks/${detail.id}/text-candidates/${textA.candidate_id}/edit`, {
      token: ws.token,
      body: { content: textA.content, cover_title: '一二三四五六七八九十一二三' },
    });
    expect(tooLong.status).toBe(400);

    const edited = await ok(server, 'POST', `/tasks/${detail.id}/text-candidates/${textA.candidate_id}/edit`, ws.token, { content: textA.content, cover_title: '实测30天' });
    expect(edited.cover_title).toBe('实测30天');
    await ok(server, 'POST', `/tasks/${detail.id}/text-candidates/select`, ws.token, { candidate_id: textA.candidate_id });
    const after = await taskDetail(server, ws.token, detail.id);
    const relettered = await row(coverA.candidate_id);
    expect(relettered.lettered_title).toBe('实测30天');
    expect(relettered.raw_file_key).toBe(first.raw_file_key);
    expect(relettered.file_key).not.toBe(first.file_key);
    expect((after.image_candidates as any[]).find((i) => i.candidate_id === coverA.candidate_id).url).not.toBe(coverA.url);

    // Again: the image served is the original with only the newest title, byte for byte.
    await ok(server, 'POST', `/tasks/${detail.id}/text-candidates/${textA.candidate_id}/edit`, ws.token, { content: textA.content, cover_title: '实测7天' });
    const latest = await taskDetail(server, ws.token, detail.id);
    const url = (latest.image_candidates as any[]).find((i) => i.candidate_id === coverA.candidate_id).url;
    const served = Buffer.from(await (await fetch(`${server.url}${url}`)).arrayBuffer());
    const expected = await letterImage(server.ctx, { file_key: first.raw_file_key!, mime: first.raw_mime! }, { kind: 'cover', text: '实测7天' }, taskCoverTemplate(detail.id, 'A'));
    expect(served.equals(await server.ctx.storage.read(expected.file_key))).toBe(true);
    // In the set's template with the title's figure highlighted: not the plain design, nor the phrase left out.
    const rawBytes = await server.ctx.storage.read(first.raw_file_key!);
    const template = taskCoverTemplate(detail.id, 'A');
    const design = (text: Parameters<typeof overlayText>[1]) => overlayText(rawBytes, text, { width: 1080, height: 1440 }).then((d) => d.data);
    expect(served.equals(await design({ title: '实测7天', template, highlight: '7天' }))).toBe(true);
    expect(served.equals(await design({ title: '实测7天', template, highlight: null }))).toBe(false);
    expect(served.equals(await design({ title: '实测7天', template: COVER_TEMPLATES.find((t) => t !== template)!, highlight: '7天' }))).toBe(false);
    // Set B's cover was not touched.
    expect((await row(coverB.candidate_id)).file_key).toBe(firstB.file_key);
  });

  it('letters a cover stored before originals were kept from the original its ledger entry gave back, and leaves one without', async () => {
    const detail = await generatedTask(1);
    const cover = (strategy: string) => (detail.image_candidates as any[]).find((i) => i.strategy === strategy && (i.role === 'hook' || i.role === 'main'));
    const [a, b] = [await row(cover('A').candidate_id), await row(cover('B').candidate_id)];
    const textA = (detail.text_candidates as any[]).find((t) => t.strategy === 'A');
    // A: as migration 20261126_0200 leaves it, the original found and nothing known drawn. B: no original at all.
    await server.ctx.db.updateTable('image_candidates').set({ lettered_title: null }).where('id', '=', a.id).execute();
    await server.ctx.db.updateTable('image_candidates').set({ raw_file_key: null, raw_mime: null, lettered_title: null }).where('id', '=', b.id).execute();

    const after = await taskDetail(server, ws.token, detail.id);
    const relettered = await row(a.id);
    expect(relettered).toMatchObject({ raw_file_key: a.raw_file_key, lettered_title: textA.cover_title });
    const served = Buffer.from(await (await fetch(`${server.url}${(after.image_candidates as any[]).find((i) => i.candidate_id === a.id).url}`)).arrayBuffer());
    const expected = await letterImage(server.ctx, { file_key: a.raw_file_key!, mime: a.raw_mime! }, { kind: 'cover', text: textA.cover_title }, taskCoverTemplate(detail.id, 'A'));
    expect(served.equals(await server.ctx.storage.read(expected.file_key))).toBe(true);

    const textB = (detail.text_candidates as any[]).find((t) => t.strategy === 'B');
    await ok(server, 'POST', `/tasks/${detail.id}/text-candidates/${textB.candidate_id}/edit`, ws.token, { content: textB.content, cover_title: '实测7天' });
    await taskDetail(server, ws.token, detail.id);
    // Drawing on B's lettered file would put a second title over the first: it is left as it is.
    expect((await row(b.id)).file_key).toBe(b.file_key);
  });
});
