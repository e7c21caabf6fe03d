import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HALF_LIFE_DAYS, decayFactor, preferenceContextForGeneration } from '../../src/modules/preferences/service.js';
import { EXCERPT_CHARS, length, noteExcerpt } from '../../src/content/text.js';
import { insertSnapshot } from '../../src/modules/preferences/repository.js';
import { recordSignal, type SignalType } from '../../src/modules/preferences/signals.js';
import { ADMIN_NEW_PASSWORD, startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { seedTask } from '../delivery/fixtures.js';
import { defaultNote, startFakeOpenAI, type FakeOpenAI } from '../generation/fake-openai.js';
import { settledDetail } from '../generation/helpers.js';
import { createTask, ok, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';

const DAY = 24 * 3600 * 1000;

describe('flywheel: decay', () => {
  it('halves a signal every half-life', () => {
    expect(decayFactor(0)).toBe(1);
    expect(decayFactor(HALF_LIFE_DAYS * DAY)).toBeCloseTo(0.5, 10);
    expect(decayFactor(2 * HALF_LIFE_DAYS * DAY)).toBeCloseTo(0.25, 10);
    // A timestamp slightly ahead of the clock (another process) counts as now, not more.
    expect(decayFactor(-5000)).toBe(1);
  });
});

describe('flywheel (local provider, real pipeline)', () => {
  let server: TestServer;
  let ws: Workspace;
  let supervisor: { token: string; id: number };

  beforeAll(async () => {
    server = await startTestServer();
    ws = await workspaceWithProduct(server);
    supervisor = await userWithRole(server, 'flysup', 'supervisor');
  });
  afterAll(async () => server?.close());

  const signalsOf = async (taskId: number) =>
    (await ok(server, 'GET', `/tasks/${taskId}/preference/signals?page_size=100`, ws.token)).items as Array<Record<string, any>>;

  it('records every action with its weight, who, and the candidate it was about', async () => {
    const task = await createTask(server, ws, { text_count: 3, image_count: 1 });
    const detail = await settledDetail(server, ws.token, task.id);
    expect(detail.status).toBe('pending_selection');
    const textB = detail.text_candidates.find((t: any) => t.strategy === 'B');
    const imageB = detail.image_candidates.find((i: any) => i.strategy === 'B');
    const textA = detail.text_candidates.find((t: any) => t.strategy === 'A');

    await ok(server, 'POST', `/tasks/${task.id}/text-candidates/select`, ws.token, { candidate_id: textB.candidate_id });
    await ok(server, 'POST', `/tasks/${task.id}/image-candidates/select`, ws.token, { candidate_id: imageB.candidate_id });
    // Deselecting records nothing (contract-decisions §4).
    await ok(server, 'POST', `/tasks/${task.id}/image-candidates/select`, ws.token, { candidate_id: imageB.candidate_id, selected: false });
    await ok(server, 'POST', `/tasks/${task.id}/text-candidates/${textA.candidate_id}/edit`, ws.token, { content: `${textA.content}\n改过的结尾，更口语一点～` });
    await ok(server, 'POST', `/tasks/${task.id}/regenerate`, ws.token);
    await settledDetail(server, ws.token, task.id);
    await ok(server, 'POST', `/tasks/${task.id}/submit-review`, ws.token);
    await ok(server, 'POST', `/review/${task.id}/reject`, supervisor.token, { reason: '开头太平淡' });
    await ok(server, 'POST', `/tasks/${task.id}/submit-review`, ws.token);
    await ok(server, 'POST', `/review/${task.id}/approve`, supervisor.token);

    const imported = await createTask(server, ws, { track: 'import', text_count: 1, image_count: 1 });
    await settledDetail(server, ws.token, imported.id);
    await ok(server, 'POST', `/tasks/${imported.id}/import-text`, ws.token, { content: '自己写的一篇：早八通勤也能十分钟搞定底妆。', angle_label: '早八党' });

    const me = await ok(server, 'GET', '/auth/me', ws.token);
    const rows = await signalsOf(task.id);
    expect(rows.map((s) => [s.signal_type, s.weight])).toEqual([
      ['select_text', 3],
      ['select_image', 3],
      ['text_edit', 5],
      ['regenerate', -1],
      ['reject', -3],
      ['approve', 5],
    ]);
    expect(rows[0]).toMatchObject({ candidate_id: textB.candidate_id, candidate_kind: 'text', strategy: 'B', angle_label: textB.angle_label, user_id: me.id });
    expect(rows[1]).toMatchObject({ candidate_id: imageB.candidate_id, candidate_kind: 'image', strategy: 'B' });
    expect(rows[2]).toMatchObject({ candidate_id: textA.candidate_id, strategy: 'A', angle_label: textA.angle_label });
    expect(rows[2]!.excerpt).toContain('改过的结尾');
    expect(rows[4]).toMatchObject({ reason: '开头太平淡', user_id: supervisor.id, strategy: 'B', angle_label: textB.angle_label });
    expect(rows[5]).toMatchObject({ user_id: supervisor.id, strategy: 'B' });
    const importRows = await signalsOf(imported.id);
    expect(importRows.map((s) => [s.signal_type, s.weight, s.angle_label])).toEqual([['text_import', 8, '早八党']]);
    expect(importRows[0]!.excerpt).toContain('十分钟搞定底妆');

    // The signals of another workspace's task are not readable from here (404).
    const foreign = await server.request('GET', `/api/v1/tasks/${task.id}/preference/signals`, {
      token: (await ok(server, 'POST', '/workspaces/switch', await server.adminToken(), { workspace_id: (await ok(server, 'POST', '/workspaces', await server.adminToken(), { name: 'F', slug: 'flywheel-foreign' })).id })).token,
    });
    expect([foreign.status, foreign.body.code]).toEqual([404, 40400]);
    // Switching moved the admin's current workspace; move it back for the logins that follow.
    ws.token = (await ok(server, 'POST', '/workspaces/switch', ws.token, { workspace_id: ws.workspaceId })).token;
  });

  it('weighs recent signals above old ones (decay through the scores endpoint)', async () => {
    const product = await ok(server, 'POST', '/products', ws.token, { name: '衰减测试', category: 'x', source: 'custom' });
    const record = (type: SignalType, strategy: string, angle: string) =>
      recordSignal(server.ctx.db, { workspaceId: ws.workspaceId, productId: product.id, taskId: null, userId: null, type, strategy, angleLabel: angle, at: server.clock.now() });
    for (let i = 0; i < 3; i++) await record('select_text', 'A', '老角度');
    server.clock.advance(HALF_LIFE_DAYS * DAY);
    // Two weeks on, the old token has expired (12 h): log in again.
    ws.token = (await ok(server, 'POST', '/auth/login', '', { username: 'admin', password: ADMIN_NEW_PASSWORD })).token;
    for (let i = 0; i < 2; i++) await record('select_text', 'B', '新角度');

    const scores = await ok(server, 'GET', `/products/${product.id}/preference/scores`, ws.token);
    expect(scores.half_life_days).toBe(HALF_LIFE_DAYS);
    // Three old selects (9, one half-life ago → 4.5) lose to two fresh ones (6).
    expect(scores.angles).toEqual([
      { angle_label: '新角度', score: 6 },
      { angle_label: '老角度', score: 4.5 },
    ]);
    expect(scores.strategies).toEqual([
      { strategy: 'B', score: 6 },
      { strategy: 'A', score: 4.5 },
    ]);
    const task = await seedTask(server, { workspaceId: ws.workspaceId, productId: product.id, operatorId: (await ok(server, 'GET', '/auth/me', ws.token)).id, status: 'pending' });
    const context = await ok(server, 'GET', `/tasks/${task}/preference/context`, ws.token);
    expect(context.recent_preference.indexOf('新角度')).toBeLessThan(context.recent_preference.indexOf('老角度'));
    expect(context.recent_preference).toContain('B (实测种草)');
  });

  it('reports a task’s snapshot once generated, and the live context before', async () => {
    const product = await ok(server, 'POST', '/products', ws.token, { name: '快照测试', category: 'x', source: 'custom' });
    const me = await ok(server, 'GET', '/auth/me', ws.token);
    const taskId = await seedTask(server, { workspaceId: ws.workspaceId, productId: product.id, operatorId: me.id, status: 'pending' });
    const record = (reason: string) =>
      recordSignal(server.ctx.db, { workspaceId: ws.workspaceId, productId: product.id, taskId: null, userId: null, type: 'reject', reason, at: server.clock.now() });

    const empty = await ok(server, 'GET', `/tasks/${taskId}/preference/context`, ws.token);
    expect(empty).toMatchObject({ recent_preference: '', reject_reasons: [], style_examples: [], injected_count: 0, generation: null });

    await record('第一条理由');
    const live = await ok(server, 'GET', `/tasks/${taskId}/preference/context`, ws.token);
    expect(live).toMatchObject({ reject_reasons: ['第一条理由'], injected_count: 1, generation: null });

    const injected = await preferenceContextForGeneration(server.ctx, { id: taskId, workspaceId: ws.workspaceId, productId: product.id, generation: 1 });
    for (const r of ['第二条', '第三条', '第四条']) {
      server.clock.advance(1000);
      await record(r);
    }
    const snapshot = await ok(server, 'GET', `/tasks/${taskId}/preference/context`, ws.token);
    // The structured preferences feed the prompts only; the API shows the contract's fields.
    const { preferred_angles: _angles, preferred_strategy: _strategy, ...shown } = injected;
    expect(snapshot).toMatchObject({ ...shown, generation: 1 });
    expect(snapshot.reject_reasons).toEqual(['第一条理由']);
    // A retried generation gets the same snapshot, not a fresh context.
    expect(await preferenceContextForGeneration(server.ctx, { id: taskId, workspaceId: ws.workspaceId, productId: product.id, generation: 1 })).toEqual(injected);
    // The next generation sees the newest three reasons, newest first.
    const next = await preferenceContextForGeneration(server.ctx, { id: taskId, workspaceId: ws.workspaceId, productId: product.id, generation: 2 });
    expect(next.reject_reasons).toEqual(['第四条', '第三条', '第二条']);
    // These signals carry no excerpt (a reject with nothing selected, or recorded before excerpts were kept).
    expect(next.rejections).toEqual(next.reject_reasons.map((reason) => ({ reason, excerpt: null })));
    expect((await ok(server, 'GET', `/tasks/${taskId}/preference/context`, ws.token)).generation).toBe(2);
    // A snapshot stored before rejections existed still reads with them, excerpts null.
    await insertSnapshot(server.ctx.db, taskId, 3, { recent_preference: '', reject_reasons: ['旧理由'], style_examples: [], injected_count: 1 }, new Date(server.clock.now()).toISOString());
    expect(await ok(server, 'GET', `/tasks/${taskId}/preference/context`, ws.token)).toMatchObject({ generation: 3, reject_reasons: ['旧理由'], rejections: [{ reason: '旧理由', excerpt: null }], approved_openings: [] });
  });
});

/**
 * The proof the flywheel turns: a reviewer's rejection and the team's selections in one strategy
 * change what the next task's generation is told, down to the prompt a provider receives.
 */
describe('flywheel: injection into the next generation (fake OpenAI provider)', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  let ws: Workspace;
  let supervisor: { token: string };

  beforeAll(async () => {
    fake = await startFakeOpenAI({
      note: (i, opts) => ({ ...defaultNote(i, opts), angle_label: `${/^写法 ([ABC])：/m.exec(opts.prompt)?.[1] ?? '?'}组角度${i + 1}` }),
    });
    server = await startTestServer({ env: { PROVIDER_OPENAI_BASE_URL: fake.url } });
    ws = await workspaceWithProduct(server, { apiKey: false });
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai', api_key: 'sk-test-flywheel' });
    supervisor = await userWithRole(server, 'injsup', 'supervisor');
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  it('puts the reason verbatim and the preferred angle into the next task’s prompt, and counts them', async () => {
    const notesPrompts = (from: number) => fake.calls.slice(from).filter((c) => c.kind === 'notes').map((c) => c.prompt);
    /** One task through selection (strategy B's text and images) and review. */
    const reviewed = async (decide: (taskId: number) => Promise<unknown>) => {
      const task = await createTask(server, ws, { text_count: 3, image_count: 1 });
      const detail = await settledDetail(server, ws.token, task.id);
      expect(detail.status).toBe('pending_selection');
      const textB = detail.text_candidates.find((t: any) => t.strategy === 'B');
      await ok(server, 'POST', `/tasks/${task.id}/text-candidates/select`, ws.token, { candidate_id: textB.candidate_id });
      for (const image of detail.image_candidates.filter((i: any) => i.strategy === 'B')) {
        await ok(server, 'POST', `/tasks/${task.id}/image-candidates/select`, ws.token, { candidate_id: image.candidate_id });
      }
      await ok(server, 'POST', `/tasks/${task.id}/submit-review`, ws.token);
      await decide(task.id);
      return { id: task.id as number, angle: textB.angle_label as string, title: textB.title as string, content: textB.content as string };
    };

    const first = await reviewed((id) => ok(server, 'POST', `/review/${id}/approve`, supervisor.token));
    expect(first.angle).toBe('B组角度1');
    const untouched = await ok(server, 'GET', `/tasks/${first.id}/preference/context`, ws.token);
    expect(untouched).toMatchObject({ recent_preference: '', reject_reasons: [], injected_count: 0, generation: 1 });
    expect(notesPrompts(0).some((p) => p.includes('B组角度1'))).toBe(false);

    const reason = '别再用“最”字开头，标题要具体到成分！';
    const secondFrom = fake.calls.length;
    const second = await reviewed((id) => ok(server, 'POST', `/review/${id}/reject`, supervisor.token, { reason }));
    // The second task was generated after the first was approved: the angle, but no reason yet.
    const secondContext = await ok(server, 'GET', `/tasks/${second.id}/preference/context`, ws.token);
    expect(secondContext.recent_preference).toContain('「B组角度1」');
    expect(secondContext.reject_reasons).toEqual([]);
    // The approved note's title and opening are a positive example for the next ones.
    const opening = noteExcerpt(first.title, first.content);
    expect(secondContext.approved_openings).toEqual([opening]);
    expect(notesPrompts(secondFrom).some((p) => p.includes(reason))).toBe(false);

    const thirdFrom = fake.calls.length;
    const third = await createTask(server, ws, { text_count: 3, image_count: 1 });
    expect((await settledDetail(server, ws.token, third.id)).status).toBe('pending_selection');
    const context = await ok(server, 'GET', `/tasks/${third.id}/preference/context`, ws.token);
    expect(context.generation).toBe(1);
    expect(context.reject_reasons).toEqual([reason]);
    // The reason comes with the start of the note it rejected: its title, then its body's first words.
    expect(context.rejections).toHaveLength(1);
    const { excerpt } = context.rejections[0];
    expect(context.rejections[0].reason).toBe(reason);
    expect(excerpt.startsWith(`${second.title}｜${second.content.replace(/\s+/g, ' ').slice(0, 10)}`)).toBe(true);
    expect(length(excerpt)).toBeLessThanOrEqual(EXCERPT_CHARS + 1);
    const signals = await ok(server, 'GET', `/tasks/${second.id}/preference/signals`, ws.token);
    expect(signals.items.find((s: any) => s.signal_type === 'reject')).toMatchObject({ reason, excerpt });
    expect(context.recent_preference).toContain('「B组角度1」');
    expect(context.recent_preference).toContain('preferred strategy: B');
    expect(context.approved_openings).toEqual([opening]);
    // One angle, one strategy, one reason, one approved opening; no style examples.
    expect(context.injected_count).toBe(4);

    const prompts = notesPrompts(thirdFrom);
    expect(prompts).toHaveLength(3);
    for (const prompt of prompts) {
      const trusted = prompt.slice(0, prompt.indexOf('<data>\n'));
      expect(trusted).toContain(`- 被驳回：「${excerpt}」 — 原因：「${reason}」`);
      expect(trusted).toContain(`审核通过的同类笔记开头（正面示例：学习标题和开头的写法，不要照抄）：\n- 「${opening}」`);
      // The angle shares no term with this task's theme (秋冬换季护肤), so it is not pressed on its notes (prompts.ts themeFit).
      expect(prompt).not.toContain('B组角度1');
    }
  });
});
