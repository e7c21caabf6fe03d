import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskStatus } from '../../src/db/schema.js';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { imageBytes, seedImage, seedProduct, seedTask, seedText, workspaceOf } from '../delivery/fixtures.js';

const TEXT_CANDIDATE_KEYS = [
  'angle_label',
  'banned_hits',
  'banned_word_status',
  'candidate_id',
  'content',
  'cover_title',
  'edited',
  'image_brief',
  'is_selected',
  'score',
  'source',
  'strategy',
  'summary',
  'tags',
  'title',
  'verdict',
];
const IMAGE_CANDIDATE_KEYS = ['ai_visual_note', 'ai_visual_score', 'candidate_id', 'caption', 'error_key', 'error_kind', 'error_params', 'instruction', 'is_regen', 'is_selected', 'role', 'seq', 'source', 'status', 'strategy', 'url'];

describe('review', () => {
  let server: TestServer;
  let operator: { token: string; id: number };
  let supervisor: { token: string; id: number };
  let supervisor2: { token: string; id: number };
  let ws: number;
  let productId: number;

  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.adminToken();
    operator = await userWithRole(server, 'writer', 'operator');
    supervisor = await userWithRole(server, 'boss', 'supervisor');
    supervisor2 = await userWithRole(server, 'boss2', 'supervisor');
    ws = await workspaceOf(server, admin);
    productId = await seedProduct(server, ws, '保温杯');
  });
  afterAll(async () => server?.close());

  const newTask = async (status: TaskStatus, withSelection = true) => {
    const id = await seedTask(server, { workspaceId: ws, productId, operatorId: operator.id, status });
    const task = { id, workspaceId: ws };
    if (withSelection) await seedText(server, task, { strategy: 'A', selected: true, angle: '通勤保温' });
    return task;
  };
  const post = (path: string, token: string, body?: unknown) => server.request('POST', `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) });
  const taskStatus = async (id: number) =>
    (await server.ctx.db.selectFrom('tasks').select(['status', 'review_status', 'reject_reason', 'reviewed_at', 'submitted_at', 'submitted_by']).where('id', '=', id).executeTakeFirstOrThrow());
  const signals = async (taskId: number) => (await server.request('GET', `/api/v1/tasks/${taskId}/preference/signals`, { token: operator.token })).body.data.items;

  it('submits from pending_selection with a selected text, and from nothing else', async () => {
    const task = await newTask('pending_selection');
    const res = await post(`/tasks/${task.id}/submit-review`, operator.token);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ task_id: task.id, status: 'pending_review', review_status: 'pending' });
    const row = await taskStatus(task.id);
    expect(row.status).toBe('pending_review');
    expect(row.submitted_by).toBe(operator.id);
    expect(row.submitted_at).toBe(res.body.data.submitted_at);

    const unselected = await newTask('pending_selection', false);
    await seedText(server, unselected, { strategy: 'A', selected: false });
    const refused = await post(`/tasks/${unselected.id}/submit-review`, operator.token);
    expect([refused.status, refused.body.code]).toEqual([409, 40900]);
    expect((await taskStatus(unselected.id)).status).toBe('pending_selection');

    for (const status of ['pending', 'generating', 'pending_review', 'approved', 'rejected', 'archived', 'failed'] as const) {
      const other = await newTask(status);
      const r = await post(`/tasks/${other.id}/submit-review`, operator.token);
      expect([r.status, r.body.code], status).toEqual([409, 40900]);
      expect((await taskStatus(other.id)).status).toBe(status);
    }
    expect((await post('/tasks/999999/submit-review', operator.token)).status).toBe(404);

    const events = await server.ctx.events.replay(task.id, 0);
    expect(events.map((e) => [e.name, e.data])).toEqual([['status', { task_id: task.id, status: 'pending_review' }]]);
  });

  it('approves and rejects only from pending_review, and only as supervisor or admin', async () => {
    const task = await newTask('pending_selection');
    for (const action of ['approve', 'reject']) {
      const early = await post(`/review/${task.id}/${action}`, supervisor.token, action === 'reject' ? { reason: 'x' } : undefined);
      expect([early.status, early.body.code], action).toEqual([409, 40900]);
    }
    await post(`/tasks/${task.id}/submit-review`, operator.token);
    const forbidden = await post(`/review/${task.id}/approve`, operator.token);
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 40300]);
    const forbiddenReject = await post(`/review/${task.id}/reject`, operator.token, { reason: 'no' });
    expect([forbiddenReject.status, forbiddenReject.body.code]).toEqual([403, 40300]);

    const approved = await post(`/review/${task.id}/approve`, supervisor.token);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.data).toMatchObject({ status: 'approved', review_status: 'approved', reject_reason: null });
    expect(approved.body.data.reviewed_at).toEqual(expect.any(String));
    for (const action of ['approve', 'reject']) {
      const again = await post(`/review/${task.id}/${action}`, supervisor.token, action === 'reject' ? { reason: 'x' } : undefined);
      expect([again.status, again.body.code], action).toEqual([409, 40900]);
    }
    expect((await post(`/tasks/${task.id}/submit-review`, operator.token)).status).toBe(409);

    const recorded = await signals(task.id);
    expect(recorded.map((s: any) => [s.signal_type, s.weight, s.strategy, s.angle_label, s.user_id])).toEqual([['approve', 5, 'A', '通勤保温', supervisor.id]]);
    expect((await post('/review/999999/approve', supervisor.token)).status).toBe(404);
  });

  it('rejects with the reason verbatim, back to pending_selection; final ends the task; history keeps every step', async () => {
    const task = await newTask('pending_selection');
    await post(`/tasks/${task.id}/submit-review`, operator.token);
    const blank = await post(`/review/${task.id}/reject`, supervisor.token, { reason: '   ' });
    expect([blank.status, blank.body.code]).toEqual([400, 40000]);
    const missing = await post(`/review/${task.id}/reject`, supervisor.token, {});
    expect([missing.status, missing.body.code]).toEqual([400, 40000]);

    const reason = '  标题太夸张了，“最强”不能用！\n换成真实体验 😅 ';
    const rejected = await post(`/review/${task.id}/reject`, supervisor.token, { reason });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body.data).toMatchObject({ status: 'pending_selection', review_status: 'rejected', reject_reason: reason });
    const row = await taskStatus(task.id);
    expect(row.reject_reason).toBe(reason);
    expect(row.reviewed_at).toEqual(expect.any(String));
    const listed = await server.request('GET', `/api/v1/tasks/${task.id}`, { token: operator.token });
    if (listed.status === 200) expect(listed.body.data).toMatchObject({ reject_reason: reason, review_status: 'rejected' });

    const resubmitted = await post(`/tasks/${task.id}/submit-review`, operator.token);
    expect(resubmitted.body.data.status).toBe('pending_review');
    const final = await post(`/review/${task.id}/reject`, supervisor2.token, { reason: '方向不对，不再继续', final: true });
    expect(final.body.data.status).toBe('rejected');
    const afterFinal = await post(`/tasks/${task.id}/submit-review`, operator.token);
    expect([afterFinal.status, afterFinal.body.code]).toEqual([409, 40900]);

    const history = await server.request('GET', `/api/v1/tasks/${task.id}/reviews`, { token: operator.token });
    expect(history.status).toBe(200);
    expect(history.body.data.total).toBe(4);
    expect(history.body.data.items.map((r: any) => [r.action, r.username, r.reason, r.final])).toEqual([
      ['submit', 'writer', null, false],
      ['reject', 'boss', reason, false],
      ['submit', 'writer', null, false],
      ['reject', 'boss2', '方向不对，不再继续', true],
    ]);
    const recorded = await signals(task.id);
    expect(recorded.map((s: any) => [s.signal_type, s.weight, s.reason])).toEqual([
      ['reject', -3, reason],
      ['reject', -3, '方向不对，不再继续'],
    ]);
    const statuses = (await server.ctx.events.replay(task.id, 0)).filter((e) => e.name === 'status').map((e) => (e.data as any).status);
    expect(statuses).toEqual(['pending_review', 'pending_selection', 'pending_review', 'rejected']);
  });

  it('lets exactly one of many concurrent reviewers decide', async () => {
    const task = await newTask('pending_selection');
    await post(`/tasks/${task.id}/submit-review`, operator.token);
    const attempts = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0
        ? post(`/review/${task.id}/approve`, i % 4 === 0 ? supervisor.token : supervisor2.token)
        : post(`/review/${task.id}/reject`, i % 4 === 1 ? supervisor.token : supervisor2.token, { reason: `reason ${i}` }),
    );
    const results = await Promise.all(attempts);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.body.code === 40900)).toHaveLength(11);
    const winner = results.find((r) => r.status === 200)!;
    expect((await taskStatus(task.id)).status).toBe(winner.body.data.status);
    const decisions = await server.ctx.db.selectFrom('reviews').select('action').where('task_id', '=', task.id).where('action', '!=', 'submit').execute();
    expect(decisions).toHaveLength(1);
    expect(await signals(task.id)).toHaveLength(1);
  });

  it('treats a task of another workspace as not found (404)', async () => {
    const task = await newTask('pending_selection');
    await post(`/tasks/${task.id}/submit-review`, operator.token);
    const admin = await server.adminToken();
    const other = await post('/workspaces', admin, { name: 'Elsewhere', slug: 'review-elsewhere' });
    const outsider = (await post('/workspaces/switch', admin, { workspace_id: other.body.data.id })).body.data.token as string;
    for (const [method, path, body] of [
      ['POST', `/tasks/${task.id}/submit-review`, undefined],
      ['POST', `/review/${task.id}/approve`, undefined],
      ['POST', `/review/${task.id}/reject`, { reason: 'x' }],
      ['GET', `/tasks/${task.id}/reviews`, undefined],
    ] as const) {
      const res = await server.request(method, `/api/v1${path}`, { token: outsider, ...(body ? { body } : {}) });
      expect([res.status, res.body.code], path).toEqual([404, 40400]);
    }
    const queue = await server.request('GET', '/api/v1/review/queue', { token: outsider });
    expect(queue.body.data.items).toEqual([]);
    expect((await taskStatus(task.id)).status).toBe('pending_review');
  });

  it('lists the queue oldest first, items exactly as the contract shapes them', async () => {
    const other = await userWithRole(server, 'reviewq', 'operator');
    const first = await newTask('pending_selection', false);
    await seedText(server, first, { strategy: 'A', selected: true, total: 82, title: 'A 入选' });
    const bestB = await seedText(server, first, { strategy: 'B', selected: true, total: 91, title: 'B 入选' });
    await seedText(server, first, { strategy: 'B', selected: false, total: 99 });
    await seedText(server, first, { strategy: 'C', selected: false, total: 70 });
    const png = await imageBytes({ color: '#445566' });
    await seedImage(server, first, { strategy: 'A', seq: 1, selected: true, data: png });
    const b2 = await seedImage(server, first, { strategy: 'B', seq: 2, role: 'pain', selected: true, data: png });
    const b1 = await seedImage(server, first, { strategy: 'B', seq: 1, role: 'hook', selected: true, data: png });
    await seedImage(server, first, { strategy: 'B', seq: 3, selected: false, data: png });
    await post(`/tasks/${first.id}/submit-review`, other.token);
    server.clock.advance(1000);
    const second = await newTask('pending_selection');
    await post(`/tasks/${second.id}/submit-review`, operator.token);

    const forbidden = await server.request('GET', '/api/v1/review/queue', { token: operator.token });
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 40300]);
    const queue = await server.request('GET', '/api/v1/review/queue?page_size=100', { token: supervisor.token });
    expect(queue.status, queue.text).toBe(200);
    const ids = queue.body.data.items.map((i: any) => i.task_id);
    expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(second.id));
    const submittedAts = queue.body.data.items.map((i: any) => i.submitted_at);
    expect([...submittedAts].sort()).toEqual(submittedAts);

    const item = queue.body.data.items.find((i: any) => i.task_id === first.id);
    expect(Object.keys(item).sort()).toEqual(['open_comments', 'operator_name', 'previous_rejection', 'product_name', 'providers', 'selected_image', 'selected_sets', 'selected_text', 'submit_note', 'submitted_at', 'task_id', 'theme']);
    expect(item).toMatchObject({ submit_note: null, previous_rejection: null, open_comments: 0 });
    // Seeded without a generation: no connection made any of it.
    expect(item.providers).toEqual({ text: null, vision: null, image: null });
    expect(item).toMatchObject({ product_name: '保温杯', theme: '夏日通勤', operator_name: 'reviewq' });
    expect(Object.keys(item.selected_text).sort()).toEqual(TEXT_CANDIDATE_KEYS);
    expect(item.selected_text.candidate_id).toBe(bestB);
    expect(Object.keys(item.selected_text.score).sort()).toEqual(['compliance', 'emotion', 'keyword', 'selling', 'title', 'total']);
    expect(item.selected_text.score.total).toBe(91);
    expect(Object.keys(item.selected_image).sort()).toEqual(IMAGE_CANDIDATE_KEYS);
    expect(item.selected_image.candidate_id).toBe(b1.id);
    expect(item.selected_sets.map((s: any) => [s.strategy, s.selected_text?.title ?? null, s.selected_images.map((i: any) => i.candidate_id)])).toEqual([
      ['A', 'A 入选', [expect.any(Number)]],
      ['B', 'B 入选', [b1.id, b2.id]],
      ['C', null, []],
    ]);
    // Image links are signed file links, fetchable without a bearer.
    expect((await fetch(`${server.url}${item.selected_image.url}`)).status).toBe(200);

    // Approved or rejected tasks leave the queue.
    await post(`/review/${first.id}/approve`, supervisor.token);
    const after = await server.request('GET', '/api/v1/review/queue?page_size=100', { token: supervisor.token });
    expect(after.body.data.items.map((i: any) => i.task_id)).not.toContain(first.id);
  });

  it('gives the reviewer context: the operator\'s note, the last rejection with the texts it rejected, open comments', async () => {
    const task = await newTask('pending_selection', false);
    const weak = await seedText(server, task, { strategy: 'A', selected: true, total: 74, title: '第一版标题', content: '第一行\n第二行写得太硬' });
    expect((await post(`/tasks/${task.id}/submit-review`, operator.token, { note: '客户点名要这个角度' })).status).toBe(200);
    const first = (await server.request('GET', '/api/v1/review/queue?page_size=100', { token: supervisor.token })).body.data.items.find((i: any) => i.task_id === task.id);
    expect(first).toMatchObject({ submit_note: '客户点名要这个角度', previous_rejection: null });
    await post(`/review/${task.id}/reject`, supervisor.token, { reason: '第二行太像广告' });

    // The operator fixes the text, answers a comment on its second line, and submits again.
    const comment = await post(`/tasks/${task.id}/comments`, supervisor.token, { body: '这一行改成自己的体验', anchor: { kind: 'text', candidate_id: weak, line: 2 } });
    expect(comment.status, comment.text).toBe(200);
    expect(comment.body.data).toMatchObject({ quote: '第二行写得太硬', resolved: false, author_name: 'boss', anchor: { kind: 'text', candidate_id: weak, line: 2 } });
    const general = (await post(`/tasks/${task.id}/comments`, supervisor.token, { body: '封面再亮一点' })).body.data;
    expect(general.anchor).toEqual({ kind: 'task' });
    expect((await post(`/tasks/${task.id}/comments`, operator.token, { body: 'x', anchor: { kind: 'text', candidate_id: weak, line: 9 } })).body.reason).toBe('comment.anchor');
    await server.ctx.db.updateTable('text_candidates').set({ content: '第一行\n第二行是我自己用了一周的感受', score_total: 86 }).where('id', '=', weak).execute();
    expect((await post(`/tasks/${task.id}/comments/${comment.body.data.id}/resolve`, operator.token)).body.data.resolved).toBe(true);
    expect((await post(`/tasks/${task.id}/submit-review`, operator.token)).status).toBe(200);

    const queue = await server.request('GET', '/api/v1/review/queue?page_size=100', { token: supervisor.token });
    const item = queue.body.data.items.find((i: any) => i.task_id === task.id);
    expect(item.submit_note).toBeNull();
    expect(item.open_comments).toBe(1);
    expect(item.previous_rejection).toMatchObject({ reason: '第二行太像广告', final: false, username: 'boss' });
    expect(item.previous_rejection.texts).toEqual([expect.objectContaining({ strategy: 'A', content: '第一行\n第二行写得太硬', score_total: 74 })]);
    expect(item.selected_text.content).toBe('第一行\n第二行是我自己用了一周的感受');

    // Comments are everyone's on the task to read; only the author or a supervisor withdraws one.
    const listed = (await server.request('GET', `/api/v1/tasks/${task.id}/comments`, { token: operator.token })).body.data.items;
    expect(listed.map((c: any) => [c.body, c.resolved])).toEqual([['这一行改成自己的体验', true], ['封面再亮一点', false]]);
    expect((await server.request('DELETE', `/api/v1/tasks/${task.id}/comments/${general.id}`, { token: operator.token })).body.reason).toBe('comment.not_author');
    expect((await server.request('DELETE', `/api/v1/tasks/${task.id}/comments/${general.id}`, { token: supervisor2.token })).status).toBe(200);
  });
});
