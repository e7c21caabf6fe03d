import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskStatus } from '../../src/db/schema.js';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, seedCandidates, setStatus, workspaceWithProduct, type Workspace } from './fixtures.js';

const ALL: TaskStatus[] = ['pending', 'generating', 'pending_selection', 'pending_review', 'approved', 'rejected', 'archived', 'failed'];

describe('task lifecycle: allowed_actions', () => {
  let server: TestServer;
  let ws: Workspace;
  let operator: string;
  let supervisor: string;
  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    ws = await workspaceWithProduct(server);
    operator = (await userWithRole(server, 'lifecycle-op', 'operator')).token;
    supervisor = (await userWithRole(server, 'lifecycle-sup', 'supervisor')).token;
  });
  afterAll(async () => server?.close());

  async function seededTask(status: TaskStatus, track: 'ai' | 'import' = 'ai') {
    const task = await createTask(server, ws, { track });
    const seeded = await seedCandidates(server, ws, task.id);
    await setStatus(server, task.id, status);
    return { id: task.id as number, ...seeded };
  }

  const actionsOf = async (taskId: number, token: string) => (await ok(server, 'GET', `/tasks/${taskId}`, token)).allowed_actions as string[];

  /**
   * What each role is offered in each status of an ai-track task that has texts, one of them
   * selected, and no failed image (contract-decisions §6 and §8), written out by hand: the
   * server's rule table is what this checks, so it cannot be where the answer comes from.
   */
  const EXPECTED: Record<TaskStatus, { operator: string[]; supervisor: string[] }> = (() => {
    const editing = ['select', 'edit', 'regenerate', 'regenerate_image', 'upload_image', 'submit_review', 'package', 'archive', 'fission'];
    const same = (actions: string[]) => ({ operator: actions, supervisor: actions });
    return {
      pending: same(['fission']),
      generating: same(['fission']),
      pending_selection: same(editing),
      pending_review: { operator: ['fission'], supervisor: ['approve', 'reject', 'fission'] },
      approved: same(['package', 'archive', 'fission']),
      rejected: same(['fission']),
      archived: same(['fission']),
      failed: same(['regenerate', 'archive', 'fission']),
    };
  })();

  it('offers each role exactly the actions its status allows', async () => {
    for (const status of ALL) {
      const t = await seededTask(status);
      await server.ctx.db.updateTable('text_candidates').set({ is_selected: true }).where('id', '=', t.texts[0]!).execute();
      for (const [role, token] of [['operator', operator], ['supervisor', supervisor]] as const) {
        expect({ status, role, actions: await actionsOf(t.id, token) }).toEqual({ status, role, actions: EXPECTED[status][role] });
      }
    }
  });

  it('offers import_text only on the import track, and submit_review only with a selected text', async () => {
    const imported = await seededTask('pending_selection', 'import');
    expect(await actionsOf(imported.id, operator)).toContain('import_text');
    expect(await actionsOf(imported.id, operator)).not.toContain('submit_review');
    await ok(server, 'POST', `/tasks/${imported.id}/text-candidates/select`, operator, { candidate_id: imported.texts[0] });
    expect(await actionsOf(imported.id, operator)).toContain('submit_review');
  });

  it('accepts what it offers and refuses what it does not: review and archive follow allowed_actions', async () => {
    const t = await seededTask('pending_selection');
    await ok(server, 'POST', `/tasks/${t.id}/text-candidates/select`, operator, { candidate_id: t.texts[0] });
    expect(await actionsOf(t.id, operator)).toContain('submit_review');
    await ok(server, 'POST', `/tasks/${t.id}/submit-review`, operator);

    // pending_review: the operator is offered neither approve nor reject, and is refused both.
    expect(await actionsOf(t.id, operator)).not.toContain('approve');
    const refused = await server.request('POST', `${API}/review/${t.id}/approve`, { token: operator });
    expect(refused.status).toBe(403);
    expect(await actionsOf(t.id, supervisor)).toEqual(expect.arrayContaining(['approve', 'reject']));
    await ok(server, 'POST', `/review/${t.id}/approve`, supervisor);

    // approved: archive and package are offered; submit_review is not, and is refused (409).
    const approved = await actionsOf(t.id, operator);
    expect(approved).toEqual(expect.arrayContaining(['archive', 'package', 'fission']));
    expect(approved).not.toContain('submit_review');
    const again = await server.request('POST', `${API}/tasks/${t.id}/submit-review`, { token: operator });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe(40900);
    await ok(server, 'POST', `/tasks/${t.id}/archive`, operator);
    expect(await actionsOf(t.id, operator)).toEqual(['fission']);
  });
});
