import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageBytes, seedImage, seedProduct, seedTask, seedText } from '../delivery/fixtures.js';
import { ADMIN_NEW_PASSWORD, startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { API, ok, otherWorkspace } from '../tasks/fixtures.js';
import { Receiver, waitUntil } from '../webhooks/receiver.js';

/**
 * The publishing operation (contract-decisions §11) through the HTTP API on a real database:
 * accounts, posts frozen from approved notes, the calendar's rules, the due/missed sweep and its
 * bot message, the kit, marking published, results by hand and imported, what the preference
 * context and the analytics overview make of them.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let server: TestServer;
let receiver: Receiver;
let admin: string;
let workspaceId: number;
let adminId: number;
let operator: { token: string; id: number };
let supervisor: { token: string; id: number };

beforeAll(async () => {
  receiver = await new Receiver().start();
  server = await startTestServer({ env: { POST_SWEEP_MS: '50', WEBHOOK_POLL_MS: '50', ALLOW_PRIVATE_PROVIDER_URLS: '1' } });
  admin = await server.adminToken();
  const me = await ok(server, 'GET', '/auth/me', admin);
  workspaceId = me.current_workspace_id;
  adminId = me.id;
  operator = await userWithRole(server, 'poster_op', 'operator');
  supervisor = await userWithRole(server, 'poster_sup', 'supervisor');
}, 60_000);

afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

/** Sessions expire when the clock is moved on: log everyone in again. */
async function relogin() {
  const login = async (username: string, password: string) => (await server.request('POST', `${API}/auth/login`, { body: { username, password } })).body.data.token as string;
  operator = { ...operator, token: await login('poster_op', 'second-password-2') };
  admin = await login('admin', ADMIN_NEW_PASSWORD);
}

const call = (method: string, path: string, token: string, body?: unknown) => server.request(method, `${API}${path}`, { token, ...(body === undefined ? {} : { body }) });
const at = (msFromNow: number) => new Date(server.clock.now().getTime() + msFromNow).toISOString();

/** A text no other test note shares three characters in a row with: distinct notes are no near-duplicates. */
const POOL = '春夏秋冬山水花草风雨雪月日星云天地人心手口目耳足走跑跳看听说读写吃喝睡醒红橙黄绿青蓝紫黑白灰金银铜铁木火土石光影声色香味甜酸苦辣咸鲜软硬冷热干湿大小多少高低长短快慢新旧远近明暗';
function distinctText(seed: number, length: number): string {
  // MINSTD: small enough for exact arithmetic in doubles.
  let x = (seed * 7919) % 2147483646 + 1;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 48271) % 2147483647;
    out += POOL[x % POOL.length];
  }
  return out;
}

let titleSeq = 0;
/** An approved task whose set A has a selected text and two images (cover first), as generation and review leave it. */
async function approvedNote(opts: { title?: string; content?: string; angle?: string; status?: 'approved' | 'pending_review'; productId?: number } = {}) {
  const productId = opts.productId ?? (await seedProduct(server, workspaceId));
  const taskId = await seedTask(server, { workspaceId, productId, operatorId: adminId, status: opts.status ?? 'approved' });
  titleSeq++;
  await seedText(server, { id: taskId, workspaceId }, {
    strategy: 'A',
    selected: true,
    angle: opts.angle ?? '通勤补妆',
    title: opts.title ?? distinctText(titleSeq, 12),
    content: opts.content ?? distinctText(titleSeq + 1000, 80),
    tags: ['防晒', '通勤'],
  });
  const cover = await seedImage(server, { id: taskId, workspaceId }, { strategy: 'A', seq: 1, role: 'hook', data: await imageBytes({ color: '#e33' }) });
  const second = await seedImage(server, { id: taskId, workspaceId }, { strategy: 'A', seq: 2, role: 'proof', data: await imageBytes({ color: '#3e3' }) });
  return { taskId, productId, cover, second };
}

async function account(name: string, extra: Record<string, unknown> = {}) {
  return ok(server, 'POST', '/accounts', admin, { name, ...extra });
}

