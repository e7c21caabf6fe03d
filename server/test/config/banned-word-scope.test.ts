import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTaskGeneration } from '../../src/modules/tasks/pipeline.js';
import { defaultNote, startFakeOpenAI, type FakeOpenAI } from '../generation/fake-openai.js';
import { taskDetail } from '../generation/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, seedCandidates } from '../tasks/fixtures.js';

/**
 * `product.banned_word_ids` (the contract's "ids of banned words attached to the product"): a
 * word attached to no product applies to every product's texts; a word attached to a product is
 * that product's extra word and applies to its texts only. Checked at every place words are
 * checked, through the HTTP API and the generation pipeline.
 */
describe('banned words attached to a product apply to its texts only', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  let token: string;
  let workspaceId: number;
  let productA: number;
  let productB: number;

  const ONLY_A = '甲牌专用词';
  const EVERYWHERE = '全局禁用词';
  const WARN_A = '试用装';

  beforeAll(async () => {
    // Every note the fake writes mentions the word that is a warning for product A only.
    fake = await startFakeOpenAI({ note: (i, opts) => ({ ...defaultNote(i, opts), content: `${defaultNote(i, opts).content}\n${WARN_A}也很好带。` }) });
    server = await startTestServer({ worker: false, env: { ALLOW_PRIVATE_PROVIDER_URLS: '1', PROVIDER_MAX_RETRIES: '0' } });
    token = await server.adminToken();
    workspaceId = (await ok(server, 'GET', '/auth/me', token)).current_workspace_id;
    await ok(server, 'POST', '/api-keys', token, { provider: 'openai-compatible', api_key: 'sk-test-scope-1234', base_url: fake.url, text_model: 'gpt-4.1-mini', image_model: 'gpt-image-1' });
    const onlyA = await ok(server, 'POST', '/banned-words', token, { word: ONLY_A, level: 'hard_block' });
    const warnA = await ok(server, 'POST', '/banned-words', token, { word: WARN_A, level: 'soft_warn' });
    await ok(server, 'POST', '/banned-words', token, { word: EVERYWHERE, level: 'hard_block' });
    productA = (await ok(server, 'POST', '/products', token, { name: '甲牌面霜', category: '护肤', source: 'custom', banned_word_ids: [onlyA.id, warnA.id] })).id;
    productB = (await ok(server, 'POST', '/products', token, { name: '乙牌面霜', category: '护肤', source: 'custom' })).id;
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  const ws = (productId: number) => ({ token, workspaceId, productId });
  const post = (path: string, body: unknown) => server.request('POST', `${API}${path}`, { token, body });

  it('task creation: a word of product A blocks a task of A, not of B; an unattached word blocks both', async () => {
    for (const [productId, theme, status] of [
      [productA, `${ONLY_A}秋冬`, 422],
      [productB, `${ONLY_A}秋冬`, 200],
      [productA, `${EVERYWHERE}秋冬`, 422],
      [productB, `${EVERYWHERE}秋冬`, 422],
    ] as const) {
      const res = await post('/tasks', { product_id: productId, theme, text_count: 1, image_count: 0, track: 'ai' });
      expect([productId === productA ? 'A' : 'B', theme, res.status]).toEqual([productId === productA ? 'A' : 'B', theme, status]);
      if (status === 422) expect(res.body.code).toBe(42202);
    }
  });

  it('generation: the writer avoids, the checker flags and the judge is told product A’s words for A only', async () => {
    const generated = async (productId: number) => {
      const from = fake.calls.length;
      const task = await createTask(server, ws(productId), { text_count: 1, image_count: 0 });
      await runTaskGeneration(server.ctx, task.id);
      const calls = fake.calls.slice(from);
      const avoid = calls.find((c) => c.kind === 'notes')!.prompt.split('\n').find((l) => l.startsWith('本工作区会直接拦下的词'))!;
      const judge = calls.find((c) => c.kind === 'score')!.prompt;
      const [text] = (await taskDetail(server, token, task.id)).text_candidates as any[];
      return { avoid, judge, text };
    };
    const a = await generated(productA);
    expect(a.avoid).toContain(ONLY_A);
    // A warning does not stop a note, so the writer is not told it blocks (the checker still flags it).
    expect(a.avoid).not.toContain(WARN_A);
    expect(a.avoid).toContain(EVERYWHERE);
    expect(a.judge).toContain(`命中的禁用或风险词：${WARN_A}`);
    expect(a.text.banned_word_status).toBe('soft_warn');

    const b = await generated(productB);
    expect(b.avoid).not.toContain(ONLY_A);
    expect(b.avoid).not.toContain(WARN_A);
    expect(b.avoid).toContain(EVERYWHERE);
    expect(b.judge).toContain('命中的禁用或风险词：无');
    expect(b.text.banned_word_status).toBe('pass');
  });

  it('edits and imports are checked against the words of their task’s product', async () => {
    const edited = async (productId: number, content: string) => {
      const task = await createTask(server, ws(productId), { text_count: 1, image_count: 0 });
      const { texts } = await seedCandidates(server, ws(productId), task.id);
      const res = await post(`/tasks/${task.id}/text-candidates/${texts[0]}/edit`, { content });
      expect(res.status).toBe(200);
      return res.body.data.banned_word_status;
    };
    expect(await edited(productA, `换季用它，${ONLY_A}不提。`)).toBe('hard_block');
    expect(await edited(productB, `换季用它，${ONLY_A}不提。`)).toBe('pass');
    expect(await edited(productB, `换季用它，${EVERYWHERE}不提。`)).toBe('hard_block');

    const imported = async (productId: number) => {
      const task = await createTask(server, ws(productId), { track: 'import', text_count: 1, image_count: 0 });
      const res = await post(`/tasks/${task.id}/import-text`, { content: `自己写的：出门带${WARN_A}，轻便。`, angle_label: '出行' });
      expect(res.status).toBe(200);
      return res.body.data.banned_word_status;
    };
    expect(await imported(productA)).toBe('soft_warn');
    expect(await imported(productB)).toBe('pass');
  });

  it('detaching the word from product A lets it apply to every product again', async () => {
    await ok(server, 'PUT', `/products/${productA}`, token, { name: '甲牌面霜', category: '护肤', source: 'custom', banned_word_ids: [] });
    const res = await post('/tasks', { product_id: productB, theme: `${ONLY_A}秋冬`, text_count: 1, image_count: 0, track: 'ai' });
    expect(res.status).toBe(422);
  });
});
