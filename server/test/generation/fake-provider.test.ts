import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTaskGeneration } from '../../src/modules/tasks/pipeline.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTask, emptyBannedWords, ok, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { defaultNote, startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';
import { eventsOf, named, taskDetail } from './helpers.js';

/**
 * The pipeline against an OpenAI-compatible provider: a real local HTTP server (fake-openai.ts)
 * behind the `openai` preset. The worker is off, so each test runs the job itself.
 */
describe('generation with an OpenAI-compatible provider', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    server = await startTestServer({
      worker: false,
      env: { PROVIDER_OPENAI_BASE_URL: fake.url, PROVIDER_MAX_RETRIES: '0', PROVIDER_RETRY_BASE_MS: '10' },
    });
    ws = await workspaceWithProduct(server, { apiKey: false, product: { name: '晚安面膜', selling_points: ['玻尿酸深层补水', '质地清爽不黏腻'] } });
    // Its subject is the words it adds itself.
    await emptyBannedWords(server, ws.token);
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai', api_key: 'sk-test-not-real-1234' });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  const newTask = async (body: Record<string, unknown>) => {
    const created = await createTask(server, ws, body);
    return (created.id ?? created.task_id) as number;
  };

  it('one failed image does not fail the task; the events say how many failed', async () => {
    fake.options = { failImage: (prompt) => (prompt.includes('macro close-up') ? 400 : undefined) };
    const taskId = await newTask({ text_count: 3, image_count: 6 });
    await runTaskGeneration(server.ctx, taskId);
    const detail = await taskDetail(server, ws.token, taskId);
    expect(detail.status).toBe('pending_selection');
    // The quality frame (a macro close-up) of each of the 3 sets failed: 15 of 18 made it, the 3
    // failed slots are stored as such (so retry-images can make them again).
    expect((detail.image_candidates as any[]).filter((i) => i.status === 'done')).toHaveLength(15);
    const failed = (detail.image_candidates as any[]).filter((i) => i.status === 'failed');
    expect(failed.map((i) => i.role)).toEqual(['quality', 'quality', 'quality']);
    expect(failed.every((i) => i.url === null)).toBe(true);
    const events = await eventsOf(server, taskId);
    const errors = named(events, 'error').map((e) => e.message);
    expect(errors.filter((m) => /^image [ABC]\d \(quality\) failed/.test(m))).toHaveLength(3);
    expect(errors.at(-1)).toBe('partly done: 3 of 18 images failed; the rest is ready');
    // The console words them from the reason and params, never from the sentence.
    expect(named(events, 'error').at(-1)).toEqual({
      message: 'partly done: 3 of 18 images failed; the rest is ready',
      error_kind: null,
      reason: 'failure.partly',
      params: { parts: '3 of 18 images failed', images_failed: 3, images_total: 18 },
    });
    expect(failed.map((i) => [i.error_key, i.error_params.role, i.error_params.set])).toEqual([
      ['failure.image', 'quality', 'A'],
      ['failure.image', 'quality', 'B'],
      ['failure.image', 'quality', 'C'],
    ]);
    expect(events.at(-1)).toMatchObject({ name: 'done', data: { status: 'pending_selection' } });
    expect(named(events, 'progress').at(-1)).toEqual({ stage: 'image', done: 15, failed: 3, total: 18 });

    // The judge scored the texts (its values, compliance capped by the deterministic check).
    for (const t of detail.text_candidates) {
      expect(t.score).toMatchObject({ title: 22, emotion: 21, selling: 23, keyword: 17 });
      expect(t.summary).toBe('评审：结构清晰，卖点突出。');
    }
    // The texts streamed: deltas concatenate to each note's content.
    const deltas = named(events, 'text_delta');
    expect(deltas.length).toBeGreaterThan(0);
    const streamedA0 = deltas.filter((d) => d.strategy === 'A' && d.index === 0).map((d) => d.delta).join('');
    expect(streamedA0).toBe(defaultNote(0, { rewrite: false }).content);
    // Text-free prompts: the service draws the lettering itself.
    const imageCalls = fake.calls.filter((c) => c.kind === 'image');
    expect(imageCalls.every((c) => c.prompt.includes('Add no text of your own'))).toBe(true);
  });

  it('a failing judge falls back to the deterministic scorer', async () => {
    fake.options = { failScore: 500 };
    const taskId = await newTask({ text_count: 1, image_count: 0 });
    await runTaskGeneration(server.ctx, taskId);
    const detail = await taskDetail(server, ws.token, taskId);
    expect(detail.status).toBe('pending_selection');
    const [text] = detail.text_candidates;
    expect(text.summary).not.toBe('评审：结构清晰，卖点突出。');
    expect(text.score.total).toBe(text.score.title + text.score.emotion + text.score.selling + text.score.keyword + text.score.compliance);
  });

  it('applies banned words: auto_fix replaced, soft_warn flagged, hard_block rewritten once, else flagged', async () => {
    for (const [word, level, replacement] of [
      ['超级', 'auto_fix', '很'],
      ['懒人', 'soft_warn', null],
      ['根治', 'hard_block', null],
      ['神药', 'hard_block', null],
    ] as const) {
      await ok(server, 'POST', '/banned-words', ws.token, { word, level, replacement });
    }
    fake.options = {
      note: (index, { rewrite, prompt }) => {
        const base = defaultNote(index, { rewrite });
        // Note 0 is blocked and its rewrite is clean; note 1 stays blocked after the rewrite; note 2 only soft-warns.
        if (rewrite) {
          const clean = { ...base, content: base.content.replace('懒人也能坚持', '坚持很容易') };
          return prompt.includes('简直是神药') ? { ...clean, content: `${clean.content}\n还是神药` } : clean;
        }
        if (index === 0) return { ...base, content: `${base.content}\n能根治干皮` };
        if (index === 1) return { ...base, content: `${base.content}\n简直是神药` };
        return base;
      },
    };
    const taskId = await newTask({ text_count: 9, image_count: 0 });
    const rewritesBefore = fake.calls.filter((c) => c.kind === 'rewrite').length;
    await runTaskGeneration(server.ctx, taskId);
    const texts = (await taskDetail(server, ws.token, taskId)).text_candidates as any[];
    expect(texts).toHaveLength(9);
    const byStatus = (s: string) => texts.filter((t) => t.banned_word_status === s);
    // Per set (3 notes each): note 0 rewritten clean, note 1 still blocked, note 2 only soft-warns (懒人).
    expect(byStatus('hard_block')).toHaveLength(3);
    expect(byStatus('soft_warn')).toHaveLength(3);
    expect(byStatus('auto_fixed')).toHaveLength(3);
    for (const t of texts) {
      expect(t.content).not.toContain('超级'); // auto-fixed everywhere
      expect(t.content).not.toContain('根治');
    }
    expect(byStatus('auto_fixed').every((t) => t.content.startsWith('换季皮肤') && t.content.includes('改写后'))).toBe(true);
    expect(byStatus('hard_block').every((t) => t.content.includes('神药'))).toBe(true);
    // One rewrite per blocked note: 2 blocked notes in each of 3 sets.
    expect(fake.calls.filter((c) => c.kind === 'rewrite').length - rewritesBefore).toBe(6);
    // The hard-block costs compliance in the score.
    expect(byStatus('hard_block').every((t) => t.score.compliance <= 2)).toBe(true);
    await server.ctx.db.deleteFrom('banned_words').where('workspace_id', '=', ws.workspaceId).execute();
  });

  it('fails the task with the reason when nothing usable was produced', async () => {
    fake.options = { failText: 401 };
    const taskId = await newTask({ text_count: 2, image_count: 2 });
    await runTaskGeneration(server.ctx, taskId);
    const detail = await taskDetail(server, ws.token, taskId);
    expect(detail.status).toBe('failed');
    const row = await server.ctx.db.selectFrom('tasks').select('failure_reason').where('id', '=', taskId).executeTakeFirstOrThrow();
    expect(row.failure_reason).toMatch(/^nothing usable was produced: set A: .*key was refused/);
    const events = await eventsOf(server, taskId);
    // Each set's failure carries its kind, so the console can say what to do in its own words.
    const setErrors = named(events, 'error').filter((e) => /^texts of set/.test(e.message));
    expect(setErrors.map((e) => e.error_kind)).toEqual(['auth', 'auth']);
    expect(events.at(-1)).toMatchObject({ name: 'done', data: { status: 'failed' } });
    expect(named(events, 'error').at(-1).message).toBe(row.failure_reason);
    expect([detail.failure_key, detail.failure_params.error_kind]).toEqual(['failure.nothing', 'auth']);
    // The sets are written side by side: their failures come in either order.
    expect(setErrors.map((e) => [e.reason, e.params.set, e.params.error_kind]).sort()).toEqual([
      ['failure.text_set', 'A', 'auth'],
      ['failure.text_set', 'B', 'auth'],
    ]);
    // The key never appears anywhere a user or a log reader could see it.
    expect(JSON.stringify(events)).not.toContain('sk-test-not-real');
    expect(server.logs.join('')).not.toContain('sk-test-not-real');
  });
});