describe('accounts', () => {
  it('are created with §11 defaults, validated, changed by supervisors and admins only, and kept (deactivated) once they have posts', async () => {
    const created = await account('小红薯·通勤号', { persona: '通勤白领，说话干脆', profile_url: 'https://www.xiaohongshu.com/user/profile/5f1a2b3c4d5e6f7a8b9c0d1e' });
    expect(created).toMatchObject({ name: '小红薯·通勤号', daily_cap: 2, min_gap_minutes: 180, timezone: 'Asia/Shanghai', active: true, persona: '通勤白领，说话干脆' });

    const badLink = await call('POST', '/accounts', admin, { name: 'x', profile_url: 'https://evil.example.com/user/profile/1' });
    expect(badLink.status).toBe(400);
    expect(badLink.body.reason).toBe('account.profile_url');
    const badZone = await call('POST', '/accounts', admin, { name: 'x', timezone: 'Mars/Olympus' });
    expect(badZone.body.reason).toBe('account.timezone');
    const badCap = await call('POST', '/accounts', admin, { name: 'x', daily_cap: 11 });
    expect(badCap.status).toBe(400);
    expect((await call('POST', '/accounts', operator.token, { name: 'x' })).status).toBe(403);

    const changed = await ok(server, 'PATCH', `/accounts/${created.id}`, supervisor.token, { daily_cap: 3 });
    expect(changed.daily_cap).toBe(3);
    // What a change leaves out stays as it was.
    const gapOnly = await ok(server, 'PATCH', `/accounts/${created.id}`, supervisor.token, { min_gap_minutes: 60 });
    expect(gapOnly).toMatchObject({ daily_cap: 3, min_gap_minutes: 60, persona: '通勤白领，说话干脆' });
    const empty = await account('空号');
    expect(await ok(server, 'DELETE', `/accounts/${empty.id}`, admin)).toEqual({ deleted: true, deactivated: false });
    expect((await call('GET', `/accounts/${empty.id}`, admin)).status).toBe(404);
  });
});

