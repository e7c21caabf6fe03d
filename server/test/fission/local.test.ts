import { noteText } from '../../src/content/note-text.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settledDetail } from '../generation/helpers.js';
import { readZip } from '../delivery/zip.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, otherWorkspace, seedCandidates, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { download, HELPER_KEYS, keyOfUrl, keysDeep, notesOf, settledFission } from './fixtures.js';

/**
 * Fission over HTTP with the offline `local` provider and the embedded worker: validation,
 * N = 1 and N = 5, the notes and progress shapes, the download and its checklist, the 409s,
 * and workspace isolation.
 */
const ROLE_ZH: Record<string, string> = { hook: '封面', main: '主图', pain: '痛点', proof: '证明', quality: '质感', credit: '背书', convert: '转化' };

describe('fission (local provider, worker)', () => {
  let server: TestServer;
  let ws: Workspace;
  let sourceId: number;
  let other: Workspace;

  beforeAll(async () => {
    server = await startTestServer();
    ws = await workspaceWithProduct(server, { product: { text_angles: ['熬夜党救星', '通勤补水'] } });
    const task = await createTask(server, ws, { text_count: 3, image_count: 2 });
    const detail = await settledDetail(server, ws.token, task.id);
    expect(detail.status).toBe('pending_selection');
    sourceId = task.id;
    // otherWorkspace switches the admin: ws.token stays valid for the first workspace.
    other = await otherWorkspace(server);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  const post = (body: unknown, token = ws.token) => server.request('POST', `${API}/fission`, { token, body });

  it('validates the request (400), finds the source in the workspace only (404) and needs a text (409)', async () => {
    const bad: Array<[string, unknown]> = [
      ['missing source_task_id', {}],
      ['source_task_id a string', { source_task_id: String(sourceId) }],
      ['source_task_id fractional', { source_task_id: 1.5 }],
      ['source_task_id zero', { source_task_id: 0 }],
      ['fanout_count 0', { source_task_id: sourceId, fanout_count: 0 }],
      ['fanout_count 6', { source_task_id: sourceId, fanout_count: 6 }],
      ['fanout_count fractional', { source_task_id: sourceId, fanout_count: 2.5 }],
      ['fanout_count a string', { source_task_id: sourceId, fanout_count: '3' }],
      ['reference_level unknown', { source_task_id: sourceId, reference_level: 'extreme' }],
      ['reference_level a number', { source_task_id: sourceId, reference_level: 2 }],
      ['body an array', [sourceId]],
    ];
    for (const [why, body] of bad) {
      const res = await post(body);
      expect({ why, status: res.status, code: res.body.code }).toEqual({ why, status: 400, code: 40000 });
      expect(typeof res.body.message).toBe('string');
    }
    expect((await server.request('POST', `${API}/fission`, { body: { source_task_id: sourceId } })).status).toBe(401);

    const unknown = await post({ source_task_id: 999_999 });
    expect([unknown.status, unknown.body.code]).toEqual([404, 40400]);
    const foreignTask = await createTask(server, other, { track: 'import', text_count: 1, image_count: 0 });
    const foreign = await post({ source_task_id: foreignTask.id });
    expect([foreign.status, foreign.body.code]).toEqual([404, 40400]);
    // An import task before any text is imported has nothing to fission from.
    const empty = await post({ source_task_id: foreignTask.id }, other.token);
    expect([empty.status, empty.body.code]).toEqual([409, 40900]);
    expect(empty.body.message).toMatch(/no text/);

    const count = await server.ctx.db.selectFrom('fission_tasks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('N = 1 with the defaults for reference level; one complete package', async () => {
    const created = await ok(server, 'POST', '/fission', ws.token, { source_task_id: sourceId, fanout_count: 1 });
    expect(created).toMatchObject({ source_task_id: sourceId, reference_level: 'mid', fanout_count: 1, status: 'generating' });
    const fission = await settledFission(server, ws.token, created.fission_id);
    expect(fission).toMatchObject({ status: 'completed', progress: { done: 1, failed: 0, total: 1 }, error: null });
    const notes = await notesOf(server, ws.token, created.fission_id);
    expect(notes.notes.map((n: any) => n.seq)).toEqual([1]);
    const [note] = notes.notes;
    expect(note.status).toBe('image_done');
    expect(note.note.title.length).toBeGreaterThan(0);
    expect(note.note.content).toContain('云朵保湿霜');
    expect(note.note.tags.length).toBeGreaterThanOrEqual(3);
    // The source asked for 2 images per set: the plan and the images follow its storyboard.
    expect(note.images.map((i: any) => i.role)).toEqual(note.note.image_plan.map((p: any) => p.role));
    expect(note.images).toHaveLength(2);
    const image = await fetch(`${server.url}${note.images[0].url}`);
    expect(image.status).toBe(200);
    expect([...Buffer.from(await image.arrayBuffer()).subarray(0, 2)]).toEqual([0xff, 0xd8]);
  }, 120_000);

  let five: number;
  it('N = 5: five packages by seq, scored and flagged, helper keys never in the response', async () => {
    const created = await ok(server, 'POST', '/fission', ws.token, { source_task_id: sourceId, fanout_count: 5, reference_level: 'low' });
    five = created.fission_id;
    expect(created).toMatchObject({ reference_level: 'low', fanout_count: 5 });
    const fission = await settledFission(server, ws.token, five);
    expect(fission).toMatchObject({ fission_id: five, status: 'completed', progress: { done: 5, failed: 0, total: 5 } });

    const res = await server.request('GET', `${API}/fission/${five}/notes`, { token: ws.token });
    expect(res.status).toBe(200);
    for (const key of HELPER_KEYS) expect(res.text).not.toContain(`"${key}"`);
    for (const key of HELPER_KEYS) expect(keysDeep(res.body).has(key)).toBe(false);
    const { data } = res.body;
    expect(data).toMatchObject({ fission_id: five, status: 'completed', fanout_count: 5 });
    expect(data.notes.map((n: any) => n.seq)).toEqual([1, 2, 3, 4, 5]);
    for (const n of data.notes) {
      expect(typeof n.score).toBe('number');
      expect(n.passed).toBe(n.score >= 80);
      expect(n.needs_optimization).toBe(n.score < 80);
      expect(n.dimension.length).toBeGreaterThan(0);
      expect(n.images.every((i: any) => typeof i.role === 'string' && i.url && !('error' in i))).toBe(true);
    }
    // Every set says what distinguishes it.
    expect(new Set(data.notes.map((n: any) => n.dimension)).size).toBe(5);
    // The notes are stored in the one note model, their score and banned-word result in columns.
    const stored = await server.ctx.db.selectFrom('text_candidates').select(['slot', 'score_total', 'task_id']).where('fission_id', '=', five).orderBy('slot').execute();
    expect(stored.map((row) => [row.slot + 1, row.score_total, row.task_id])).toEqual(data.notes.map((n: any) => [n.seq, n.score, null]));
    // Reading twice changes nothing.
    expect((await ok(server, 'GET', `/fission/${five}`, ws.token)).updated_at).toBe(fission.updated_at);
  }, 180_000);

  it('downloads fission_<id>.zip: checklist.md at the root, set folders with note.txt and images', async () => {
    const notes = (await notesOf(server, ws.token, five)).notes;
    const res = await download(server, ws.token, five);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toContain(`filename="fission_${five}.zip"`);
    const entries = await readZip(res.body);
    const expected = ['checklist.md'];
    for (const n of notes) {
      const folder = `set_0${n.seq}`;
      expected.push(`${folder}/note.txt`, ...n.images.map((i: any) => `${folder}/0${i.seq}_${i.role}.jpg`));
    }
    expect(entries.map((e) => e.name).sort()).toEqual(expected.sort());
    const byName = new Map(entries.map((e) => [e.name, e.data]));
    for (const n of notes) {
      const text = byName.get(`set_0${n.seq}/note.txt`)!.toString('utf8');
      expect(text).toBe(noteText(n.note));
      expect(text.startsWith('【发布提醒')).toBe(true);
      expect(text.endsWith(`${n.note.title}\n\n${n.note.content}\n\n${n.note.tags.map((t: string) => `#${t}`).join(' ')}\n`)).toBe(true);
      for (const image of n.images) {
        const bytes = byName.get(`set_0${n.seq}/0${image.seq}_${image.role}.jpg`)!;
        const original = Buffer.from(await (await fetch(`${server.url}${image.url}`)).arrayBuffer());
        expect(bytes.equals(original)).toBe(true);
      }
    }

    const checklist = byName.get('checklist.md')!.toString('utf8');
    expect(checklist).toContain(`# 发布检查清单：裂变 ${five}`);
    // The publisher is reminded to declare AI-generated content and paid partnership.
    expect(checklist).toContain('- [ ] 本笔记由 AI 辅助生成：发布时请在小红书勾选"内容含 AI 生成"的声明');
    expect(checklist).toContain('标明"广告"（《互联网广告管理办法》第九条）');
    expect(checklist).toContain(`来源任务 ${sourceId} · 参考程度 低（换角度换结构） · 共 5 套 · 状态 已完成`);
    for (const n of notes) {
      const section = checklist.split(/^## /m).find((s) => s.startsWith(`set_0${n.seq} · `))!;
      expect(section).toContain(`set_0${n.seq} · ${n.dimension}`);
      const titleLength = [...n.note.title].length;
      expect(section).toContain(`标题长度：${titleLength} 字（不超过 20）`);
      expect(section).toContain(`话题标签：${n.note.tags.length} 个（5-10）`);
      expect(section).toContain(`图片：${n.images.length} / ${n.images.length}：${n.images.map((i: any) => ROLE_ZH[i.role]).join('、')}`);
      expect(section).toContain(`[x] 违禁词：${n.banned_word_status === 'pass' ? '通过' : '已自动替换'}`);
      expect(section).toContain(`评分：${n.score} / 100（达标线 80）`);
      if (n.needs_optimization) {
        expect(section).toContain('[ ] 评分');
        expect(section).toMatch(/优化建议：.*\d+\/\d+：/);
      } else {
        expect(section).toContain('[x] 评分');
      }
    }
  });

  it('answers 409/40905 with the exporter\'s message when an image file is gone', async () => {
    const created = await ok(server, 'POST', '/fission', ws.token, { source_task_id: sourceId, fanout_count: 1, reference_level: 'high' });
    await settledFission(server, ws.token, created.fission_id);
    const [note] = (await notesOf(server, ws.token, created.fission_id)).notes;
    const lost = note.images[0];
    await server.ctx.storage.delete(keyOfUrl(lost.url));
    const res = await download(server, ws.token, created.fission_id);
    expect(res.status).toBe(409);
    const body = JSON.parse(res.body.toString('utf8'));
    expect(body.code).toBe(40905);
    expect(body.message).toBe(`export rejected: set_01/0${lost.seq}_${lost.role}.jpg: the stored image file is missing`);
  }, 120_000);

  it('answers 409/40904 while a fission has no notes, and retry-images for a set without failures queues nothing', async () => {
    const idle = await startTestServer({ worker: false });
    try {
      const w = await workspaceWithProduct(idle);
      const task = await createTask(idle, w, { text_count: 1, image_count: 0 });
      // Without a worker nothing generates: the source gets its candidates directly.
      await seedCandidates(idle, w, task.id);
      const created = await ok(idle, 'POST', '/fission', w.token, { source_task_id: task.id });
      expect(await ok(idle, 'GET', `/fission/${created.fission_id}`, w.token)).toMatchObject({ status: 'generating', progress: { done: 0, failed: 0, total: 0 } });
      const res = await download(idle, w.token, created.fission_id);
      expect(res.status).toBe(409);
      expect(JSON.parse(res.body.toString('utf8'))).toEqual({ code: 40904, message: 'the fission has no notes yet: it is still generating', reason: 'fission.empty_generating', params: {} });
    } finally {
      await idle.close();
    }

    const retry = await ok(server, 'POST', `/fission/${five}/notes/2/retry-images`, ws.token);
    expect(retry).toEqual({ fission_id: five, seq: 2, queued: false, message: 'no image of this set failed: nothing to retry' });
  }, 120_000);

  it('reports another workspace\'s fission and its notes by seq as not found', async () => {
    for (const [method, path] of [
      ['GET', `/fission/${five}`],
      ['GET', `/fission/${five}/notes`],
      ['GET', `/fission/${five}/download`],
      ['POST', `/fission/${five}/notes/1/retry-images`],
    ] as const) {
      const res = await server.request(method, `${API}${path}`, { token: other.token });
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 404, code: 40400 });
    }
    const unknownSeq = await server.request('POST', `${API}/fission/${five}/notes/6/retry-images`, { token: ws.token });
    expect([unknownSeq.status, unknownSeq.body.code, unknownSeq.body.message]).toEqual([404, 40400, 'fission note not found']);
    const unknownFission = await server.request('GET', `${API}/fission/999999`, { token: ws.token });
    expect(unknownFission.status).toBe(404);
  });
});
