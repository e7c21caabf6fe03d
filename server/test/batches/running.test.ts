import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../generation/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { API, ok, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';

/**
 * A batch run by the worker with the offline `local` provider: its tasks go through the `bulk`
 * lane two at a time, each finished task's planned fission starts, the batch finishes when both
 * are done, and a planned post reaches the calendar once its note is approved.
 */

let server: TestServer;
let ws: Workspace;

beforeAll(async () => {
  server = await startTestServer({ worker: true, env: { BATCH_PARALLEL_TASKS: '2', BATCH_SWEEP_MS: '100', JOB_BULK_CONCURRENCY: '2' } });
  ws = await workspaceWithProduct(server);
}, 60_000);

afterAll(async () => server?.close());

const batchOf = (id: number) => ok(server, 'GET', `/batches/${id}`, ws.token);

describe('a batch run by the worker', () => {
  it('runs every task, never more than the window at once, starts the planned fissions and finishes', async () => {
    const created = await ok(server, 'POST', '/batches', ws.token, {
      name: '五个任务',
      matrix: { product_ids: [ws.productId], themes: ['一', '二', '三', '四', '五'], text_count: 1, image_count: 1, fission_count: 2 },
    });
    let widest = 0;
    const finished = await waitFor(async () => {
      const batch = await batchOf(created.id);
      const inFlight = await server.ctx.db
        .selectFrom('batch_items as i')
        .innerJoin('tasks as t', 't.id', 'i.task_id')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('i.batch_id', '=', created.id)
        .where('i.released_at', 'is not', null)
        .where('t.status', 'in', ['pending', 'generating'])
        .executeTakeFirstOrThrow();
      widest = Math.max(widest, Number(inFlight.n));
      return batch.status === 'finished' ? batch : undefined;
    }, 60_000);
    expect(widest).toBeLessThanOrEqual(2);
    expect(finished.counts).toEqual({ waiting: 0, running: 0, done: 5, failed: 0, cancelled: 0 });
    expect(finished.rate_per_minute).toBeGreaterThan(0);
    expect(finished.eta).toBeNull();
    expect(finished.finished_at).not.toBeNull();
    for (const item of finished.items) {
      expect(item.task_status).toBe('pending_selection');
      expect(item.fission_id).not.toBeNull();
      expect(item.fission_status).toBe('completed');
    }
    // The fissions are the batch's: paced and queued as bulk work.
    const fissions = await server.ctx.db.selectFrom('fission_tasks').select(['batch_id', 'fanout_count']).where('id', 'in', finished.items.map((i: any) => i.fission_id)).execute();
    expect(fissions.every((f) => f.batch_id === created.id && f.fanout_count === 2)).toBe(true);
  }, 90_000);

  it('puts a planned post on the calendar once its note is approved, and keeps the reason when the account refuses it', async () => {
    const account = await ok(server, 'POST', '/accounts', ws.token, { name: '批量号', timezone: 'Asia/Shanghai', daily_cap: 1 });
    const day = new Date(server.clock.now().getTime() + 3 * 86_400_000).toISOString().slice(0, 10);
    const created = await ok(server, 'POST', '/batches', ws.token, {
      name: '带发布计划',
      items: [
        { product_id: ws.productId, theme: '计划发布一', text_count: 1, image_count: 1, account_id: account.id, publish_at: `${day}T02:00:00Z` },
        // Same local day on an account that posts once a day: the second post is refused.
        { product_id: ws.productId, theme: '计划发布二', text_count: 1, image_count: 1, account_id: account.id, publish_at: `${day}T10:00:00Z` },
      ],
    });
    const done = await waitFor(async () => {
      const batch = await batchOf(created.id);
      return batch.status === 'finished' ? batch : undefined;
    }, 60_000);
    // Approve both notes: the selected text of set A goes for review, a supervisor approves.
    const supervisorToken = ws.token;
    for (const item of done.items) {
      const detail = await ok(server, 'GET', `/tasks/${item.task_id}`, ws.token);
      const text = detail.text_candidates.find((t: any) => t.strategy === 'A');
      if (!text.is_selected) await ok(server, 'POST', `/tasks/${item.task_id}/text-candidates/select`, ws.token, { candidate_id: text.candidate_id, selected: true });
      await ok(server, 'POST', `/tasks/${item.task_id}/submit-review`, ws.token, { note: '批量测试' });
      await ok(server, 'POST', `/review/${item.task_id}/approve`, supervisorToken);
    }
    const placed = await waitFor(async () => {
      const batch = await batchOf(created.id);
      return batch.items.every((i: any) => i.post_id !== null || i.post_failure !== null) ? batch : undefined;
    }, 30_000);
    const [first, second] = placed.items;
    expect(first.post_failure).toBeNull();
    const post = await ok(server, 'GET', `/posts/${first.post_id}`, ws.token);
    expect(post).toMatchObject({ account_id: account.id, scheduled_at: `${day}T02:00:00.000Z`, status: 'scheduled' });
    expect(second.post_id).toBeNull();
    expect(second.post_failure.reason).toBe('post.daily_cap');
  }, 120_000);
});
