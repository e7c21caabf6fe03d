import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../src/db/codec.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import type { TaskStatus } from '../../src/db/schema.js';
import { LEGACY_PRODUCT, LEGACY_TASK } from '../helpers/migration.js';
import { freshPostgresDatabase } from '../helpers/postgres.js';
import { startTestServer, usingPostgres, type TestServer } from '../helpers/server.js';
import { API, ok, otherWorkspace, workspaceWithProduct, type Workspace } from './fixtures.js';

/**
 * GET /tasks on large workspaces: date-range totals from per-day counters (exact whatever the
 * bounds and whichever way tasks moved), numbered pages within a window and a cursor beyond it.
 */
const STATUSES: TaskStatus[] = ['pending', 'generating', 'pending_selection', 'approved', 'failed'];
const DAYS = ['2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22'];

/** Inserts tasks straight into the table (the triggers see them as any writer's). */
async function insertTasks(db: Db, ws: Workspace, operatorId: number, rows: Array<{ productId: number; status: TaskStatus; createdAt: string }>, legacy: object = {}) {
  const ids: number[] = [];
  for (const row of rows) {
    const inserted = await db
      .insertInto('tasks')
      .values({
        workspace_id: ws.workspaceId,
        product_id: row.productId,
        operator_id: operatorId,
        theme: '规模',
        text_count: 1,
        image_count: 0,
        track: 'ai',
        status: row.status,
        need_product_image: false,
        overlay_text: true,
        progress: json(null),
        generation: 0,
        created_at: row.createdAt,
        updated_at: row.createdAt,
        ...legacy,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.push(inserted.id);
  }
  return ids;
}

describe('GET /tasks on large workspaces', () => {
  let server: TestServer;
  let ws: Workspace;
  let second: number;
  let ids: number[];

  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    ws = await workspaceWithProduct(server);
    second = (await ok(server, 'POST', '/products', ws.token, { name: '第二产品', category: '家居', source: 'custom' })).id;
    const me = await ok(server, 'GET', '/auth/me', ws.token);
    // 60 tasks: every day, both products, every status, at times that fall on and off midnight.
    const times = ['T00:00:00.000Z', 'T03:15:00.000Z', 'T08:30:00.000Z', 'T12:00:00.000Z', 'T23:59:59.999Z', 'T16:45:30.500Z'];
    const rows = [];
    for (let i = 0; i < 60; i++) {
      rows.push({ productId: i % 2 ? second : ws.productId, status: STATUSES[i % STATUSES.length]!, createdAt: `${DAYS[i % DAYS.length]}${times[i % times.length]}` });
    }
    ids = await insertTasks(server.ctx.db, ws, me.id, rows);
    // A foreign workspace's tasks on the same days must not count.
    const other = await otherWorkspace(server);
    await insertTasks(server.ctx.db, other, me.id, DAYS.map((day) => ({ productId: other.productId, status: 'pending' as const, createdAt: `${day}T10:00:00.000Z` })));
  });
  afterAll(async () => server?.close());

  const list = (query: string) => server.request('GET', `${API}/tasks?${query}`, { token: ws.token });

  const BOUNDS: Array<[from?: string, to?: string]> = [
    [undefined, undefined],
    ['2026-11-19', undefined],
    [undefined, '2026-11-20'],
    ['2026-11-19', '2026-11-21'],
    ['2026-11-20', '2026-11-20'],
    ['2026-11-19T08:30:00Z', undefined],
    [undefined, '2026-11-21T12:00:00Z'],
    ['2026-11-18T03:15:00Z', '2026-11-22T08:30:00Z'],
    ['2026-11-20T00:00:00Z', '2026-11-20T23:59:59.999Z'],
    ['2026-11-20T03:15:00Z', '2026-11-20T12:00:00Z'],
    ['2026-11-21T00:00:00Z', '2026-11-21T00:00:00Z'],
    ['2026-11-19T23:59:59.999Z', '2026-11-22'],
    ['2026-11-19', '2026-11-21T16:45:30.500Z'],
    ['2026-11-21T20:00:00-04:00', '2026-11-22T09:00:00+08:00'],
    ['2026-01-01', '2026-12-31'],
  ];

  async function expectExactTotals(label: string) {
    for (const [from, to] of BOUNDS) {
      for (const status of [undefined, 'approved', 'failed'] as const) {
        for (const productId of [undefined, ws.productId, second]) {
          const params = new URLSearchParams({ page_size: '5' });
          if (from) params.set('date_from', from);
          if (to) params.set('date_to', to);
          if (status) params.set('status', status);
          if (productId) params.set('product_id', String(productId));
          const res = await list(params.toString());
          expect(res.status, `${label} ${params}`).toBe(200);
          // The same filter applied to every row of the workspace, in JavaScript.
          const items = await allItems(params);
          expect(res.body.data.total, `${label} ${params}`).toBe(items);
        }
      }
    }
  }

  /** Counts the matching tasks straight from the table, with the bounds as the contract reads them. */
  async function allItems(params: URLSearchParams): Promise<number> {
    const bound = (raw: string | null, edge: 'start' | 'end') => {
      if (!raw) return undefined;
      if (/^\d{4}-\d{2}-\d{2}$/.test(raw)) return edge === 'start' ? Date.parse(`${raw}T00:00:00Z`) : Date.parse(`${raw}T00:00:00Z`) + 86_400_000 - 0.5;
      return Date.parse(raw);
    };
    const from = bound(params.get('date_from'), 'start');
    const to = bound(params.get('date_to'), 'end');
    const rows = await server.ctx.db.selectFrom('tasks').select(['status', 'product_id', 'created_at']).where('workspace_id', '=', ws.workspaceId).execute();
    return rows.filter((r) => {
      const at = Date.parse(r.created_at);
      return (
        (!params.get('status') || r.status === params.get('status')) &&
        (!params.get('product_id') || r.product_id === Number(params.get('product_id'))) &&
        (from === undefined || at >= from) &&
        (to === undefined || at <= to)
      );
    }).length;
  }

  it('counts every date range exactly, whole days and date-times, with every filter', async () => {
    await expectExactTotals('as inserted');
  });

  it('keeps the day counters exact when tasks change status, product, day or are deleted', async () => {
    await server.ctx.db.updateTable('tasks').set({ status: 'approved' }).where('id', 'in', ids.slice(0, 7)).execute();
    await server.ctx.db.updateTable('tasks').set({ product_id: second }).where('id', 'in', ids.slice(7, 12)).execute();
    // Moved to another day, and within its own day (the counters must not move then).
    await server.ctx.db.updateTable('tasks').set({ created_at: '2026-11-22T05:00:00.000Z' }).where('id', 'in', ids.slice(12, 16)).execute();
    await server.ctx.db.updateTable('tasks').set({ created_at: '2026-11-19T01:00:00.000Z' }).where('id', '=', ids[16]!).execute();
    await server.ctx.db.updateTable('tasks').set({ status: 'failed', created_at: '2026-11-18T22:00:00.000Z' }).where('id', '=', ids[17]!).execute();
    await server.ctx.db.deleteFrom('tasks').where('id', 'in', ids.slice(18, 22)).execute();
    await expectExactTotals('after moves');
    // Every counter row agrees with the rows it counts.
    const counters = await server.ctx.db.selectFrom('task_day_counts').selectAll().where('workspace_id', '=', ws.workspaceId).where('n', '<', 0).execute();
    expect(counters).toEqual([]);
  });

  it('keeps concurrent writers of one workspace from deadlocking on its counters', async () => {
    // Inserts and status moves of many tasks at once, each in its own transaction, as API
    // processes and workers do: every statement must succeed and the totals stay exact.
    const me = await ok(server, 'GET', '/auth/me', ws.token);
    const pool = await insertTasks(server.ctx.db, ws, me.id, STATUSES.map((status, i) => ({ productId: i % 2 ? second : ws.productId, status, createdAt: '2026-11-21T09:00:00.000Z' })));
    const writer = async (w: number) => {
      for (let i = 0; i < 25; i++) {
        await server.ctx.db.transaction().execute(async (trx) => {
          if ((i + w) % 2 === 0) {
            await insertTasks(trx as unknown as Db, ws, me.id, [{ productId: (i + w) % 3 ? second : ws.productId, status: STATUSES[(i * w) % STATUSES.length]!, createdAt: '2026-11-21T10:00:00.000Z' }]);
          } else {
            const id = pool[(i + w) % pool.length]!;
            await trx.updateTable('tasks').set({ status: STATUSES[(i + 2 * w) % STATUSES.length]!, product_id: (i + w) % 4 ? ws.productId : second }).where('id', '=', id).execute();
          }
        });
      }
    };
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, w) => writer(w)));
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    await expectExactTotals('after concurrent writers');
  });

  it('pages by number within the window and refuses deeper pages with a pointer to the cursor', async () => {
    // Past the last task a page is empty and still carries the total of its filters.
    for (const filter of ['', '&status=approved', `&product_id=${second}&date_from=2026-11-19T08:30:00Z&date_to=2026-11-21`]) {
      for (const query of [`page=500&page_size=20${filter}`, `page=100&page_size=100${filter}`]) {
        const res = await list(query);
        expect(res.status, query).toBe(200);
        expect(res.body.data.items, query).toEqual([]);
        expect(res.body.data.total, query).toBe(await allItems(new URLSearchParams(filter)));
        expect(res.body.data.next_cursor).toBeNull();
      }
    }
    for (const query of ['page=501&page_size=20', 'page=101&page_size=100', 'page=1000000']) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect(res.body.code).toBe(40000);
      expect(res.body.message).toMatch(/cursor/);
    }
  });

  it('reads the whole list by cursor in the same order as by page, filters kept, total unchanged', async () => {
    for (const filter of ['', '&status=approved', `&product_id=${second}&date_from=2026-11-19T08:30:00Z`]) {
      const byPage: number[] = [];
      for (let page = 1; ; page++) {
        const res = await list(`page=${page}&page_size=7${filter}`);
        byPage.push(...res.body.data.items.map((t: any) => t.id));
        if (res.body.data.items.length < 7) break;
      }
      const byCursor: number[] = [];
      let cursor: string | null = null;
      let total: number | undefined;
      let pages = 0;
      do {
        const res = await list(`page_size=7${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status).toBe(200);
        total ??= res.body.data.total;
        expect(res.body.data.total).toBe(total);
        byCursor.push(...res.body.data.items.map((t: any) => t.id));
        cursor = res.body.data.next_cursor;
        pages++;
      } while (cursor);
      expect(byCursor, filter).toEqual(byPage);
      expect(byCursor.length).toBe(total);
      expect(pages).toBe(Math.floor(total! / 7) + 1);
    }
  });

  it('refuses a cursor it did not give out, and a cursor with a page number', async () => {
    const first = await list('page_size=3');
    const cursor = first.body.data.next_cursor as string;
    expect(typeof cursor).toBe('string');
    const bad = [
      'nonsense',
      Buffer.from('2026-11-22|1').toString('base64url'),
      Buffer.from('2026-11-22T00:00:00.000Z|0').toString('base64url'),
      Buffer.from("2026-11-22T00:00:00.000Z|1' OR 1=1").toString('base64url'),
    ];
    for (const c of bad) {
      const res = await list(`cursor=${encodeURIComponent(c)}`);
      expect(res.status, c).toBe(400);
      expect(res.body.code).toBe(40000);
    }
    const withPage = await list(`page=2&cursor=${encodeURIComponent(cursor)}`);
    expect(withPage.status).toBe(400);
    // Another workspace's cursor is only a position: it shows that workspace nothing of this one.
    const other = await otherWorkspace(server);
    const foreign = await server.request('GET', `${API}/tasks?cursor=${encodeURIComponent(cursor)}`, { token: other.token });
    expect(foreign.status).toBe(200);
    expect(foreign.body.data.items.every((t: any) => !ids.includes(t.id))).toBe(true);
  });
});

describe('migration 20261124_0200_task_day_counts', () => {
  it('counts the tasks already there per day, and goes back down', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-migrate-'));
    const pgDb = usingPostgres ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
    const database = openDatabase({ databaseUrl: pgDb?.url, dataDir });
    try {
      const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('20261123_0200_task_list_versions')).error).toBeUndefined();
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
      await insertTasks(db, ws, user.id, [
        { productId: product.id, status: 'pending', createdAt: '2026-11-20T23:59:59.999Z' },
        { productId: product.id, status: 'pending', createdAt: '2026-11-20T00:00:00.000Z' },
        { productId: product.id, status: 'failed', createdAt: '2026-11-21T00:00:00.000Z' },
      ], LEGACY_TASK);
      expect((await migrator.migrateTo('20261124_0200_task_day_counts')).error).toBeUndefined();
      const rows = await db.selectFrom('task_day_counts').select(['product_id', 'status', 'day', 'n']).orderBy('day').orderBy('product_id').orderBy('status').execute();
      expect(rows).toEqual([
        { product_id: 0, status: '*', day: '2026-11-20', n: 2 },
        { product_id: 0, status: 'pending', day: '2026-11-20', n: 2 },
        { product_id: product.id, status: '*', day: '2026-11-20', n: 2 },
        { product_id: product.id, status: 'pending', day: '2026-11-20', n: 2 },
        { product_id: 0, status: '*', day: '2026-11-21', n: 1 },
        { product_id: 0, status: 'failed', day: '2026-11-21', n: 1 },
        { product_id: product.id, status: '*', day: '2026-11-21', n: 1 },
        { product_id: product.id, status: 'failed', day: '2026-11-21', n: 1 },
      ]);
      expect((await migrator.migrateTo('20261123_0200_task_list_versions')).error).toBeUndefined();
      // Down again: no table and no trigger left behind (an insert would fail on a dangling trigger).
      await insertTasks(db, ws, user.id, [{ productId: product.id, status: 'pending', createdAt: now }], LEGACY_TASK);
      expect((await migrator.migrateTo('20261124_0200_task_day_counts')).error).toBeUndefined();
    } finally {
      await database.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
