import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../src/db/codec.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import type { TaskStatus } from '../../src/db/schema.js';
import { LEGACY_PRODUCT, LEGACY_TASK } from '../helpers/migration.js';
import { freshPostgresDatabase, startTestServer, usingPostgres, type TestServer } from '../helpers/server.js';
import { API, ok, otherWorkspace, workspaceWithProduct, type Workspace } from './fixtures.js';

/**
 * GET /tasks?q= (keyword in the theme or the product name, through the theme-pair index) and
 * hide_archived=true (archived left out, totals still from the counters), with the list's
 * paging, cursor, filters and page cache kept.
 */
async function insertTask(db: Db, ws: Workspace, operatorId: number, theme: string, status: TaskStatus, createdAt: string, productId = ws.productId, legacy: object = {}) {
  const row = await db
    .insertInto('tasks')
    .values({
      workspace_id: ws.workspaceId,
      product_id: productId,
      operator_id: operatorId,
      theme,
      text_count: 1,
      image_count: 0,
      track: 'ai',
      status,
      need_product_image: false,
      overlay_text: true,
      progress: json(null),
      generation: 0,
      created_at: createdAt,
      updated_at: createdAt,
      ...legacy,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

describe('GET /tasks keyword search and archived tasks', () => {
  let server: TestServer;
  let ws: Workspace;
  let other: Workspace;
  let operatorId: number;
  let secondProduct: number;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    ws = await workspaceWithProduct(server); // product 云朵保湿霜
    secondProduct = (await ok(server, 'POST', '/products', ws.token, { name: 'SPF50 防晒乳', category: '防晒', source: 'custom' })).id;
    operatorId = (await ok(server, 'GET', '/auth/me', ws.token)).id;
    const db = server.ctx.db;
    ids.mask = await insertTask(db, ws, operatorId, '补水面膜夜间急救', 'pending_selection', '2026-11-20T08:00:00.000Z');
    ids.maskArchived = await insertTask(db, ws, operatorId, '面膜一周测评', 'archived', '2026-11-20T09:00:00.000Z');
    ids.sun = await insertTask(db, ws, operatorId, '通勤防晒 Routine', 'approved', '2026-11-21T08:00:00.000Z', secondProduct);
    ids.autumn = await insertTask(db, ws, operatorId, '秋冬换季护肤', 'failed', '2026-11-21T09:00:00.000Z');
    ids.emoji = await insertTask(db, ws, operatorId, '早八👩‍💻妆容', 'pending', '2026-11-22T07:00:00.000Z');
    ids.percent = await insertTask(db, ws, operatorId, '满100%好评', 'archived', '2026-11-22T08:00:00.000Z');
    for (let i = 0; i < 5; i++) ids[`many${i}`] = await insertTask(db, ws, operatorId, `面膜合集第${i}期`, 'approved', `2026-11-23T0${i}:00:00.000Z`);
    other = await otherWorkspace(server);
    await insertTask(db, other, operatorId, '面膜别家', 'pending', '2026-11-22T10:00:00.000Z', other.productId);
  });
  afterAll(async () => server?.close());

  const list = async (query: string, token = ws.token) => {
    const res = await server.request('GET', `${API}/tasks?${query}`, { token });
    expect(res.status, res.text).toBe(200);
    return res.body.data as { items: Array<{ id: number; theme: string; status: string }>; total: number; next_cursor: string | null };
  };
  const idsOf = (page: { items: Array<{ id: number }> }) => page.items.map((t) => t.id);

  it('finds a two-character keyword inside themes, newest first, only in the caller workspace', async () => {
    const page = await list(`q=${encodeURIComponent('面膜')}&page_size=100`);
    expect(idsOf(page)).toEqual([ids.many4, ids.many3, ids.many2, ids.many1, ids.many0, ids.maskArchived, ids.mask]);
    expect(page.total).toBe(7);
    expect((await list(`q=${encodeURIComponent('面膜')}`, other.token)).total).toBe(1);
  });

  it('matches one character, a long keyword, Latin letters in any case, emoji and literal % signs', async () => {
    expect(idsOf(await list(`q=${encodeURIComponent('急')}`))).toEqual([ids.mask]);
    expect(idsOf(await list(`q=${encodeURIComponent('面膜夜间急救')}`))).toEqual([ids.mask]);
    expect(idsOf(await list(`q=${encodeURIComponent('routine')}`))).toEqual([ids.sun]);
    expect(idsOf(await list(`q=${encodeURIComponent('👩‍💻')}`))).toEqual([ids.emoji]);
    expect(idsOf(await list(`q=${encodeURIComponent('0%')}`))).toEqual([ids.percent]);
    // % and _ are literal, not wildcards: "面%膜" is in no theme.
    expect((await list(`q=${encodeURIComponent('面%膜')}`)).total).toBe(0);
    // The pairs are all there but not in this order.
    expect((await list(`q=${encodeURIComponent('膜面')}`)).total).toBe(0);
    // Blank is no keyword.
    expect((await list(`q=${encodeURIComponent('  ')}&page_size=100`)).total).toBe(11);
  });

  it('matches the product name as well as the theme', async () => {
    const page = await list(`q=${encodeURIComponent('spf50')}`);
    expect(idsOf(page)).toEqual([ids.sun]);
    const byName = await list(`q=${encodeURIComponent('保湿霜')}&page_size=100`);
    expect(byName.total).toBe(10);
    expect(idsOf(byName)).not.toContain(ids.sun);
  });

  it('combines with status, product and dates, and pages by number and by cursor with an exact total', async () => {
    expect(idsOf(await list(`q=${encodeURIComponent('面膜')}&status=archived`))).toEqual([ids.maskArchived]);
    expect((await list(`q=${encodeURIComponent('面膜')}&product_id=${secondProduct}`)).total).toBe(0);
    expect(idsOf(await list(`q=${encodeURIComponent('面膜')}&date_to=2026-11-22`))).toEqual([ids.maskArchived, ids.mask]);
    const first = await list(`q=${encodeURIComponent('面膜')}&page_size=3`);
    expect(first.total).toBe(7);
    expect(idsOf(first)).toEqual([ids.many4, ids.many3, ids.many2]);
    const second = await list(`q=${encodeURIComponent('面膜')}&page_size=3&page=2`);
    expect(idsOf(second)).toEqual([ids.many1, ids.many0, ids.maskArchived]);
    const after = await list(`q=${encodeURIComponent('面膜')}&page_size=3&cursor=${first.next_cursor}`);
    expect(idsOf(after)).toEqual(idsOf(second));
    expect(after.total).toBe(7);
  });

  it('hides archived tasks when asked, with totals from the counters that stay exact', async () => {
    const all = await list('page_size=100');
    expect(all.total).toBe(11);
    const visible = await list('hide_archived=true&page_size=100');
    expect(visible.total).toBe(9);
    expect(visible.items.map((t) => t.status)).not.toContain('archived');
    // With a date range (day counters and a partial day).
    const ranged = await list('hide_archived=true&date_from=2026-11-20T08:30:00.000Z&date_to=2026-11-22');
    expect(idsOf(ranged)).toEqual([ids.emoji, ids.autumn, ids.sun]);
    expect(ranged.total).toBe(3);
    // An explicit status wins.
    expect(idsOf(await list('hide_archived=true&status=archived'))).toEqual([ids.percent, ids.maskArchived]);
    expect((await list(`hide_archived=true&q=${encodeURIComponent('面膜')}`)).total).toBe(6);
    // A task that becomes archived (any writer) leaves the default view.
    await server.ctx.db.updateTable('tasks').set({ status: 'archived' }).where('id', '=', ids.autumn!).execute();
    const after = await list('hide_archived=true&page_size=100');
    expect(after.total).toBe(8);
    expect(idsOf(after)).not.toContain(ids.autumn);
  });

  it('follows renamed products and new tasks through the page cache', async () => {
    const q = `q=${encodeURIComponent('晚安')}`;
    expect((await list(q)).total).toBe(0);
    await ok(server, 'PUT', `/products/${secondProduct}`, ws.token, { name: '晚安防晒乳', category: '防晒', source: 'custom' });
    expect(idsOf(await list(q))).toEqual([ids.sun]);
    const created = await ok(server, 'POST', '/tasks', ws.token, { product_id: ws.productId, theme: '晚安面膜', text_count: 1, image_count: 0, track: 'ai' });
    expect(idsOf(await list(q))).toEqual([created.id, ids.sun]);
  });

  it('refuses a keyword over 100 characters with the envelope', async () => {
    const res = await server.request('GET', `${API}/tasks?q=${'长'.repeat(101)}`, { token: ws.token });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(40000);
  });
});

describe('GET /tasks/covers', () => {
  let server: TestServer;
  let ws: Workspace;
  afterAll(async () => server?.close());

  it('answers the cover of each task of the workspace: a selected set first, else the newest generation', async () => {
    server = await startTestServer({ worker: false });
    ws = await workspaceWithProduct(server);
    const other = await otherWorkspace(server);
    const operatorId = (await ok(server, 'GET', '/auth/me', ws.token)).id;
    const { db, storage } = server.ctx;
    const now = new Date().toISOString();
    const files: string[] = [];
    for (const colour of ['#ff0000', '#00ff00', '#0000ff', '#ffff00', '#00ffff']) {
      const png = await sharp({ create: { width: 30, height: 40, channels: 3, background: colour } }).png().toBuffer();
      files.push((await storage.put(png, { contentType: 'image/png', extension: 'png' })).key);
    }
    const image = (task: number, workspaceId: number, strategy: 'A' | 'B', generation: number, fileKey: string, selected: boolean, seq = 1) =>
      db
        .insertInto('image_candidates')
        .values({ workspace_id: workspaceId, task_id: task, generation, strategy, role: 'hook', seq, file_key: fileKey, mime: 'image/png', prompt: 'p', is_selected: selected, is_regen: false, ai_visual_score: null, ai_visual_note: null, created_at: now })
        .execute();
    const selectedSet = await insertTask(db, ws, operatorId, '一', 'pending_selection', now);
    await image(selectedSet, ws.workspaceId, 'A', 1, files[0]!, false);
    await image(selectedSet, ws.workspaceId, 'B', 1, files[1]!, true);
    const regenerated = await insertTask(db, ws, operatorId, '二', 'pending_selection', now);
    await image(regenerated, ws.workspaceId, 'A', 1, files[2]!, false);
    await image(regenerated, ws.workspaceId, 'A', 2, files[3]!, false);
    await image(regenerated, ws.workspaceId, 'A', 2, files[0]!, false, 2);
    // A later image that failed has no file: never a cover.
    await db
      .insertInto('image_candidates')
      .values({ workspace_id: ws.workspaceId, task_id: regenerated, generation: 3, strategy: 'A', role: 'hook', seq: 1, file_key: null, mime: null, prompt: 'p', is_selected: true, is_regen: true, ai_visual_score: null, ai_visual_note: null, created_at: now, status: 'failed', error: 'timeout', error_kind: 'timeout' })
      .execute();
    const bare = await insertTask(db, ws, operatorId, '三', 'pending', now);
    const foreign = await insertTask(db, other, operatorId, '四', 'pending', now, other.productId);
    await image(foreign, other.workspaceId, 'A', 1, files[4]!, false);

    const res = await server.request('GET', `${API}/tasks/covers?ids=${[bare, regenerated, selectedSet, foreign, 999999].join(',')}`, { token: ws.token });
    expect(res.status, res.text).toBe(200);
    const items = res.body.data.items as Array<{ task_id: number; url: string }>;
    expect(items.map((i) => i.task_id)).toEqual([regenerated, selectedSet]);
    expect(items[0]!.url).toContain(files[3]);
    expect(items[1]!.url).toContain(files[1]);
    const file = await server.request('GET', items[1]!.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');

    for (const bad of ['', 'a', '1,,2', `${'1,'.repeat(100)}1`]) {
      const refused = await server.request('GET', `${API}/tasks/covers?ids=${bad}`, { token: ws.token });
      expect(refused.status, bad).toBe(400);
      expect(refused.body.code).toBe(40000);
    }
    // Ids no task can have (0, beyond 2^31 − 1) are left out like unknown ones, on both databases.
    for (const none of ['0', '9999999999', '0,9999999999']) {
      const empty = await server.request('GET', `${API}/tasks/covers?ids=${none}`, { token: ws.token });
      expect([empty.status, empty.body.data?.items], none).toEqual([200, []]);
    }
    expect((await server.request('GET', `${API}/tasks/covers?ids=1`)).status).toBe(401);
  });
});

const MIGRATION = '20261125_1500_task_theme_grams';
/** The migration that runs just before this one, whatever others land meanwhile. */
const PREVIOUS = Object.keys(migrations).sort().at(Object.keys(migrations).sort().indexOf(MIGRATION) - 1)!;

describe('migration 20261125_1500_task_theme_grams', () => {
  it('indexes the themes already there, follows theme changes and deletes, and goes back down', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-migrate-'));
    const pgDb = usingPostgres ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
    const database = openDatabase({ databaseUrl: pgDb?.url, dataDir });
    try {
      const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo(PREVIOUS)).error).toBeUndefined();
      const db = database.db;
      const now = new Date().toISOString();
      const wsRow = await db.insertInto('workspaces').values({ name: 'W', slug: 'w', created_at: now }).returning('id').executeTakeFirstOrThrow();
      const user = await db
        .insertInto('users')
        .values({ username: 'u', email: 'u@example.com', password_hash: 'x', is_active: true, must_change_password: false, token_version: 0, current_workspace_id: wsRow.id, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const product = await db
        .insertInto('products')
        .values({ workspace_id: wsRow.id, name: 'P', category: 'c', source: 'custom', selling_points: json([]), style_tone: null, text_angles: json([]), custom_prompt: null, ...LEGACY_PRODUCT, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const ws: Workspace = { token: '', workspaceId: wsRow.id, productId: product.id };
      const before = await insertTask(db, ws, user.id, 'Aa面膜', 'pending', now, ws.productId, LEGACY_TASK);
      expect((await migrator.migrateTo(MIGRATION)).error).toBeUndefined();
      const grams = (id: number) =>
        db.selectFrom('task_theme_grams').select('gram').where('task_id', '=', id).orderBy('gram').execute().then((rows) => rows.map((r) => r.gram));
      expect(await grams(before)).toEqual(['aa', 'a面', '膜', '面膜'].sort());
      const after = await insertTask(db, ws, user.id, '防晒', 'pending', now, ws.productId, LEGACY_TASK);
      expect(await grams(after)).toEqual(['晒', '防晒']);
      await db.updateTable('tasks').set({ theme: '晒晒' }).where('id', '=', after).execute();
      expect(await grams(after)).toEqual(['晒', '晒晒']);
      await db.deleteFrom('tasks').where('id', '=', after).execute();
      expect(await grams(after)).toEqual([]);
      expect((await migrator.migrateTo(PREVIOUS)).error).toBeUndefined();
      // Down: no trigger left behind (an insert would fail on it).
      await insertTask(db, ws, user.id, '再来', 'pending', now, ws.productId, LEGACY_TASK);
      expect((await migrator.migrateTo(MIGRATION)).error).toBeUndefined();
    } finally {
      await database.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
