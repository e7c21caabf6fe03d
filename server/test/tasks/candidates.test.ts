import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskStatus } from '../../src/db/schema.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, otherWorkspace, seedCandidates, setStatus, signalsOf, workspaceWithProduct, type Workspace } from './fixtures.js';

const ALL: TaskStatus[] = ['pending', 'generating', 'pending_selection', 'pending_review', 'approved', 'rejected', 'archived', 'failed'];

describe('candidate operations', () => {
  let server: TestServer;
  let ws: Workspace;
  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    ws = await workspaceWithProduct(server);
    await ok(server, 'POST', '/banned-words', ws.token, { word: '最便宜', level: 'hard_block', replacement: null, updatable: true });
    await ok(server, 'POST', '/banned-words', ws.token, { word: '神药', level: 'auto_fix', replacement: '好物', updatable: true });
  });
  afterAll(async () => server?.close());

  const call = (path: string, body?: unknown, token = ws.token) =>
    server.request('POST', `${API}${path}`, { token, ...(body === undefined ? {} : { body }) });

  async function seeded(track: 'ai' | 'import' = 'ai') {
    const task = await createTask(server, ws, { track });
    return { id: task.id as number, ...(await seedCandidates(server, ws, task.id)) };
  }

  it('shows candidates in detail ordered by strategy then creation, with signed image urls', async () => {
    const t = await seeded();
    const detail = await ok(server, 'GET', `/tasks/${t.id}`, ws.token);
    expect(detail.text_candidates.map((c: any) => c.candidate_id)).toEqual(t.texts);
    expect(detail.text_candidates.map((c: any) => c.strategy)).toEqual(['A', 'A', 'B', 'B', 'C', 'C']);
    expect(detail.image_candidates.map((c: any) => c.candidate_id)).toEqual(t.images);
    const url = detail.image_candidates[0].url as string;
    expect(url).toMatch(/^\/api\/v1\/files\/.+\?exp=\d+&sig=/);
    const img = await fetch(`${server.url}${url}`);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
  });

  it('selects one text per set, replaces the set\'s earlier choice, deselects, records +3 once', async () => {
    const t = await seeded();
    const a0 = t.texts[0]!;
    const b0 = t.texts[2]!;
    const first = await call(`/tasks/${t.id}/text-candidates/select`, { candidate_id: a0 });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ candidate_id: a0, is_selected: true, strategy: 'A' });
    await call(`/tasks/${t.id}/text-candidates/select`, { candidate_id: a0 });
    await call(`/tasks/${t.id}/text-candidates/select`, { candidate_id: b0 });
    let detail = await ok(server, 'GET', `/tasks/${t.id}`, ws.token);
    expect(detail.text_candidates.filter((c: any) => c.is_selected).map((c: any) => c.candidate_id)).toEqual([a0, b0]);
    // The blocked text of set A cannot be selected.
    const blocked = await call(`/tasks/${t.id}/text-candidates/select`, { candidate_id: t.texts[1] });
    expect(blocked.status).toBe(409);
    expect(blocked.body.code).toBe(40900);
    const off = await call(`/tasks/${t.id}/text-candidates/select`, { candidate_id: a0, selected: false });
    expect(off.body.data.is_selected).toBe(false);
    detail = await ok(server, 'GET', `/tasks/${t.id}`, ws.token);
    expect(detail.text_candidates.filter((c: any) => c.is_selected).map((c: any) => c.candidate_id)).toEqual([b0]);
    const signals = await signalsOf(server, t.id);
    expect(signals.map((s) => [s.signal_type, s.weight, s.candidate_id])).toEqual([
      ['select_text', 3, a0],
      ['select_text', 3, b0],
    ]);
    expect((await call(`/tasks/${t.id}/text-candidates/select`, { candidate_id: t.images[0]! + 100000 })).status).toBe(404);
  });

  it('selects any number of images per set and records +3 for each', async () => {
    const t = await seeded();
    for (const id of t.images.slice(0, 2)) {
      const res = await call(`/tasks/${t.id}/image-candidates/select`, { candidate_id: id });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ candidate_id: id, is_selected: true });
    }
    const detail = await ok(server, 'GET', `/tasks/${t.id}`, ws.token);
    expect(detail.image_candidates.filter((c: any) => c.is_selected)).toHaveLength(2);
    await call(`/tasks/${t.id}/image-candidates/select`, { candidate_id: t.images[0], selected: false });
    expect((await signalsOf(server, t.id)).map((s) => [s.signal_type, s.weight, s.candidate_kind])).toEqual([
      ['select_image', 3, 'image'],
      ['select_image', 3, 'image'],
    ]);
  });

  it('ends a selection race with exactly one selected text in the set', async () => {
    for (let round = 0; round < 3; round++) {
      const t = await seeded();
      await server.ctx.db.updateTable('text_candidates').set({ banned_word_status: 'pass' }).where('id', '=', t.texts[1]!).execute();
      const results = await Promise.all(
        [0, 1, 0, 1, 0, 1].map((i) => call(`/tasks/${t.id}/text-candidates/select`, { candidate_id: t.texts[i] })),
      );
      expect(results.every((r) => r.status === 200)).toBe(true);
      const selected = await server.ctx.db.selectFrom('text_candidates').select('id').where('task_id', '=', t.id).where('strategy', '=', 'A').where('is_selected', '=', true).execute();
      expect(selected).toHaveLength(1);
    }
  });

  it('edits a text: re-checked (auto_fix applied, hard_block found), re-scored, edited, text_edit 5, event emitted', async () => {
    const t = await seeded();
    const id = t.texts[2]!;
    await call(`/tasks/${t.id}/text-candidates/select`, { candidate_id: id });
    const edited = await call(`/tasks/${t.id}/text-candidates/${id}/edit`, { content: '这款神药让我的皮肤好舒服，真的喜欢！', title: '换季救星｜3天见效', tags: ['#护肤', '保湿', '保湿'] });
    expect(edited.status).toBe(200);
    const c = edited.body.data;
    expect(c).toMatchObject({ candidate_id: id, edited: true, banned_word_status: 'auto_fixed', title: '换季救星｜3天见效', tags: ['护肤', '保湿'], is_selected: true });
    expect(c.content).toContain('好物');
    expect(c.content).not.toContain('神药');
    expect(c.score.total).toBe(c.score.title + c.score.emotion + c.score.selling + c.score.keyword + c.score.compliance);
    expect(c.score.total).not.toBe(80);
    const blocked = await call(`/tasks/${t.id}/text-candidates/${id}/edit`, { content: '全网最便宜的保湿霜' });
    expect(blocked.body.data).toMatchObject({ banned_word_status: 'hard_block', is_selected: false, title: '换季救星｜3天见效' });
    const signals = await signalsOf(server, t.id);
    expect(signals.filter((s) => s.signal_type === 'text_edit').map((s) => s.weight)).toEqual([5, 5]);
    const events = await server.ctx.events.replay(t.id, 0);
    expect(events.filter((e) => e.name === 'text_candidate').map((e) => (e.data as any).banned_word_status)).toEqual(['auto_fixed', 'hard_block']);
    expect((await call(`/tasks/${t.id}/text-candidates/${id}/edit`, { content: '' })).status).toBe(400);
    expect((await call(`/tasks/${t.id}/text-candidates/999999/edit`, { content: 'x' })).status).toBe(404);
  });

  it('imports texts on the import track into the emptiest set or the one asked for, text_import 8', async () => {
    const task = await createTask(server, ws, { track: 'import', text_count: 3 });
    const first = await call(`/tasks/${task.id}/import-text`, { content: '第一篇外部笔记\n正文内容', angle_label: '外部' });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ source: 'import', strategy: 'A', angle_label: '外部', title: '第一篇外部笔记', edited: false, is_selected: false });
    expect((await call(`/tasks/${task.id}/import-text`, { content: '第二篇', angle_label: '外部' })).body.data.strategy).toBe('B');
    expect((await call(`/tasks/${task.id}/import-text`, { content: '第三篇', angle_label: '外部', strategy: 'A' })).body.data.strategy).toBe('A');
    expect((await call(`/tasks/${task.id}/import-text`, { content: '第四篇', angle_label: '外部' })).body.data.strategy).toBe('C');
    const blocked = await call(`/tasks/${task.id}/import-text`, { content: '最便宜的一款', angle_label: '外部' });
    expect(blocked.body.data.banned_word_status).toBe('hard_block');
    const signals = await signalsOf(server, task.id);
    expect(signals.map((s) => [s.signal_type, s.weight])).toEqual(Array(5).fill(['text_import', 8]));
    expect((await call(`/tasks/${task.id}/import-text`, { content: 'x', angle_label: '外部', strategy: 'D' })).status).toBe(400);
    expect((await call(`/tasks/${task.id}/import-text`, { content: 'x' })).status).toBe(400);
    const aiTask = await createTask(server, ws);
    const refused = await call(`/tasks/${aiTask.id}/import-text`, { content: 'x', angle_label: 'y' });
    expect(refused.status).toBe(409);
  });

  it('regenerates from pending_selection and failed: generation + 1, generating, queued, −1; a double submit moves it once', async () => {
    const t = await seeded();
    const results = await Promise.all([call(`/tasks/${t.id}/regenerate`), call(`/tasks/${t.id}/regenerate`)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const ok200 = results.find((r) => r.status === 200)!;
    expect(ok200.body.data.status).toBe('generating');
    const detail = await ok(server, 'GET', `/tasks/${t.id}`, ws.token);
    expect(detail).toMatchObject({ status: 'generating', generation: 2 });
    expect(detail.text_candidates).toHaveLength(6);
    expect((await signalsOf(server, t.id)).map((s) => [s.signal_type, s.weight])).toEqual([['regenerate', -1]]);
    const events = await server.ctx.events.replay(t.id, 0);
    expect(events.map((e) => [e.name, e.data])).toEqual([['status', { task_id: t.id, status: 'generating' }]]);
    await setStatus(server, t.id, 'failed');
    expect((await call(`/tasks/${t.id}/regenerate`)).status).toBe(200);
    expect((await ok(server, 'GET', `/tasks/${t.id}`, ws.token)).generation).toBe(3);
  });

  it('archives from approved, pending_selection, failed', async () => {
    for (const from of ['approved', 'pending_selection', 'failed'] as const) {
      const t = await createTask(server, ws);
      await setStatus(server, t.id, from);
      const res = await call(`/tasks/${t.id}/archive`);
      expect(res.status, from).toBe(200);
      expect(res.body.data.status).toBe('archived');
    }
  });

  it('refuses each operation outside its accepted states with 409/40900 and leaves the task as it was', async () => {
    const t = await seeded();
    const imp = await createTask(server, ws, { track: 'import' });
    const accepted: Record<string, TaskStatus[]> = {
      selectText: ['pending_selection'],
      selectImage: ['pending_selection'],
      edit: ['pending_selection'],
      importText: ['pending', 'generating', 'pending_selection'],
      regenerate: ['pending_selection', 'failed'],
      archive: ['approved', 'pending_selection', 'failed'],
    };
    const ops: Record<string, () => Promise<{ status: number; body: any }>> = {
      selectText: () => call(`/tasks/${t.id}/text-candidates/select`, { candidate_id: t.texts[0] }),
      selectImage: () => call(`/tasks/${t.id}/image-candidates/select`, { candidate_id: t.images[0] }),
      edit: () => call(`/tasks/${t.id}/text-candidates/${t.texts[0]}/edit`, { content: '改写' }),
      importText: () => call(`/tasks/${imp.id}/import-text`, { content: '导入', angle_label: '外部' }),
      regenerate: () => call(`/tasks/${t.id}/regenerate`),
      archive: () => call(`/tasks/${t.id}/archive`),
    };
    for (const [name, op] of Object.entries(ops)) {
      for (const status of ALL) {
        const target = name === 'importText' ? imp.id : t.id;
        await setStatus(server, target, status);
        const res = await op();
        const expected = accepted[name]!.includes(status) ? 200 : 409;
        expect(res.status, `${name} in ${status}`).toBe(expected);
        if (expected === 409) {
          expect(res.body.code).toBe(40900);
          const after = await server.ctx.db.selectFrom('tasks').select('status').where('id', '=', target).executeTakeFirstOrThrow();
          expect(after.status).toBe(status);
        }
      }
    }
  });

  it('answers 404 for every task route with an id of another workspace, and changes nothing', async () => {
    const t = await seeded();
    const other = await otherWorkspace(server);
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/tasks/${t.id}`],
      ['POST', `/tasks/${t.id}/sse-ticket`],
      ['POST', `/tasks/${t.id}/text-candidates/select`, { candidate_id: t.texts[0] }],
      ['POST', `/tasks/${t.id}/image-candidates/select`, { candidate_id: t.images[0] }],
      ['POST', `/tasks/${t.id}/text-candidates/${t.texts[0]}/edit`, { content: '越权' }],
      ['POST', `/tasks/${t.id}/import-text`, { content: '越权', angle_label: 'x' }],
      ['POST', `/tasks/${t.id}/regenerate`],
      ['POST', `/tasks/${t.id}/archive`],
    ];
    for (const [method, path, body] of routes) {
      const res = await server.request(method, `${API}${path}`, { token: other.token, ...(body === undefined ? {} : { body }) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe(40400);
    }
    // A candidate of a task in this workspace, addressed through another of its tasks: 404 too.
    const mine = await seeded();
    expect((await call(`/tasks/${mine.id}/text-candidates/select`, { candidate_id: t.texts[0] })).status).toBe(404);
    expect((await call(`/tasks/${mine.id}/text-candidates/${t.texts[0]}/edit`, { content: 'x' })).status).toBe(404);
    const list = await ok(server, 'GET', '/tasks', other.token);
    expect(list.items.map((i: any) => i.id)).not.toContain(t.id);
    const unchanged = await ok(server, 'GET', `/tasks/${t.id}`, ws.token);
    expect(unchanged.status).toBe('pending_selection');
    expect(unchanged.text_candidates.every((c: any) => !c.is_selected && !c.edited)).toBe(true);
    expect(await signalsOf(server, t.id)).toEqual([]);
  });
});