describe('planning posts', () => {
  it('freezes an approved note on an account; later edits of the task change no post; the kit has it in posting order', async () => {
    const acct = await account('冻结号');
    const note = await approvedNote({ title: '冻结前的标题' });
    const post = await ok(server, 'POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(2 * HOUR), task_id: note.taskId, strategy: 'A' });
    expect(post).toMatchObject({ status: 'scheduled', account_id: acct.id, title: '冻结前的标题', source: { task_id: note.taskId, strategy: 'A' }, warnings: [], latest_metrics: null });
    expect(post.cover_url).toMatch(/\/files\//);

    await server.ctx.db.updateTable('text_candidates').set({ title: '改过的标题' }).where('task_id', '=', note.taskId).execute();
    const kit = await ok(server, 'GET', `/posts/${post.id}/kit`, operator.token);
    expect(kit.title).toBe('冻结前的标题');
    expect(kit.hashtag_line).toBe('#防晒 #通勤');
    expect(kit.images.map((i: any) => [i.seq, i.role])).toEqual([[1, 'hook'], [2, 'proof']]);
    expect(kit.declaration.required).toBe(true);
    expect(kit.declaration.steps.join('')).toContain('AI');
    // The kit's image links serve the frozen files.
    const image = await fetch(new URL(kit.images[0].url, server.url));
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toMatch(/^image\//);

    const audit = await ok(server, 'GET', `/tasks/${note.taskId}/audit`, admin);
    expect(audit.items.some((e: any) => e.kind === 'post' && e.action === 'scheduled' && e.detail.post_id === post.id)).toBe(true);
  });

  it('refuses what may not be posted: a task not approved, a set without a selected text, no note named, a time in the past', async () => {
    const acct = await account('拒绝号');
    const pending = await approvedNote({ status: 'pending_review' });
    const notApproved = await call('POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(HOUR), task_id: pending.taskId, strategy: 'A' });
    expect([notApproved.status, notApproved.body.reason]).toEqual([409, 'post.not_approved']);
    const ok1 = await approvedNote();
    const noText = await call('POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(HOUR), task_id: ok1.taskId, strategy: 'B' });
    expect([noText.status, noText.body.reason]).toEqual([409, 'post.no_text']);
    const noSource = await call('POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(HOUR) });
    expect([noSource.status, noSource.body.reason]).toEqual([400, 'post.source']);
    const past = await call('POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(-HOUR), task_id: ok1.taskId, strategy: 'A' });
    expect([past.status, past.body.reason]).toEqual([400, 'post.in_past']);
  });

  it('holds the daily cap on the account\'s local day and the minimum gap, naming the conflicting post; one note goes on one account', async () => {
    const acct = await account('限额号', { daily_cap: 2, min_gap_minutes: 120, timezone: 'Asia/Shanghai' });
    const other = await account('另一个号');
    // 10:00 and 14:00 Beijing time on a day well ahead.
    const day = new Date(server.clock.now().getTime() + 5 * DAY);
    const beijing = (hour: number) => new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hour - 8)).toISOString();
    const first = await approvedNote();
    const p1 = await ok(server, 'POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: beijing(10), task_id: first.taskId, strategy: 'A' });

    const close = await approvedNote();
    const tooClose = await call('POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: beijing(11), task_id: close.taskId, strategy: 'A' });
    expect(tooClose.status).toBe(409);
    expect(tooClose.body).toMatchObject({ reason: 'post.too_close', params: { post_id: p1.id, minutes: 60, gap: 120 } });

    await ok(server, 'POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: beijing(14), task_id: close.taskId, strategy: 'A' });
    const third = await approvedNote();
    const capped = await call('POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: beijing(20), task_id: third.taskId, strategy: 'A' });
    expect(capped.status).toBe(409);
    expect(capped.body).toMatchObject({ reason: 'post.daily_cap', params: { cap: 2, post_id: p1.id } });
    // 01:00 the next Beijing day is another day for the cap, although the same UTC day as 20:00.
    await ok(server, 'POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: beijing(25), task_id: third.taskId, strategy: 'A' });

    const twice = await call('POST', '/posts', operator.token, { account_id: other.id, scheduled_at: beijing(16), task_id: first.taskId, strategy: 'A' });
    expect(twice.body).toMatchObject({ reason: 'post.note_taken', params: { post_id: p1.id } });

    // Moving a post into a conflict is refused too; cancelling frees the note for another account.
    const moved = await call('PATCH', `/posts/${p1.id}`, operator.token, { scheduled_at: beijing(15) });
    expect(moved.body.reason).toBe('post.too_close');
    await ok(server, 'DELETE', `/posts/${p1.id}`, operator.token);
    expect((await ok(server, 'GET', `/posts/${p1.id}`, operator.token)).status).toBe('cancelled');
    await ok(server, 'POST', '/posts', operator.token, { account_id: other.id, scheduled_at: beijing(16), task_id: first.taskId, strategy: 'A' });
  });

  it('warns of a near-identical note of the last 30 days: a supervisor may force it, an operator may not', async () => {
    const acct = await account('相似号', { daily_cap: 10, min_gap_minutes: 0 });
    const content = '这支防晒我已经回购三次了，通勤路上补涂不搓泥，SPF50 PA++++，清爽不油腻，敏感肌也没有刺痛感，夏天通勤党闭眼入。';
    const original = await approvedNote({ title: '通勤防晒回购三次的理由', content });
    const first = await ok(server, 'POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(3 * DAY), task_id: original.taskId, strategy: 'A' });
    const copy = await approvedNote({ title: '通勤防晒回购三次的原因', content: content.replace('夏天通勤党闭眼入', '夏天通勤党可以闭眼入') });
    const body = { account_id: acct.id, scheduled_at: at(3 * DAY + HOUR), task_id: copy.taskId, strategy: 'A' };
    const refused = await call('POST', '/posts', operator.token, body);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ reason: 'post.near_duplicate', params: { post_id: first.id } });
    expect((await call('POST', '/posts', operator.token, { ...body, force: true })).body.reason).toBe('post.force_role');
    const forced = await ok(server, 'POST', '/posts', supervisor.token, { ...body, force: true });
    expect(forced.warnings).toEqual([expect.objectContaining({ kind: 'near_duplicate', post_id: first.id })]);
    // A different note about the same product is no near-duplicate.
    const different = await approvedNote({ title: '油皮夏天的底妆顺序', content: '先控油再上妆，粉底选哑光质地，定妆喷雾隔开五分钟，午后用吸油纸按压不要擦。' });
    await ok(server, 'POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(3 * DAY + 2 * HOUR), task_id: different.taskId, strategy: 'A' });
  });

  it('hides another workspace\'s accounts and posts (404)', async () => {
    const acct = await account('私有号');
    const note = await approvedNote();
    const post = await ok(server, 'POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(7 * DAY), task_id: note.taskId, strategy: 'A' });
    const other = await otherWorkspace(server);
    expect((await call('GET', `/posts/${post.id}`, other.token)).status).toBe(404);
    expect((await call('GET', `/posts/${post.id}/kit`, other.token)).status).toBe(404);
    expect((await call('GET', `/accounts/${acct.id}`, other.token)).status).toBe(404);
    expect((await call('POST', '/posts', other.token, { account_id: acct.id, scheduled_at: at(8 * DAY), task_id: note.taskId, strategy: 'A' })).status).toBe(404);
  });
});

describe('results', () => {
  async function publishedPost(acct: { id: number }, opts: { angle: string; noteId: string; title: string; productId: number; offsetHours: number }) {
    const note = await approvedNote({ angle: opts.angle, title: opts.title, productId: opts.productId });
    const post = await ok(server, 'POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(opts.offsetHours * HOUR), task_id: note.taskId, strategy: 'A' });
    return ok(server, 'POST', `/posts/${post.id}/published`, operator.token, { note_url: `https://www.xiaohongshu.com/explore/${opts.noteId}` });
  }

  it('records snapshots by hand, and teaches the preference context what worked from 3 published posts on', async () => {
    const productId = await seedProduct(server, workspaceId, '结果产品');
    const acct = await account('结果号', { daily_cap: 10, min_gap_minutes: 0 });
    const winner = await publishedPost(acct, { angle: '真实测评', noteId: 'aaaaaaaaaaaaaaaaaaaaaaa1', title: '结果一', productId, offsetHours: 30 * 24 });
    const loser = await publishedPost(acct, { angle: '硬广口吻', noteId: 'aaaaaaaaaaaaaaaaaaaaaaa2', title: '结果二', productId, offsetHours: 30 * 24 + 1 });
    const middle = await publishedPost(acct, { angle: '日常记录', noteId: 'aaaaaaaaaaaaaaaaaaaaaaa3', title: '结果三', productId, offsetHours: 30 * 24 + 2 });

    const unpublished = await approvedNote({ productId });
    const planned = await ok(server, 'POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(40 * DAY), task_id: unpublished.taskId, strategy: 'A' });
    expect((await call('POST', `/posts/${planned.id}/metrics`, operator.token, { views: 10 })).body.reason).toBe('results.not_published');

    const snap = await ok(server, 'POST', `/posts/${winner.id}/metrics`, operator.token, { views: 1000, likes: 80, collects: 40, comments: 20, shares: 10 });
    expect(snap.engagement).toBeCloseTo(0.15, 6);
    const task = (await ok(server, 'GET', `/posts/${winner.id}`, operator.token)).source.task_id;
    let context = await ok(server, 'GET', `/tasks/${task}/preference/context`, admin);
    expect(context.performance).toBeNull();

    await ok(server, 'POST', `/posts/${loser.id}/metrics`, operator.token, { views: 1000, likes: 5 });
    await ok(server, 'POST', `/posts/${middle.id}/metrics`, operator.token, { views: 1000, likes: 30, collects: 10 });
    context = await ok(server, 'GET', `/tasks/${task}/preference/context`, admin);
    expect(context.performance.posts).toBe(3);
    expect(context.performance.best[0]).toMatchObject({ kind: 'angle', key: '真实测评', posts: 1 });
    expect(context.performance.best[0].vs_median).toBeGreaterThan(3);
    expect(context.performance.worst[0]).toMatchObject({ kind: 'angle', key: '硬广口吻', posts: 1 });

    const overview = await ok(server, 'GET', `/analytics/overview?product_id=${productId}`, admin);
    expect(overview.posts).toMatchObject({ published: 3, scheduled: 1 });
    expect(overview.engagement.median).toBeCloseTo(0.04, 6);
    expect(overview.engagement.by_angle[0]).toMatchObject({ key: '真实测评', posts: 1, views: 1000 });
    expect(overview.engagement.by_account).toEqual([expect.objectContaining({ label: '结果号', posts: 3, views: 3000 })]);
    // Over time: the three went out in one week, strategy A all of them.
    expect(overview.engagement.by_week).toEqual([{ week: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), posts: 3, median_engagement: expect.closeTo(0.04, 6), by_strategy: { A: expect.closeTo(0.04, 6) } }]);
    // A window counts a published post when it went out (here: now, ahead of its slot a month
    // away), as its engagement is counted; the planned one, 40 days away, is not in it.
    const now = server.clock.now().getTime();
    const window = `from=${encodeURIComponent(new Date(now - HOUR).toISOString())}&to=${encodeURIComponent(new Date(now + HOUR).toISOString())}`;
    const thisHour = await ok(server, 'GET', `/analytics/overview?product_id=${productId}&${window}`, admin);
    expect(thisHour.posts).toEqual({ published: 3, scheduled: 0, missed: 0 });
    expect(thisHour.engagement.by_account).toEqual([expect.objectContaining({ posts: 3 })]);
  });

  it('imports the creator centre\'s export (CSV and XLSX): matched by link, id or title and day, unmatched rows reported, a second import changes nothing', async () => {
    const productId = await seedProduct(server, workspaceId, '导入产品');
    const acct = await account('导入号', { daily_cap: 10, min_gap_minutes: 0 });
    const byLink = await publishedPost(acct, { angle: '甲', noteId: 'bbbbbbbbbbbbbbbbbbbbbbb1', title: '按链接匹配', productId, offsetHours: 50 * 24 });
    const byTitle = await ok(server, 'POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(50 * 24 * HOUR + HOUR), task_id: (await approvedNote({ title: '按标题匹配', productId })).taskId, strategy: 'A' });
    await ok(server, 'POST', `/posts/${byTitle.id}/published`, operator.token, { note_url: 'https://xhslink.com/a/Zz9', published_at: '2026-03-05T04:00:00Z' });

    const csv = [
      '笔记数据明细,,,,,,',
      '笔记标题,笔记链接,首次发布时间,观看量,点赞,收藏,评论',
      `按链接匹配,https://www.xiaohongshu.com/explore/${'b'.repeat(23)}1,2026-03-01 10:00:00,"1,200",60,30,6`,
      '按标题匹配,,2026-03-05 12:00,1.2万,300,100,20',
      '没有这篇,,2026-03-05,100,1,1,1',
      '按标题匹配,,2026-03-06,100,1,1,1',
      '坏数字,,2026-03-05,很多,1,1,1',
    ].join('\n');
    const upload = (file: Buffer, name: string) => {
      const form = new FormData();
      form.append('file', new Blob([file]), name);
      return server.request('POST', `${API}/metrics/import`, { token: operator.token, raw: form });
    };
    const first = await upload(Buffer.from(csv), 'notes.csv');
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({
      rows: 5,
      matched: 2,
      created: 2,
      unmatched: [
        { row: 5, reason: 'not_found', title: '没有这篇' },
        { row: 6, reason: 'not_found', title: '按标题匹配' },
        { row: 7, reason: 'invalid_number', title: '坏数字' },
      ],
    });
    expect((await ok(server, 'GET', `/posts/${byTitle.id}`, operator.token)).latest_metrics).toMatchObject({ views: 12000, likes: 300, collects: 100, comments: 20, source: 'import' });
    const second = await upload(Buffer.from(csv), 'notes.csv');
    expect(second.body.data).toMatchObject({ matched: 2, created: 0 });

    // The same counts, newer, as XLSX with the note id column: one new snapshot, for the changed row only.
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('笔记数据');
    sheet.addRow(['笔记ID', '笔记标题', '发布时间', '观看量', '点赞', '收藏', '评论', '分享', '涨粉']);
    sheet.addRow([`${'b'.repeat(23)}1`, '按链接匹配', '2026-03-01', 1500, 70, 30, 6, 2, 1]);
    sheet.addRow(['', '按标题匹配', '2026-03-05', 12000, 300, 100, 20, null, null]);
    const xlsx = Buffer.from(await workbook.xlsx.writeBuffer());
    const third = await upload(xlsx, 'notes.xlsx');
    expect(third.status).toBe(200);
    expect(third.body.data).toMatchObject({ rows: 2, matched: 2, created: 1, unmatched: [] });
    expect((await ok(server, 'GET', `/posts/${byLink.id}`, operator.token)).latest_metrics).toMatchObject({ views: 1500, shares: 2, follows: 1 });

    const junk = await upload(Buffer.from('just some words\nno table here'), 'x.csv');
    expect([junk.status, junk.body.reason]).toEqual([400, 'results.import_no_header']);
  });
});

// Last: it moves the server's clock a day on.
describe('due, missed, published', () => {
  it('makes a post due at its time exactly once, tells the group bot whom to post what, then missed a day later', async () => {
    await ok(server, 'POST', '/webhooks', admin, { name: '运营群', kind: 'feishu', url: `${receiver.url}/feishu`, events: ['post.due', 'post.missed', 'post.published'] });
    const acct = await account('到点号');
    const note = await approvedNote({ title: '到点发布的笔记' });
    const post = await ok(server, 'POST', '/posts', operator.token, { account_id: acct.id, scheduled_at: at(HOUR), task_id: note.taskId, strategy: 'A' });
    await new Promise((r) => setTimeout(r, 300));
    expect((await ok(server, 'GET', `/posts/${post.id}`, operator.token)).status).toBe('scheduled');

    server.clock.advance(HOUR + 1000);
    await relogin();
    await waitUntil('the post to be due', async () => (await ok(server, 'GET', `/posts/${post.id}`, operator.token)).status === 'due');
    const message = await waitUntil('the bot message', () => receiver.received.find((r) => r.path === '/feishu' && JSON.stringify(r.body).includes('到点号')));
    expect(JSON.stringify(message.body)).toContain('请在「到点号」发布「到点发布的笔记」');
    // Exactly once, although the sweep ran many times meanwhile.
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((r) => JSON.stringify(r.body).includes('请在「到点号」')).length).toBe(1);

    server.clock.advance(DAY);
    await relogin();
    await waitUntil('the post to be missed', async () => (await ok(server, 'GET', `/posts/${post.id}`, operator.token)).status === 'missed');
    await waitUntil('the missed message', () => receiver.received.find((r) => JSON.stringify(r.body).includes('排期已错过')));

    // A missed post may still be published late: with a real note link only.
    const bad = await call('POST', `/posts/${post.id}/published`, operator.token, { note_url: 'https://example.com/explore/abc' });
    expect([bad.status, bad.body.reason]).toEqual([400, 'post.note_url']);
    const published = await ok(server, 'POST', `/posts/${post.id}/published`, operator.token, { note_url: 'https://www.xiaohongshu.com/explore/6650a1b2c3d4e5f6a7b8c9d0?xsec_token=x' });
    expect(published).toMatchObject({ status: 'published' });
    await waitUntil('the published message', () => receiver.received.find((r) => JSON.stringify(r.body).includes('笔记已发布')));
    const again = await call('POST', `/posts/${post.id}/published`, operator.token, { note_url: 'https://xhslink.com/a/AbCd' });
    expect([again.status, again.body.reason]).toEqual([409, 'post.wrong_status']);
  });
});
