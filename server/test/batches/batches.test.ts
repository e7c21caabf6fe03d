import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobBackend } from '../../src/jobs/types.js';
import { BatchSweeper } from '../../src/modules/batches/jobs.js';
import { feedBatch } from '../../src/modules/batches/service.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { API, ok, otherWorkspace, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';

/**
 * Batches (issue 32) through the HTTP API on a real database: creation from items and from a
 * matrix spread over accounts and days, all-or-nothing validation, idempotency, the feeder's
 * window, cancel, a plan file (CSV and XLSX) with its row errors, and isolation. Nothing runs the
 * queue here (worker off), so what is stored and released is seen as the request left it.
 */

let server: TestServer;
let ws: Workspace;
let secondProduct: number;
let accounts: { shanghai: number; london: number };

const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  server.request(method, `${API}${path}`, { token: ws.token, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });
const count = async (table: 'tasks' | 'batches' | 'batch_items') => Number((await server.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
/** The day after tomorrow (UTC), so every slot of a short plan lies ahead whatever the hour. */
const dayAhead = (days: number) => new Date(server.clock.now().getTime() + days * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  server = await startTestServer({ worker: false, env: { BATCH_PARALLEL_TASKS: '2' } });
  ws = await workspaceWithProduct(server);
  secondProduct = (await ok(server, 'POST', '/products', ws.token, { name: '晨露精华', category: '护肤', source: 'custom' })).id;
  accounts = {
    shanghai: (await ok(server, 'POST', '/accounts', ws.token, { name: '小美日常', timezone: 'Asia/Shanghai' })).id,
    london: (await ok(server, 'POST', '/accounts', ws.token, { name: '伦敦代购', timezone: 'Europe/London' })).id,
  };
}, 60_000);

afterAll(async () => server?.close());

describe('creating a batch', () => {
  it('expands a matrix into tasks that cycle through products, spread over accounts, days and times in each account’s zone', async () => {
    const start = dayAhead(2);
    const res = await call('POST', '/batches', {
      name: '十二月第一周',
      matrix: {
        product_ids: [ws.productId, secondProduct],
        themes: ['早八通勤', '熬夜急救'],
        text_count: 2,
        image_count: 1,
        fission_count: 3,
        account_ids: [accounts.shanghai, accounts.london],
        start_date: start,
        days: 2,
        post_times: ['20:00', '09:00'],
      },
    });
    expect(res.status).toBe(200);
    const batch = res.body.data;
    expect(batch).toMatchObject({ name: '十二月第一周', status: 'running', total: 4, allowed_actions: ['cancel'] });
    expect(batch.items.map((i: any) => [i.seq, i.product_id, i.theme])).toEqual([
      [1, ws.productId, '早八通勤'],
      [2, secondProduct, '早八通勤'],
      [3, ws.productId, '熬夜急救'],
      [4, secondProduct, '熬夜急救'],
    ]);
    // Slots by day, then time (09:00 before 20:00), then account: 09:00 Shanghai is 01:00 UTC;
    // 09:00 London in December (GMT) is 09:00 UTC.
    expect(batch.items.map((i: any) => [i.account_name, i.publish_at])).toEqual([
      ['小美日常', `${start}T01:00:00.000Z`],
      ['伦敦代购', `${start}T09:00:00.000Z`],
      ['小美日常', `${start}T12:00:00.000Z`],
      ['伦敦代购', `${start}T20:00:00.000Z`],
    ]);
    expect(batch.items.every((i: any) => i.fission_count === 3 && i.text_count === 2 && i.image_count === 1 && i.state === 'waiting' && i.task_status === 'pending')).toBe(true);

    // The tasks are real tasks of the workspace, meant for the planned account.
    const task = await ok(server, 'GET', `/tasks/${batch.items[1].task_id}`, ws.token);
    expect(task).toMatchObject({ product_id: secondProduct, theme: '早八通勤', status: 'pending' });
    const stored = await server.ctx.db.selectFrom('tasks').select(['account_id', 'batch_id']).where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(stored).toEqual({ account_id: accounts.london, batch_id: batch.id });

    // Only BATCH_PARALLEL_TASKS (2) of them are handed to the queue; the rest wait their turn.
    const released = await server.ctx.db.selectFrom('batch_items').select(['seq', 'released_at']).where('batch_id', '=', batch.id).orderBy('seq').execute();
    expect(released.map((r) => r.released_at !== null)).toEqual([true, true, false, false]);
    const queue = server.ctx.queue as JobBackend;
    expect(await queue.hasLiveJob('batch.task', batch.items[0].task_id)).toBe(true);
    expect(await queue.hasLiveJob('batch.task', batch.items[2].task_id)).toBe(false);
  });

  it('takes items as given, each checked as a task would be; one refused item refuses the whole request and stores nothing', async () => {
    const before = { tasks: await count('tasks'), batches: await count('batches') };
    const bad = await call('POST', '/batches', {
      name: '有一项错',
      items: [
        { product_id: ws.productId, theme: '好的一项', text_count: 3, image_count: 0 },
        { product_id: 999_999, theme: '产品不存在', text_count: 3, image_count: 0 },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe('batch.item_invalid');
    expect(bad.body.params).toMatchObject({ index: 2, reason: 'product.id_not_found' });
    expect({ tasks: await count('tasks'), batches: await count('batches') }).toEqual(before);

    const unaccounted = await call('POST', '/batches', { name: 'x', items: [{ product_id: ws.productId, theme: '有时间没账号', text_count: 1, image_count: 0, publish_at: new Date(server.clock.now().getTime() + 86_400_000).toISOString() }] });
    expect(unaccounted.body).toMatchObject({ reason: 'batch.item_invalid', params: { index: 1, reason: 'plan.time_without_account' } });
    const past = await call('POST', '/batches', { name: 'x', items: [{ product_id: ws.productId, theme: '已过去', text_count: 1, image_count: 0, account_id: accounts.shanghai, publish_at: '2020-01-01T00:00:00Z' }] });
    expect(past.body).toMatchObject({ reason: 'batch.item_invalid', params: { index: 1, reason: 'plan.time_past' } });

    const both = await call('POST', '/batches', { name: 'x', items: [{ product_id: ws.productId, theme: 't', text_count: 1, image_count: 0 }], matrix: { product_ids: [ws.productId], themes: ['t'], text_count: 1, image_count: 0 } });
    expect(both.body.reason).toBe('batch.items_or_matrix');
    const neither = await call('POST', '/batches', { name: 'x' });
    expect(neither.body.reason).toBe('batch.items_or_matrix');

    const cramped = await call('POST', '/batches', {
      name: 'x',
      matrix: { product_ids: [ws.productId, secondProduct], themes: ['a', 'b'], text_count: 1, image_count: 0, account_ids: [accounts.shanghai], start_date: dayAhead(2), days: 1, post_times: ['09:00', '20:00'] },
    });
    expect(cramped.status).toBe(400);
    expect(cramped.body).toMatchObject({ reason: 'batch.schedule_too_small', params: { items: 4, slots: 2 } });

    const huge = await call('POST', '/batches', { name: 'x', matrix: { product_ids: [ws.productId, secondProduct], themes: Array.from({ length: 26 }, (_, i) => `主题${i}`), tasks_each: 10, text_count: 1, image_count: 0 } });
    expect(huge.body).toMatchObject({ reason: 'batch.too_many_items', params: { max: 500 } });
    expect({ tasks: await count('tasks'), batches: await count('batches') }).toEqual(before);
  });

  it('answers a repeat with the same Idempotency-Key with the first batch, and refuses the key for another request', async () => {
    const body = { name: '重复提交', items: [{ product_id: ws.productId, theme: '只建一次', text_count: 1, image_count: 0 }] };
    const key = { 'idempotency-key': `batch-${Math.random()}` };
    const first = await call('POST', '/batches', body, key);
    const tasks = await count('tasks');
    const again = await call('POST', '/batches', body, key);
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(await count('tasks')).toBe(tasks);
    const other = await call('POST', '/batches', { ...body, name: '另一个批次' }, key);
    expect(other.status).toBe(409);
    expect(other.body.reason).toBe('batch.idempotency_reused');
  });
});

describe('feeding a batch', () => {
  it('releases the next task when one fails, and finishes the batch once every task has settled', async () => {
    const created = (await call('POST', '/batches', { name: '有一个失败', matrix: { product_ids: [ws.productId], themes: ['甲', '乙', '丙'], text_count: 1, image_count: 0 } })).body.data;
    const released = async () =>
      (await server.ctx.db.selectFrom('batch_items').select(['seq', 'released_at']).where('batch_id', '=', created.id).orderBy('seq').execute()).map((r) => r.released_at !== null);
    expect(await released()).toEqual([true, true, false]);
    const sweeper = new BatchSweeper(server.ctx);
    const settle = async (seq: number, status: 'failed' | 'pending_selection') =>
      server.ctx.db.updateTable('tasks').set({ status, ...(status === 'failed' ? { failure_key: 'failure.generation_stopped', failure_params: JSON.stringify({ detail: 'x' }) } : {}) }).where('id', '=', created.items[seq - 1].task_id).execute();
    // The first task fails: its place goes to the third; the others are not held up.
    await settle(1, 'failed');
    await sweeper.sweep();
    expect(await released()).toEqual([true, true, true]);
    let batch = await ok(server, 'GET', `/batches/${created.id}`, ws.token);
    expect(batch).toMatchObject({ status: 'running', counts: { failed: 1, waiting: 2 } });
    await settle(2, 'pending_selection');
    await settle(3, 'pending_selection');
    await sweeper.sweep();
    batch = await ok(server, 'GET', `/batches/${created.id}`, ws.token);
    expect(batch).toMatchObject({ status: 'finished', eta: null, counts: { done: 2, failed: 1, waiting: 0, running: 0 } });
    expect(batch.finished_at).not.toBeNull();
    expect(batch.items[0]).toMatchObject({ state: 'failed', failure: { reason: 'failure.generation_stopped' } });
  });

  it('keeps to the window when several tasks finish at once and each feeds the batch', async () => {
    const themes = Array.from({ length: 30 }, (_, i) => `同时完成 ${i + 1}`);
    const created = (await call('POST', '/batches', { name: '同时完成', matrix: { product_ids: [ws.productId], themes, text_count: 1, image_count: 0 } })).body.data;
    const inFlight = () =>
      server.ctx.db.selectFrom('batch_items as i').innerJoin('tasks as t', 't.id', 'i.task_id').select('t.id').where('i.batch_id', '=', created.id).where('i.released_at', 'is not', null).where('t.status', '=', 'pending').execute();
    expect(await inFlight()).toHaveLength(2);
    // Round after round one task in flight finishes and eight feeds run at once (the finished
    // tasks' and the sweep's): each round fills the one free place, never more.
    for (let round = 0; round < 12; round++) {
      const [first] = await inFlight();
      await server.ctx.db.updateTable('tasks').set({ status: 'pending_selection' }).where('id', '=', first!.id).execute();
      const releasedNow = await Promise.all(Array.from({ length: 8 }, () => feedBatch(server.ctx, created.id)));
      expect(releasedNow.reduce((a, b) => a + b, 0), `round ${round}`).toBe(1);
      expect(await inFlight(), `round ${round}`).toHaveLength(2);
    }
  });
});

describe('cancelling a batch', () => {
  it('fails the tasks not started as cancelled, shows them so, and refuses a second cancel', async () => {
    const created = (await call('POST', '/batches', { name: '要取消的', matrix: { product_ids: [ws.productId], themes: ['一', '二', '三'], text_count: 1, image_count: 0 } })).body.data;
    // One task is running when the cancel comes: it is left to finish.
    await server.ctx.db.updateTable('tasks').set({ status: 'generating' }).where('id', '=', created.items[0].task_id).execute();
    const cancelled = await call('POST', `/batches/${created.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', allowed_actions: [], counts: { running: 1, cancelled: 2, waiting: 0 } });
    const task = await ok(server, 'GET', `/tasks/${created.items[2].task_id}`, ws.token);
    expect(task).toMatchObject({ status: 'failed', failure_key: 'failure.batch_cancelled' });
    expect(cancelled.body.data.items[2]).toMatchObject({ state: 'cancelled', failure: { reason: 'failure.batch_cancelled' } });
    const again = await call('POST', `/batches/${created.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ reason: 'batch.not_running', params: { status: 'cancelled' } });
  });
});

describe('a plan file', () => {
  const upload = async (file: Buffer, name: string) => {
    const form = new FormData();
    form.append('file', new Blob([file]), name);
    const res = await fetch(`${server.url}${API}/batches/plan`, { method: 'POST', headers: { authorization: `Bearer ${ws.token}` }, body: form });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('reads a CSV into items and lists every row it cannot use with its reason', async () => {
    const day = dayAhead(3);
    const csv = [
      '批量计划（十二月）',
      '产品,主题,文案数,图片数,裂变数,账号,发布时间',
      `云朵保湿霜,早八通勤,2,1,0,小美日常,${day} 09:30`,
      `${secondProduct},熬夜急救,,,2,,`,
      '不存在的产品,主题一,3,3,0,,',
      `云朵保湿霜,,3,3,0,,`,
      `云朵保湿霜,图太多,3,12,0,,`,
      `云朵保湿霜,时间不对,3,3,0,小美日常,明天中午`,
      `云朵保湿霜,已经过去,3,3,0,小美日常,2020-01-01 12:00`,
      `云朵保湿霜,没有账号,3,3,0,,${day} 12:00`,
      `云朵保湿霜,账号不对,3,3,0,别人的号,`,
      ',,,,,,',
    ].join('\r\n');
    const res = await upload(Buffer.from(csv, 'utf8'), 'plan.csv');
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual([
      { product_id: ws.productId, theme: '早八通勤', text_count: 2, image_count: 1, fission_count: 0, account_id: accounts.shanghai, publish_at: `${day}T01:30:00.000Z` },
      { product_id: secondProduct, theme: '熬夜急救', text_count: 3, image_count: 3, fission_count: 2 },
    ]);
    expect(res.body.data.errors.map((e: any) => [e.row, e.field, e.reason])).toEqual([
      [5, 'product', 'plan.unknown_product'],
      [6, 'theme', 'plan.blank_theme'],
      [7, 'image_count', 'plan.bad_number'],
      [8, 'publish_at', 'plan.bad_time'],
      [9, 'publish_at', 'plan.time_past'],
      [10, 'publish_at', 'plan.time_without_account'],
      [11, 'account', 'plan.unknown_account'],
    ]);
    expect(res.body.data.errors[2].params).toEqual({ field: '图片数', value: '12', min: 0, max: 9 });

    // The items it answered are a batch as they stand.
    const created = await call('POST', '/batches', { name: '来自计划', items: res.body.data.items });
    expect(created.status).toBe(200);
    expect(created.body.data.items[0]).toMatchObject({ account_name: '小美日常', publish_at: `${day}T01:30:00.000Z` });
  });

  it('reads an XLSX plan, an Excel date cell as the wall-clock time in the account’s zone, and a GB18030 CSV', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('计划');
    sheet.addRow(['产品', '主题', '账号', '发布时间']);
    const day = dayAhead(4);
    sheet.addRow(['晨露精华', '周末出游', '伦敦代购', new Date(`${day}T18:00:00Z`)]);
    const xlsx = await upload(Buffer.from(await workbook.xlsx.writeBuffer()), 'plan.xlsx');
    expect(xlsx.status).toBe(200);
    expect(xlsx.body.data.errors).toEqual([]);
    // 18:00 in London in winter is 18:00 UTC.
    expect(xlsx.body.data.items).toEqual([{ product_id: secondProduct, theme: '周末出游', text_count: 3, image_count: 3, fission_count: 0, account_id: accounts.london, publish_at: `${day}T18:00:00.000Z` }]);

    const gbk = Buffer.from([0xb2, 0xfa, 0xc6, 0xb7, 0x2c, 0xd6, 0xf7, 0xcc, 0xe2, 0x0d, 0x0a]); // "产品,主题\r\n" in GB18030
    const row = Buffer.concat([gbk, Buffer.from(`${ws.productId},`), Buffer.from([0xb6, 0xac, 0xbc, 0xbe]), Buffer.from('\r\n')]); // "冬季"
    const csv = await upload(row, 'plan.csv');
    expect(csv.status).toBe(200);
    expect(csv.body.data.items).toEqual([{ product_id: ws.productId, theme: '冬季', text_count: 3, image_count: 3, fission_count: 0 }]);
  });

  it('refuses a file it cannot read, one without the header, and one without rows', async () => {
    const garbage = await upload(Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5]), 'x.xlsx');
    expect(garbage.status).toBe(400);
    expect(garbage.body.reason).toBe('batch.plan_unreadable');
    const headless = await upload(Buffer.from('名称,说明\n一,二\n'), 'x.csv');
    expect(headless.body.reason).toBe('batch.plan_no_header');
    const empty = await upload(Buffer.from('产品,主题\n'), 'x.csv');
    expect(empty.body.reason).toBe('batch.plan_empty');
  });
});

describe('isolation', () => {
  it('answers another workspace’s batch as not found, and lists only the workspace’s own', async () => {
    const mine = (await call('POST', '/batches', { name: '我的', items: [{ product_id: ws.productId, theme: '隔离', text_count: 1, image_count: 0 }] })).body.data;
    const other = await otherWorkspace(server);
    const foreign = (path: string, method = 'GET') => server.request(method, `${API}${path}`, { token: other.token });
    expect((await foreign(`/batches/${mine.id}`)).body.reason).toBe('batch.not_found');
    expect((await foreign(`/batches/${mine.id}/cancel`, 'POST')).body.reason).toBe('batch.not_found');
    expect((await foreign('/batches')).body.data.total).toBe(0);
    // A plan names only the workspace's own products and accounts.
    const form = new FormData();
    form.append('file', new Blob([`产品,主题,账号\n${ws.productId},别人的产品,\n别家产品,自己的,小美日常\n`]), 'p.csv');
    const read: any = await (await fetch(`${server.url}${API}/batches/plan`, { method: 'POST', headers: { authorization: `Bearer ${other.token}` }, body: form })).json();
    expect(read.data.errors.map((e: any) => e.reason)).toEqual(['plan.unknown_product', 'plan.unknown_account']);
    const listed = await ok(server, 'GET', '/batches?page_size=100', ws.token);
    expect(listed.items.map((b: any) => b.id)).toContain(mine.id);
  });
});
