import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { settledDetail, waitFor } from '../generation/helpers.js';
import { settledPackage } from '../delivery/fixtures.js';
import { API, createTask, ok, otherWorkspace, workspaceWithProduct, type Workspace } from './fixtures.js';

/**
 * GET /tasks/{id}/audit (contract-decisions §12): the trail of one task, append-only and in time
 * order, as JSON and as a CSV download; supervisors and admins only, a token with `review`; a
 * task of another workspace is not found.
 */
describe('task audit trail', () => {
  let server: TestServer;
  let ws: Workspace;
  let operator: { token: string; id: number };
  let supervisor: { token: string; id: number };

  beforeAll(async () => {
    server = await startTestServer();
    ws = await workspaceWithProduct(server);
    operator = await userWithRole(server, 'audit-op', 'operator');
    supervisor = await userWithRole(server, 'audit-sup', 'supervisor');
  });
  afterAll(async () => server?.close());

  const audit = (taskId: number, token: string, query = '') => server.request('GET', `${API}/tasks/${taskId}/audit${query}`, { token });

  /** A generated task taken through an edit, selections, a rejection, an approval and a package. */
  async function producedTask() {
    const task = await createTask(server, ws, { text_count: 3, image_count: 1 });
    const detail = await settledDetail(server, ws.token, task.id);
    expect(detail.status).toBe('pending_selection');
    const text = (detail.text_candidates as any[]).find((t) => t.strategy === 'A');
    const image = (detail.image_candidates as any[]).find((i) => i.strategy === 'A');
    await ok(server, 'POST', `/tasks/${task.id}/text-candidates/${text.candidate_id}/edit`, operator.token, { content: `${text.content}\n改过的一句`, title: text.title });
    await ok(server, 'POST', `/tasks/${task.id}/text-candidates/select`, operator.token, { candidate_id: text.candidate_id });
    await ok(server, 'POST', `/tasks/${task.id}/image-candidates/select`, operator.token, { candidate_id: image.candidate_id });
    await ok(server, 'POST', `/tasks/${task.id}/submit-review`, operator.token);
    await ok(server, 'POST', `/review/${task.id}/reject`, supervisor.token, { reason: '封面太暗，换一张' });
    await ok(server, 'POST', `/tasks/${task.id}/submit-review`, operator.token);
    await ok(server, 'POST', `/review/${task.id}/approve`, supervisor.token);
    const created = await ok(server, 'POST', `/tasks/${task.id}/package`, operator.token);
    expect((await settledPackage(server, ws.token, created.delivery_package_id)).status).toBe('ready');
    return { task, text, image, packageId: created.delivery_package_id as number };
  }

  it('answers every generation, prompt, edit, selection, review and package, who and when, oldest first', async () => {
    const { task, text, image, packageId } = await producedTask();
    const res = await audit(task.id, supervisor.token);
    expect(res.status).toBe(200);
    const { task_id, items } = res.body.data;
    expect(task_id).toBe(task.id);
    // Oldest first; steps of the same moment in the order they were written.
    const order = (a: any, b: any) => (a.created_at === b.created_at ? a.id - b.id : a.created_at < b.created_at ? -1 : 1);
    expect(items.map((i: any) => i.id)).toEqual([...items].sort(order).map((i: any) => i.id));

    const generation = items.filter((i: any) => i.kind === 'generation');
    expect(generation[0]).toMatchObject({ action: 'start_generation', user_id: null, username: null, detail: { generation: 1, text: { provider: 'local' }, image: { provider: 'local' } } });
    const prompts = generation.filter((i: any) => i.action === 'notes_prompt');
    expect(prompts.map((p: any) => p.detail.strategy).sort()).toEqual(['A', 'B', 'C']);
    for (const p of prompts) expect(p.detail).toMatchObject({ provider: 'local', system: expect.any(String), prompt: expect.stringContaining('云朵保湿霜') });
    const imagePrompt = generation.find((i: any) => i.action === 'image_prompt' && i.detail.candidate_id === image.candidate_id);
    expect(imagePrompt.detail).toMatchObject({ strategy: 'A', provider: 'local', produce_id: `task:${task.id}:gen:1:image:A:1`, prompt: expect.any(String) });

    const human = items.filter((i: any) => i.kind !== 'generation').map((i: any) => [i.kind, i.action, i.username]);
    expect(human).toEqual([
      ['edit', 'edit_text', 'audit-op'],
      ['selection', 'select_text', 'audit-op'],
      ['selection', 'select_image', 'audit-op'],
      ['review', 'submit_review', 'audit-op'],
      ['review', 'reject', 'audit-sup'],
      ['review', 'submit_review', 'audit-op'],
      ['review', 'approve', 'audit-sup'],
      ['package', 'create_package', 'audit-op'],
    ]);
    const edit = items.find((i: any) => i.action === 'edit_text');
    expect(edit.detail.before.content).toBe(text.content);
    expect(edit.detail.after.content).toBe(`${text.content}\n改过的一句`);
    expect(items.find((i: any) => i.action === 'reject').detail).toMatchObject({ reason: '封面太暗，换一张', status: 'pending_selection' });
    expect(items.find((i: any) => i.action === 'create_package').detail).toEqual({ package_id: packageId, note_ids: [text.candidate_id] });

    // Append-only: reading changes nothing, and the next action adds to the end.
    await ok(server, 'POST', `/tasks/${task.id}/package`, supervisor.token);
    const again = (await audit(task.id, ws.token)).body.data.items;
    expect(again.slice(0, items.length)).toEqual(items);
    expect(again.slice(items.length).map((i: any) => [i.action, i.username])).toEqual([['create_package', 'audit-sup']]);
  }, 120_000);

  it('records an image asked again: who asked with what instruction, then the call that drew it', async () => {
    const task = await createTask(server, ws, { text_count: 3, image_count: 1 });
    const detail = await settledDetail(server, ws.token, task.id);
    const image = (detail.image_candidates as any[]).find((i) => i.strategy === 'B');
    await ok(server, 'POST', `/tasks/${task.id}/image-candidates/${image.candidate_id}/regenerate`, operator.token, { instruction: '换成浅色木桌背景' });
    const items = await waitFor(async () => {
      const trail = (await audit(task.id, supervisor.token)).body.data.items as any[];
      return trail.some((i) => i.action === 'image_prompt' && i.detail.candidate_id !== image.candidate_id && i.detail.strategy === 'B') ? trail : undefined;
    });
    const asked = items.find((i) => i.action === 'regenerate_image');
    expect(asked).toMatchObject({ kind: 'generation', username: 'audit-op', detail: { replaces: image.candidate_id, strategy: 'B', seq: 1, instruction: '换成浅色木桌背景' } });
    const drawn = items.filter((i) => i.action === 'image_prompt').at(-1);
    expect(drawn).toMatchObject({ user_id: null, detail: { candidate_id: asked.detail.candidate_id, produce_id: `task:${task.id}:image-row:${asked.detail.candidate_id}`, provider: 'local' } });
    expect(drawn.detail.prompt).toContain('换成浅色木桌背景');
    expect(drawn.id).toBeGreaterThan(asked.id);
  }, 60_000);

  it('downloads the same trail as CSV with ?format=csv', async () => {
    const task = await createTask(server, ws, { text_count: 3, image_count: 0 });
    const detail = await settledDetail(server, ws.token, task.id);
    const text = (detail.text_candidates as any[])[0];
    await ok(server, 'POST', `/tasks/${task.id}/text-candidates/select`, operator.token, { candidate_id: text.candidate_id });
    const json = (await audit(task.id, ws.token)).body.data.items;

    const res = await fetch(`${server.url}${API}/tasks/${task.id}/audit?format=csv`, { headers: { authorization: `Bearer ${ws.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="task-${task.id}-audit.csv"`);
    const body = Buffer.from(await res.arrayBuffer());
    // A byte-order mark, so Excel reads the Chinese prompts as UTF-8.
    expect([...body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text8 = body.subarray(3).toString('utf8');
    expect(text8.startsWith('id,created_at,kind,action,user_id,username,detail\r\n')).toBe(true);
    const select = json.find((i: any) => i.action === 'select_text');
    expect(text8).toContain(`${select.id},${select.created_at},selection,select_text,${operator.id},audit-op,"${JSON.stringify(select.detail).replace(/"/g, '""')}"\r\n`);
    expect(text8).toContain(',generation,notes_prompt,,,');
  }, 60_000);

  it('is for supervisors and admins (a token needs review), and a task of another workspace is not found', async () => {
    const task = await createTask(server, ws, { text_count: 3, image_count: 0 });
    await settledDetail(server, ws.token, task.id);
    const refused = await audit(task.id, operator.token);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(40300);
    expect((await audit(task.id, supervisor.token)).status).toBe(200);
    expect((await audit(task.id, ws.token, '?format=csv')).status).toBe(200);

    const readToken = (await ok(server, 'POST', '/auth/tokens', supervisor.token, { name: 'dashboard', scopes: ['read'] })).token as string;
    const reviewToken = (await ok(server, 'POST', '/auth/tokens', supervisor.token, { name: 'compliance', scopes: ['review'] })).token as string;
    const byRead = await audit(task.id, readToken);
    expect(byRead.status).toBe(403);
    expect(byRead.body.code).toBe(40300);
    expect((await audit(task.id, reviewToken)).status).toBe(200);

    const other = await otherWorkspace(server);
    for (const query of ['', '?format=csv']) {
      const foreign = await audit(task.id, other.token, query);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toMatchObject({ code: 40400, reason: 'task.not_found' });
    }
    expect((await audit(999_999, ws.token)).status).toBe(404);
    expect((await audit(task.id, ws.token, '?format=xml')).status).toBe(400);
  }, 60_000);
});
