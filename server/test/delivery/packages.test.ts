import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { POST_STARTS, PUBLISH_REMINDERS } from '../../src/content/note-text.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/db/codec.js';
import type { TaskStatus } from '../../src/db/schema.js';
import { ADMIN_NEW_PASSWORD, startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { imageBytes, seedImage, seedProduct, seedTask, seedText, settledPackage, workspaceOf } from './fixtures.js';
import { readZip } from './zip.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function download(server: TestServer, path: string, opts: { token?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(`${server.url}${path}`, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  const isJson = (res.headers.get('content-type') ?? '').includes('application/json');
  return { status: res.status, headers: res.headers, body, json: isJson ? JSON.parse(body.toString('utf8')) : undefined };
}

/** A fresh token: tests that move the clock past the 12-hour JWT lifetime need new ones. */
async function login(server: TestServer, username: string, password = 'second-password-2'): Promise<string> {
  const res = await server.request('POST', '/api/v1/auth/login', { body: { username, password } });
  if (res.status !== 200) throw new Error(`login ${username}: ${res.text}`);
  return res.body.data.token;
}

describe('delivery packages', () => {
  let server: TestServer;
  let admin: string;
  let operator: { token: string; id: number };
  let ws: number;
  let productId: number;

  const newTask = async (status: TaskStatus) => {
    const id = await seedTask(server, { workspaceId: ws, productId, operatorId: operator.id, status });
    return { id, workspaceId: ws };
  };
  const requestPackage = (taskId: number, body?: unknown, token = operator.token) =>
    server.request('POST', `/api/v1/tasks/${taskId}/package`, { token, ...(body === undefined ? {} : { body }) });
  const readyPackage = async (taskId: number, body?: unknown) => {
    const created = await requestPackage(taskId, body);
    expect(created.status, created.text).toBe(200);
    const pkg = await settledPackage(server, operator.token, created.body.data.delivery_package_id);
    expect(pkg.status, pkg.error ?? '').toBe('ready');
    return pkg;
  };
  const tokenFor = async (id: number) => {
    const res = await server.request('POST', `/api/v1/delivery-packages/${id}/download-token`, { token: operator.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.expires_in).toBe(60);
    return res.body.data.token as string;
  };

  /** A task with one text of set A and one image: the smallest package there is. */
  const simpleReadyPackage = async () => {
    const task = await newTask('approved');
    await seedText(server, task, { strategy: 'A', selected: true });
    await seedImage(server, task, { strategy: 'A', seq: 1, selected: true, data: await imageBytes({ color: '#336699', width: 300, height: 400 }) });
    return readyPackage(task.id);
  };

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.adminToken();
    operator = await userWithRole(server, 'packer', 'operator');
    ws = await workspaceOf(server, admin);
    productId = await seedProduct(server, ws, '轻盈防晒霜 SPF50');
  });
  afterAll(async () => server?.close());

  it('accepts packaging only from approved or pending_selection (else 409/40901)', async () => {
    const refused: TaskStatus[] = ['pending', 'generating', 'pending_review', 'rejected', 'archived', 'failed'];
    for (const status of refused) {
      const task = await newTask(status);
      await seedText(server, task, { strategy: 'A', selected: true });
      const res = await requestPackage(task.id);
      expect(res.status, status).toBe(409);
      expect(res.body.code, status).toBe(40901);
    }
    for (const status of ['approved', 'pending_selection'] as const) {
      const task = await newTask(status);
      await seedText(server, task, { strategy: 'A', selected: true });
      const res = await requestPackage(task.id);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toEqual({ delivery_package_id: expect.any(Number), status: 'pending' });
      const job = await server.ctx.db.selectFrom('jobs').select(['kind', 'ref_id']).where('ref_id', '=', res.body.data.delivery_package_id).where('kind', '=', 'package.build').executeTakeFirst();
      // Only the package id goes on the queue (the job may already have run and been removed).
      if (job) expect(job).toEqual({ kind: 'package.build', ref_id: res.body.data.delivery_package_id });
      expect((await settledPackage(server, operator.token, res.body.data.delivery_package_id)).status).toBe('ready');
    }
  });

  it('lays the zip out per set: folders, latest image per seq, metadata-free images, UTF-8 note.txt', async () => {
    const task = await newTask('approved');
    await seedText(server, task, { strategy: 'A', total: 95, selected: false, title: '不该入选' });
    await seedText(server, task, { strategy: 'A', total: 82, selected: true, title: '清爽一夏☀️', content: '第一行\n第二行', tags: ['防晒', '#通勤'] });
    await seedText(server, task, { strategy: 'B', total: 70, selected: true, title: 'B 入选' });
    await seedText(server, task, { strategy: 'B', total: 88, title: 'B 高分未选' });
    // Set C has no selected text: with selections elsewhere, the set stays out.
    await seedText(server, task, { strategy: 'C', total: 99, title: 'C 未选' });

    const red = await imageBytes({ color: '#ff0000' });
    const blue = await imageBytes({ color: '#0000ff' });
    const withExif = await imageBytes({ color: '#00ff00', exif: true });
    expect((await sharp(withExif).metadata()).exif).toBeDefined();
    await seedImage(server, task, { strategy: 'A', seq: 1, role: 'hook', selected: true, generation: 1, data: red });
    await seedImage(server, task, { strategy: 'A', seq: 1, role: 'hook', selected: true, generation: 2, data: blue });
    await seedImage(server, task, { strategy: 'A', seq: 2, role: 'pain', selected: true, data: withExif });
    await seedImage(server, task, { strategy: 'A', seq: 3, role: 'convert', selected: false, data: await imageBytes({ color: '#00aa00' }) });
    // Set B has no selected image: its folder holds only the text.
    await seedImage(server, task, { strategy: 'B', seq: 1, role: 'hook', data: await imageBytes({ color: '#ffff00' }) });

    const pkg = await readyPackage(task.id);
    expect(pkg.download_url).toBe(`/api/v1/delivery-packages/${pkg.id}/download-file`);
    expect(Date.parse(pkg.expires_at) - Date.parse(pkg.ready_at)).toBe(7 * 24 * 3600 * 1000);

    const file = await download(server, pkg.download_url, { token: operator.token });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/zip');
    expect(Number(file.headers.get('content-length'))).toBe(file.body.length);
    expect(file.body.length).toBe(pkg.size_bytes);
    const disposition = file.headers.get('content-disposition')!;
    expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]+\.zip"; filename\*=UTF-8''/);
    expect(decodeURIComponent(disposition.split("UTF-8''")[1]!)).toBe(pkg.file_name);
    expect(pkg.file_name).toContain('轻盈防晒霜 SPF50');

    const entries = await readZip(file.body);
    expect(entries.map((e) => e.name).sort()).toEqual(['note_01_A/01_hook.jpg', 'note_01_A/02_pain.jpg', 'note_01_A/note.txt', 'note_02_B/note.txt']);
    for (const e of entries) expect(e.flags & 0x800, e.name).toBe(0x800);
    const byName = new Map(entries.map((e) => [e.name, e.data]));
    expect(sha(byName.get('note_01_A/01_hook.jpg')!)).toBe(sha(blue));
    const stripped = byName.get('note_01_A/02_pain.jpg')!;
    const meta = await sharp(stripped).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.exif).toBeUndefined();
    expect(stripped.includes(Buffer.from('LeakyCam'))).toBe(false);
    // The declaration above the post, so copying from the title to the end never takes it along.
    expect(byName.get('note_01_A/note.txt')!.toString('utf8')).toBe(
      `【发布提醒：不要复制到笔记里】\n${PUBLISH_REMINDERS.map((r) => `· ${r}`).join('\n')}\n\n${POST_STARTS}\n\n清爽一夏☀️\n\n第一行\n第二行\n\n#防晒 #通勤\n`,
    );
    expect(byName.get('note_02_B/note.txt')!.toString('utf8')).toContain('B 入选');

    const events = await server.ctx.events.replay(task.id, 0);
    expect(events.filter((e) => e.name === 'progress').map((e) => e.data)).toEqual([
      { stage: 'package', done: 0, total: 2 },
      { stage: 'package', done: 2, total: 2 },
    ]);
  });

  it('a download name never starts with a dot, whatever the product and theme are called (issue 17, finding 7)', async () => {
    const names = (disposition: string) => [/filename="([^"]*)"/.exec(disposition)![1]!, decodeURIComponent(disposition.split("UTF-8''")[1]!)];
    const dotted = await seedProduct(server, ws, '..');
    const id = await seedTask(server, { workspaceId: ws, productId: dotted, operatorId: operator.id, status: 'approved', theme: '.env 配置' });
    await seedText(server, { id, workspaceId: ws }, { strategy: 'A', selected: true });
    const pkg = await readyPackage(id);
    expect(pkg.file_name).toBe(`env 配置_package_${pkg.id}.zip`);
    const file = await download(server, pkg.download_url, { token: operator.token });
    expect(names(file.headers.get('content-disposition')!)).toEqual([`env _package_${pkg.id}.zip`, pkg.file_name]);
    // A name stored before the rule is made safe when it is sent.
    for (const [stored, ascii, utf8] of [
      ['.bashrc.zip', 'bashrc.zip', 'bashrc.zip'],
      ['...', `package_${pkg.id}.zip`, `package_${pkg.id}.zip`],
      ['._隐藏.zip', `package_${pkg.id}.zip`, '隐藏.zip'],
    ]) {
      await server.ctx.db.updateTable('delivery_packages').set({ file_name: stored }).where('id', '=', pkg.id).execute();
      const res = await download(server, pkg.download_url, { token: operator.token });
      expect(names(res.headers.get('content-disposition')!), stored).toEqual([ascii, utf8]);
    }
  });

  it('without any selection packs each set\'s best-scored text and all its images, latest per seq', async () => {
    const task = await newTask('pending_selection');
    await seedText(server, task, { strategy: 'B', total: 70, title: 'B 低分' });
    await seedText(server, task, { strategy: 'B', total: 88, title: 'B 高分' });
    await seedText(server, task, { strategy: 'C', total: 99, title: 'C 违禁', hardBlock: '最好' });
    await seedText(server, task, { strategy: 'C', total: 60, title: 'C 可用' });
    const yellow = await imageBytes({ color: '#ffff00' });
    const png = await imageBytes({ color: '#123456', format: 'png' });
    await seedImage(server, task, { strategy: 'B', seq: 1, role: 'hook', generation: 2, data: yellow });
    await seedImage(server, task, { strategy: 'B', seq: 1, role: 'hook', generation: 1, data: await imageBytes({ color: '#00aa00' }) });
    await seedImage(server, task, { strategy: 'B', seq: 2, role: 'proof', data: png, mime: 'image/png' });

    const pkg = await readyPackage(task.id);
    const entries = await readZip((await download(server, pkg.download_url, { token: operator.token })).body);
    expect(entries.map((e) => e.name).sort()).toEqual(['note_01_B/01_hook.jpg', 'note_01_B/02_proof.png', 'note_01_B/note.txt', 'note_02_C/note.txt']);
    const byName = new Map(entries.map((e) => [e.name, e.data]));
    expect(sha(byName.get('note_01_B/01_hook.jpg')!)).toBe(sha(yellow));
    expect(sha(byName.get('note_01_B/02_proof.png')!)).toBe(sha(png));
    expect(byName.get('note_01_B/note.txt')!.toString('utf8')).toContain('B 高分');
    expect(byName.get('note_02_C/note.txt')!.toString('utf8')).toContain('C 可用');
  });

  it('packs a set\'s images into every note folder of the set, each copy whole (stored as is or stripped)', async () => {
    const task = await newTask('approved');
    const notes = [];
    for (const title of ['甲', '乙', '丙']) notes.push(await seedText(server, task, { strategy: 'A', selected: title === '甲', title }));
    const plain = await imageBytes({ color: '#123456' });
    const withExif = await imageBytes({ color: '#654321', exif: true });
    await seedImage(server, task, { strategy: 'A', seq: 1, role: 'hook', selected: true, data: plain });
    await seedImage(server, task, { strategy: 'A', seq: 2, role: 'pain', selected: true, data: withExif });

    const pkg = await readyPackage(task.id, { note_ids: notes });
    const file = await download(server, pkg.download_url, { token: operator.token });
    // readZip checks every entry against its recorded CRC-32.
    const byName = new Map((await readZip(file.body)).map((e) => [e.name, e.data]));
    const stripped = byName.get('note_01_A/02_pain.jpg')!;
    expect((await sharp(stripped).metadata()).exif).toBeUndefined();
    for (const folder of ['note_01_A', 'note_02_A', 'note_03_A']) {
      expect(sha(byName.get(`${folder}/01_hook.jpg`)!), folder).toBe(sha(plain));
      expect(sha(byName.get(`${folder}/02_pain.jpg`)!), folder).toBe(sha(stripped));
    }
  });

  it('packs exactly the note_ids asked for; refuses foreign and hard-blocked texts', async () => {
    const task = await newTask('pending_selection');
    const a = await seedText(server, task, { strategy: 'A', total: 60, title: '指定A' });
    const b = await seedText(server, task, { strategy: 'B', total: 90, selected: true, title: '指定B' });
    await seedText(server, task, { strategy: 'A', total: 99, selected: true });
    const blocked = await seedText(server, task, { strategy: 'C', hardBlock: '第一' });
    const other = await newTask('approved');
    const foreign = await seedText(server, other, { strategy: 'A' });

    // Order given B, A: folders still follow set order.
    const pkg = await readyPackage(task.id, { note_ids: [b, a] });
    expect(pkg.note_ids).toEqual([a, b]);
    const entries = await readZip((await download(server, pkg.download_url, { token: operator.token })).body);
    expect(entries.map((e) => e.name).sort()).toEqual(['note_01_A/note.txt', 'note_02_B/note.txt']);
    expect(entries.find((e) => e.name === 'note_01_A/note.txt')!.data.toString()).toContain('指定A');

    const foreignRes = await requestPackage(task.id, { note_ids: [a, foreign] });
    expect(foreignRes.status).toBe(404);
    expect(foreignRes.body.code).toBe(40400);
    const blockedRes = await requestPackage(task.id, { note_ids: [blocked] });
    expect(blockedRes.status).toBe(422);
    expect(blockedRes.body.code).toBe(42202);
    expect(blockedRes.body.message).toContain('第一');
    const empty = await requestPackage(task.id, { note_ids: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe(40000);
    const wrongType = await requestPackage(task.id, { note_ids: ['x'] });
    expect(wrongType.status).toBe(400);
  });

  it('refuses a task with nothing to pack (409/40900)', async () => {
    const task = await newTask('pending_selection');
    await seedText(server, task, { strategy: 'A', hardBlock: '禁词' });
    const res = await requestPackage(task.id);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe(40900);
  });

  it('fails a build that cannot finish visibly, with the reason', async () => {
    const task = await newTask('approved');
    await seedText(server, task, { strategy: 'A', selected: true });
    const image = await seedImage(server, task, { strategy: 'A', seq: 1, selected: true, data: await imageBytes({ color: '#abcdef' }) });
    await server.ctx.storage.delete(image.key);
    const created = await requestPackage(task.id);
    const pkg = await settledPackage(server, operator.token, created.body.data.delivery_package_id);
    expect(pkg.status).toBe('failed');
    expect(pkg.error).toContain(`image candidate ${image.id}`);
    expect(pkg.download_url).toBeNull();
    const token = await server.request('POST', `/api/v1/delivery-packages/${pkg.id}/download-token`, { token: operator.token });
    expect([token.status, token.body.code]).toEqual([409, 40902]);
  });

  it('answers every download error row of the contract', async () => {
    const pkg = await simpleReadyPackage();
    const other = await simpleReadyPackage();
    const file = `/api/v1/delivery-packages/${pkg.id}/download-file`;

    const noCreds = await download(server, file);
    expect([noCreds.status, noCreds.json.code]).toEqual([401, 40100]);
    const badBearer = await download(server, file, { headers: { authorization: 'Bearer not-a-jwt' } });
    expect([badBearer.status, badBearer.json.code]).toEqual([401, 40101]);

    const bogus = await download(server, `${file}?token=${'x'.repeat(43)}`);
    expect([bogus.status, bogus.json.code]).toEqual([410, 41000]);
    const empty = await download(server, `${file}?token=`);
    expect([empty.status, empty.json.code]).toEqual([410, 41000]);

    const forOther = await tokenFor(other.id);
    const mismatched = await download(server, `${file}?token=${forOther}`);
    expect([mismatched.status, mismatched.json.code]).toEqual([410, 41000]);

    const once = await tokenFor(pkg.id);
    const first = await download(server, `${file}?token=${once}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/zip');
    const reused = await download(server, `${file}?token=${once}`);
    expect([reused.status, reused.json.code]).toEqual([410, 41000]);

    const late = await tokenFor(pkg.id);
    server.clock.advance(61_000);
    const expiredToken = await download(server, `${file}?token=${late}`);
    expect([expiredToken.status, expiredToken.json.code]).toEqual([410, 41000]);

    // Not ready: 40902 for the token and for the file.
    const task = await newTask('approved');
    const now = nowIso(server.clock.now());
    const pending = await server.ctx.db
      .insertInto('delivery_packages')
      .values({ workspace_id: ws, task_id: task.id, created_by: operator.id, status: 'pending', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const notReadyToken = await server.request('POST', `/api/v1/delivery-packages/${pending.id}/download-token`, { token: operator.token });
    expect([notReadyToken.status, notReadyToken.body.code]).toEqual([409, 40902]);
    const notReadyFile = await download(server, `/api/v1/delivery-packages/${pending.id}/download-file`, { token: operator.token });
    expect([notReadyFile.status, notReadyFile.json.code]).toEqual([409, 40902]);

    // File gone: 40903 (repackage).
    const gone = await simpleReadyPackage();
    const goneRow = await server.ctx.db.selectFrom('delivery_packages').select('file_key').where('id', '=', gone.id).executeTakeFirstOrThrow();
    await server.ctx.storage.delete(goneRow.file_key!);
    const goneToken = await server.request('POST', `/api/v1/delivery-packages/${gone.id}/download-token`, { token: operator.token });
    expect([goneToken.status, goneToken.body.code]).toEqual([409, 40903]);
    const goneFile = await download(server, `/api/v1/delivery-packages/${gone.id}/download-file`, { token: operator.token });
    expect([goneFile.status, goneFile.json.code]).toEqual([409, 40903]);

    // Expired: 40903 for token and file, with a token issued before expiry too.
    const beforeExpiry = await tokenFor(pkg.id);
    server.clock.advance(7 * 24 * 3600 * 1000);
    operator.token = await login(server, 'packer');
    const expiredFile = await download(server, `${file}?token=${beforeExpiry}`);
    expect([expiredFile.status, expiredFile.json.code]).toEqual([410, 41000]);
    const expired = await download(server, file, { token: operator.token });
    expect([expired.status, expired.json.code]).toEqual([409, 40903]);
    const expiredTokenReq = await server.request('POST', `/api/v1/delivery-packages/${pkg.id}/download-token`, { token: operator.token });
    expect([expiredTokenReq.status, expiredTokenReq.body.code]).toEqual([409, 40903]);
    const view = await server.request('GET', `/api/v1/delivery-packages/${pkg.id}/download`, { token: operator.token });
    expect(view.body.data.status).toBe('ready');
  });

  it('serves byte ranges so a download can resume', async () => {
    const pkg = await simpleReadyPackage();
    const full = await download(server, pkg.download_url, { token: operator.token });
    const size = full.body.length;
    expect(full.headers.get('accept-ranges')).toBe('bytes');

    const head = await download(server, pkg.download_url, { token: operator.token, headers: { range: 'bytes=0-99' } });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-range')).toBe(`bytes 0-99/${size}`);
    expect(head.headers.get('content-length')).toBe('100');
    const rest = await download(server, pkg.download_url, { token: operator.token, headers: { range: 'bytes=100-' } });
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(`bytes 100-${size - 1}/${size}`);
    expect(Buffer.concat([head.body, rest.body]).equals(full.body)).toBe(true);
    const tail = await download(server, pkg.download_url, { token: operator.token, headers: { range: 'bytes=-10' } });
    expect(tail.body.equals(full.body.subarray(size - 10))).toBe(true);

    const token = await tokenFor(pkg.id);
    const withToken = await download(server, `${pkg.download_url}?token=${token}`, { headers: { range: `bytes=${size - 5}-${size + 100}` } });
    expect(withToken.status).toBe(206);
    expect(withToken.body.equals(full.body.subarray(size - 5))).toBe(true);

    const beyond = await download(server, pkg.download_url, { token: operator.token, headers: { range: `bytes=${size}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${size}`);
    expect(beyond.json.code).toBe(41600);
  });

  it('consumes a token exactly once under 50 concurrent requests', async () => {
    const pkg = await simpleReadyPackage();
    const token = await tokenFor(pkg.id);
    const results = await Promise.all(Array.from({ length: 50 }, () => download(server, `${pkg.download_url}?token=${token}`)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 410)).toHaveLength(49);
    expect(results.filter((r) => r.status === 410).every((r) => r.json.code === 41000)).toBe(true);
  });

  it('reads without side effects; mark-downloaded moves ready → downloaded once', async () => {
    const pkg = await simpleReadyPackage();
    const path = `/api/v1/delivery-packages/${pkg.id}`;
    await server.request('GET', `${path}/download`, { token: operator.token });
    await download(server, pkg.download_url, { token: operator.token });
    expect((await server.request('GET', `${path}/download`, { token: operator.token })).body.data.status).toBe('ready');
    const marked = await server.request('POST', `${path}/mark-downloaded`, { token: operator.token });
    expect(marked.status).toBe(200);
    expect(marked.body.data.status).toBe('downloaded');
    const again = await server.request('POST', `${path}/mark-downloaded`, { token: operator.token });
    expect(again.body.data.status).toBe('downloaded');
    expect((await download(server, pkg.download_url, { token: operator.token })).status).toBe(200);
    expect((await download(server, `${pkg.download_url}?token=${await tokenFor(pkg.id)}`)).status).toBe(200);

    const listed = await server.request('GET', `/api/v1/tasks/${pkg.task_id}/packages`, { token: operator.token });
    expect(listed.body.data.items.map((p: any) => p.id)).toContain(pkg.id);
  });

  it('hides packages of another workspace (404)', async () => {
    const pkg = await simpleReadyPackage();
    admin = await login(server, 'admin', ADMIN_NEW_PASSWORD);
    const created = await server.request('POST', '/api/v1/workspaces', { token: admin, body: { name: 'Other', slug: `other-${Date.now()}` } });
    expect(created.status, created.text).toBe(200);
    const switched = await server.request('POST', '/api/v1/workspaces/switch', { token: admin, body: { workspace_id: created.body.data.id } });
    const outsider = switched.body.data.token as string;
    const path = `/api/v1/delivery-packages/${pkg.id}`;
    for (const [method, p] of [
      ['GET', `${path}/download`],
      ['POST', `${path}/mark-downloaded`],
      ['POST', `${path}/download-token`],
      ['POST', `/api/v1/tasks/${pkg.task_id}/package`],
      ['GET', `/api/v1/tasks/${pkg.task_id}/packages`],
    ] as const) {
      const res = await server.request(method, p, { token: outsider });
      expect([res.status, res.body.code], `${method} ${p}`).toEqual([404, 40400]);
    }
    const file = await download(server, `${path}/download-file`, { token: outsider });
    expect([file.status, file.json.code]).toEqual([404, 40400]);
    // A token stays bound to its package and workspace, whoever presents it.
    const token = await tokenFor(pkg.id);
    expect((await download(server, `${path}/download-file?token=${token}`, { token: outsider })).status).toBe(200);
  });
});
