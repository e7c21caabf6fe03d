import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coverHighlight, coverTemplate } from '../../src/content/cover.js';
import { overlayText } from '../../src/images/overlay.js';
import { readZip } from '../delivery/zip.js';
import { noteText, PUBLISH_REMINDERS } from '../../src/content/note-text.js';
import { settledPackage } from '../delivery/fixtures.js';
import { settledDetail, taskDetail } from '../generation/helpers.js';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, otherWorkspace, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { download, imagesOfSet, keyOfUrl, notesOf, settledFission } from './fixtures.js';

/**
 * Fissions as a team works with them (contract-decisions §8, issue 15 item 3): listed per task for
 * every member of the workspace (not only in the browser that started them), their notes
 * editable, each set downloadable alone with its checklist in Chinese; downloads follow the
 * packages' gate (no hard-blocked note) and layout.
 */
describe('fission list, note edits and one-set downloads', () => {
  let server: TestServer;
  let ws: Workspace;
  let taskA: number;
  let taskB: number;
  let fissionA: number;
  let operator: { token: string; id: number };

  beforeAll(async () => {
    server = await startTestServer();
    ws = await workspaceWithProduct(server);
    operator = await userWithRole(server, 'fission-operator', 'operator');
    taskA = (await createTask(server, ws, { text_count: 3, image_count: 2 })).id;
    taskB = (await createTask(server, ws, { text_count: 3, image_count: 1 })).id;
    await settledDetail(server, ws.token, taskA);
    await settledDetail(server, ws.token, taskB);
    // The admin starts the fission; the operator (another member) must still see it.
    fissionA = (await ok(server, 'POST', '/fission', ws.token, { source_task_id: taskA, fanout_count: 2 })).fission_id;
    await ok(server, 'POST', '/fission', ws.token, { source_task_id: taskB, fanout_count: 1 });
    await settledFission(server, ws.token, fissionA);
  }, 120_000);
  afterAll(async () => server?.close());

  it('lists the workspace’s fissions for every member, per task, newest first, and never another workspace’s', async () => {
    const all = await ok(server, 'GET', '/fission?page=1&page_size=10', operator.token);
    expect(all.total).toBe(2);
    expect(all.items.map((f: any) => f.source_task_id)).toEqual([taskB, taskA]);
    const ofA = await ok(server, 'GET', `/fission?source_task_id=${taskA}`, operator.token);
    expect(ofA.items).toHaveLength(1);
    expect(ofA.items[0]).toMatchObject({
      fission_id: fissionA,
      source_task_id: taskA,
      reference_level: 'mid',
      fanout_count: 2,
      status: 'completed',
      progress: { total: 2 },
      created_by: { username: 'admin' },
    });
    const other = await otherWorkspace(server);
    expect((await ok(server, 'GET', '/fission', other.token)).total).toBe(0);
    expect((await ok(server, 'GET', `/fission?source_task_id=${taskA}`, other.token)).total).toBe(0);
    expect((await server.request('GET', `${API}/fission?source_task_id=0`, { token: operator.token })).status).toBe(400);
    expect((await server.request('GET', `${API}/fission`)).status).toBe(401);
  });

  it('edits a note as it would be published: limits refused with 400, banned words checked again, another workspace 404', async () => {
    const edit = (seq: number, body: unknown, token = operator.token) => server.request('POST', `${API}/fission/${fissionA}/notes/${seq}/edit`, { token, body });
    const res = await edit(1, { title: '实测30天的变化', content: '第一周就感觉到了。\n#换季护肤', tags: ['面霜', '补水', '保湿', '敏感肌', '秋冬'], cover_title: '实测30天' });
    expect(res.status).toBe(200);
    expect(res.body.data.note).toMatchObject({ title: '实测30天的变化', content: '第一周就感觉到了。', cover_title: '实测30天' });
    // The hashtag moved out of the body into the tags.
    expect(res.body.data.note.tags).toEqual(['面霜', '补水', '保湿', '敏感肌', '秋冬', '换季护肤']);
    const stored = (await notesOf(server, ws.token, fissionA)).notes.find((n: any) => n.seq === 1);
    expect(stored.note.title).toBe('实测30天的变化');

    expect((await edit(1, { title: '这'.repeat(21) })).status).toBe(400);
    expect((await edit(1, { cover_title: '一二三四五六七八九十一二三' })).status).toBe(400);
    expect((await edit(9, { title: '标题' })).status).toBe(404);
    const other = await otherWorkspace(server);
    expect((await edit(1, { title: '标题' }, other.token)).status).toBe(404);

    await ok(server, 'POST', '/banned-words', ws.token, { word: '神器', level: 'soft_warn' });
    const warned = await edit(2, { content: '这是一款补水神器，用了一周。' });
    expect(warned.status).toBe(200);
    expect(warned.body.data.banned_word_status).toBe('soft_warn');
  });

  it('letters a set’s cover again from its original when its cover title is edited, never over the old title, and packs it so', async () => {
    const images = (seq: number) => imagesOfSet(server, fissionA, seq);
    const setOf = async (seq: number) => (await notesOf(server, operator.token, fissionA)).notes.find((n: any) => n.seq === seq);
    const before = await images(2);
    const cover = before.find((i) => i.overlay?.kind === 'cover')!;
    expect(cover.lettered_title).toBe((await setOf(2)).note.cover_title);
    expect(cover.raw_file_key).not.toBeNull();
    const coverUrl = (set: any) => set.images.find((i: any) => i.seq === cover.seq).url as string;
    const urlBefore = coverUrl(await setOf(2));

    const edit = (cover_title: string) => ok(server, 'POST', `/fission/${fissionA}/notes/2/edit`, operator.token, { cover_title });
    await edit('一觉睡到天亮');
    const edited = await edit('实测7天');
    expect(coverUrl(edited)).not.toBe(urlBefore);
    expect(keyOfUrl(coverUrl(edited))).not.toBe(cover.file_key);
    const after = await images(2);
    const relettered = after.find((i) => i.id === cover.id)!;
    expect(relettered).toMatchObject({ raw_file_key: cover.raw_file_key, lettered_title: '实测7天' });
    // The images that carry no cover title are untouched.
    for (const image of after.filter((i) => i.id !== cover.id)) expect(image.file_key).toBe(before.find((b) => b.id === image.id)!.file_key);

    // What is served is the original with the newest title alone, in the set's template, its figure highlighted.
    const served = Buffer.from(await (await fetch(`${server.url}${coverUrl(edited)}`)).arrayBuffer());
    const expected = await overlayText(
      await server.ctx.storage.read(cover.raw_file_key!),
      { title: '实测7天', template: coverTemplate(fissionA, 2), highlight: coverHighlight('实测7天') },
      { width: 1080, height: 1440 },
    );
    expect(coverHighlight('实测7天')).toBe('7天');
    expect(served.equals(expected.data)).toBe(true);

    // The set's package and the whole fission's carry the same cover.
    const zipOf = async (path: string) => readZip(Buffer.from(await (await fetch(`${server.url}${API}${path}`, { headers: { authorization: `Bearer ${operator.token}` } })).arrayBuffer()));
    const name = (entries: Awaited<ReturnType<typeof readZip>>) => entries.find((e) => e.name.startsWith(`set_02/${String(cover.seq).padStart(2, '0')}_`))!;
    expect(name(await zipOf(`/fission/${fissionA}/notes/2/download`)).data.equals(served)).toBe(true);
    expect(name(await zipOf(`/fission/${fissionA}/download`)).data.equals(served)).toBe(true);
  });

  it('leaves a cover stored before originals were kept as it is: no title is drawn over another', async () => {
    const [cover] = await imagesOfSet(server, fissionA, 1);
    expect(cover!.overlay?.kind).toBe('cover');
    // As migration 20261126_0100 leaves an image lettered before it: no original, nothing known drawn.
    await server.ctx.db.updateTable('image_candidates').set({ raw_file_key: null, raw_mime: null, lettered_title: null }).where('id', '=', cover!.id).execute();
    await ok(server, 'POST', `/fission/${fissionA}/notes/1/edit`, operator.token, { cover_title: '早八人的5分钟妆容' });
    const after = await server.ctx.db.selectFrom('image_candidates').selectAll().where('id', '=', cover!.id).executeTakeFirstOrThrow();
    expect(after.file_key).toBe(cover!.file_key);
  });

  it('downloads one set alone, with its own checklist in Chinese', async () => {
    const res = await server.request('GET', `${API}/fission/${fissionA}/notes/2/download`, { token: operator.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain(`fission_${fissionA}_set_02.zip`);
    const zip = await fetch(`${server.url}${API}/fission/${fissionA}/notes/2/download`, { headers: { authorization: `Bearer ${operator.token}` } });
    const entries = await readZip(Buffer.from(await zip.arrayBuffer()));
    const names = entries.map((e) => e.name);
    expect(names).toContain('checklist.md');
    expect(names.filter((n) => n.startsWith('set_02/'))).toContain('set_02/note.txt');
    expect(names.some((n) => n.startsWith('set_01/'))).toBe(false);
    const checklist = entries.find((e) => e.name === 'checklist.md')!.data.toString('utf8');
    expect(checklist).toContain(`# 发布检查清单：裂变 ${fissionA}`);
    expect(checklist).toContain('共 1 套');
    expect(checklist).toContain('违禁词：有提醒（神器）');
    expect(checklist).toContain('优化建议：');
    // No English sentence is left in the deliverable.
    expect(checklist).not.toMatch(/\b(Title|Tags|Images|Score|Optimise|Banned|pass line|ready to publish)\b/);
    expect((await server.request('GET', `${API}/fission/${fissionA}/notes/7/download`, { token: operator.token })).status).toBe(404);
  });

  it('scores an edited note again, as a task’s edited text is: a one-word note falls below the pass line of 80', async () => {
    const before = (await notesOf(server, operator.token, fissionA)).notes.find((n: any) => n.seq === 1);
    const edited = await ok(server, 'POST', `/fission/${fissionA}/notes/1/edit`, operator.token, { title: '好', content: '好。' });
    expect(edited.note).toMatchObject({ title: '好', content: '好。' });
    expect(edited.score).not.toBe(before.score);
    expect(edited.score).toBeLessThan(80);
    expect(edited).toMatchObject({ passed: false, needs_optimization: true });
    // What the list shows is what was stored.
    const listed = (await notesOf(server, operator.token, fissionA)).notes.find((n: any) => n.seq === 1);
    expect(listed).toMatchObject({ score: edited.score, passed: false, needs_optimization: true });
  });

  it('refuses to download a hard-blocked note, whole or as its set, as packages refuse one, and ships it once it is fixed (contract-decisions §9)', async () => {
    await ok(server, 'POST', '/banned-words', ws.token, { word: '云朵魔法', level: 'hard_block' });
    const edit = (content: string) => ok(server, 'POST', `/fission/${fissionA}/notes/1/edit`, operator.token, { content });
    expect((await edit('用了一个月，这就是云朵魔法。')).banned_word_status).toBe('hard_block');
    const get = (path: string) => server.request('GET', `${API}/fission/${fissionA}${path}`, { token: operator.token });
    for (const path of ['/download', '/notes/1/download']) {
      const res = await get(path);
      expect(res.status, path).toBe(409);
      expect(res.body, path).toEqual({
        code: 40905,
        message: 'export refused: set 1 has hard-blocked words (云朵魔法); edit the note, then download again',
        reason: 'fission.export_hard_blocked',
        params: { sets: ['1'], words: ['云朵魔法'] },
      });
    }
    // The other set ships on its own meanwhile.
    expect((await get('/notes/2/download')).status).toBe(200);

    expect((await edit('用了一个月，皮肤喝饱了水。')).banned_word_status).not.toBe('hard_block');
    const res = await download(server, operator.token, fissionA);
    expect(res.status).toBe(200);
    const note = (await readZip(res.body)).find((e) => e.name === 'set_01/note.txt')!.data.toString('utf8');
    expect(note).toContain('用了一个月，皮肤喝饱了水。');
  });

  it('lays out a task’s package and a fission’s download alike: images as <seq>_<role>.<ext>, note.txt the note as published with the same reminders', async () => {
    const created = await ok(server, 'POST', `/tasks/${taskA}/package`, operator.token, {});
    const pkg = await settledPackage(server, operator.token, created.delivery_package_id);
    expect(pkg.status).toBe('ready');
    const zipAt = async (path: string) => readZip(Buffer.from(await (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${operator.token}` } })).arrayBuffer()));
    const packaged = await zipAt(pkg.download_url);
    const fissioned = await zipAt(`${API}/fission/${fissionA}/download`);
    const layout = /^(note_\d{2}_[ABC]|set_\d{2})\/(\d{2}_[a-z]+\.(jpg|png|webp)|note\.txt)$/;
    for (const entries of [packaged, fissioned]) {
      const names = entries.map((e) => e.name).filter((name) => name !== 'checklist.md');
      expect(names.filter((name) => !layout.test(name))).toEqual([]);
      expect(names.some((name) => name.endsWith('.jpg'))).toBe(true);
    }
    const noteTexts = (entries: Awaited<ReturnType<typeof readZip>>) => entries.filter((e) => e.name.endsWith('/note.txt')).map((e) => e.data.toString('utf8'));
    const texts = (await taskDetail(server, operator.token, taskA)).text_candidates as Array<{ title: string; content: string; tags: string[] }>;
    const notes = (await notesOf(server, operator.token, fissionA)).notes.map((n: any) => n.note);
    expect(noteTexts(packaged).filter((text) => !texts.some((t) => noteText(t) === text))).toEqual([]);
    expect(noteTexts(fissioned).filter((text) => !notes.some((n: any) => noteText(n) === text))).toEqual([]);
    // The reminders head every note.txt alike, above the line where the post starts.
    const heads = new Set([...noteTexts(packaged), ...noteTexts(fissioned)].map((text) => text.slice(0, text.indexOf('—— 以下是笔记内容'))));
    expect([...heads]).toEqual([`【发布提醒：不要复制到笔记里】\n${PUBLISH_REMINDERS.map((r) => `· ${r}`).join('\n')}\n\n`]);
  });
});
