import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form } from '../config/setup.js';
import { runTaskGeneration } from '../../src/modules/tasks/pipeline.js';
import { eventsOf, named, taskDetail } from '../generation/helpers.js';
import type { TestServer } from '../helpers/server.js';
import { API, ok } from '../tasks/fixtures.js';
import { startPresetsWorld, type FakePresets, type PresetName } from './fake-presets.js';

/**
 * Providers as they behave in 2026-11 (docs/providers.md), through the real HTTP API: DeepSeek V4
 * thinks unless told not to and spends it from max_tokens, its error bodies name the problem only
 * in `message`, a verbose model needs more room for one note, a relay drops json_schema, and a
 * connection's options shape what is sent.
 */
let fake: FakePresets;
let server: TestServer;
let admin: string;

beforeAll(async () => ({ fake, server, admin } = await startPresetsWorld()));
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

let wsSeq = 0;
async function workspace(name = '云朵保湿霜'): Promise<{ token: string; productId: number }> {
  const ws = await ok(server, 'POST', '/workspaces', admin, { name: `本月 ${++wsSeq}`, slug: `month-${wsSeq}-${Math.random().toString(36).slice(2, 6)}` });
  const { token } = await ok(server, 'POST', '/workspaces/switch', admin, { workspace_id: ws.id });
  const product = await ok(server, 'POST', '/products', token, { name, category: '护肤', source: 'custom', selling_points: ['48小时保湿', '敏感肌可用'] });
  return { token, productId: product.id };
}

async function connect(token: string, preset: PresetName, extra: Record<string, unknown> = {}) {
  const provider = preset === 'relay' || preset === 'lax' ? 'openai-compatible' : preset;
  return ok(server, 'POST', '/api-keys', token, { provider, api_key: 'sk-live-0123456789', base_url: fake.baseUrl(preset), ...extra });
}

async function generate(token: string, productId: number, body: Record<string, unknown>) {
  const task = await ok(server, 'POST', '/tasks', token, { product_id: productId, theme: '秋冬换季护肤', track: 'ai', ...body });
  const id = (task.id ?? task.task_id) as number;
  await runTaskGeneration(server.ctx, id);
  return taskDetail(server, token, id);
}

const textCheck = async (token: string, id: number) => (await ok(server, 'POST', `/api-keys/${id}/test`, token, {})).results.find((r: any) => r.capability === 'text');
const chatsSince = (n: number) => fake.calls.slice(n).filter((c) => c.path.endsWith('/chat/completions'));
const noteCalls = (n: number) => chatsSince(n).filter((c) => String(c.body.messages.at(-1).content).includes('named "notes"'));

describe('DeepSeek as it is this month', () => {
  it('the key test passes on a good key: thinking is switched off, so 16 tokens are enough', async () => {
    const { token } = await workspace();
    const conn = await connect(token, 'deepseek');
    expect(conn).toMatchObject({ text_model: 'deepseek-flash', options: { thinking: 'off', token_param: 'auto', temperature: 'auto' }, retiring: [] });
    const from = fake.calls.length;
    const tested = await ok(server, 'POST', `/api-keys/${conn.id}/test`, token, {});
    expect(tested.ok, JSON.stringify(tested)).toBe(true);
    const [call] = chatsSince(from);
    expect(call!.body).toMatchObject({ model: 'deepseek-flash', thinking: { type: 'disabled' } });
    expect(call!.body.max_tokens).toBeLessThanOrEqual(16);
    expect(call!.reasoningTokens).toBe(0);
  });

  it('with thinking left to the provider, the reasoning eats the budget: truncated, never the reasoning taken as the answer', async () => {
    const { token } = await workspace();
    const conn = await connect(token, 'deepseek', { options: { thinking: 'provider_default' } });
    expect(conn.options).toEqual({ thinking: 'provider_default', token_param: 'auto', temperature: 'auto' });
    const from = fake.calls.length;
    const result = await textCheck(token, conn.id);
    expect(result).toMatchObject({ ok: false, error_kind: 'truncated' });
    expect(result.message).toMatch(/thinking/);
    const [call] = chatsSince(from);
    expect(call!.body.thinking).toBeUndefined();
    expect(call!.reasoningTokens).toBe(call!.body.max_tokens);
  });

  it('options are stored, changed one at a time, and shape what each call sends', async () => {
    const { token, productId } = await workspace();
    const conn = await connect(token, 'deepseek');
    const patched = await ok(server, 'PATCH', `/api-keys/${conn.id}`, token, { options: { thinking: 'on', token_param: 'max_completion_tokens' } });
    expect(patched.options).toEqual({ thinking: 'on', token_param: 'max_completion_tokens', temperature: 'auto' });
    const again = await ok(server, 'PATCH', `/api-keys/${conn.id}`, token, { options: { temperature: 'omit' } });
    expect(again.options).toEqual({ thinking: 'on', token_param: 'max_completion_tokens', temperature: 'omit' });
    const listed = (await ok(server, 'GET', '/api-keys?page_size=100', token)).items.find((k: any) => k.id === conn.id);
    expect(listed.options).toEqual(again.options);
    const from = fake.calls.length;
    await generate(token, productId, { text_count: 3, image_count: 0 });
    const chats = chatsSince(from);
    expect(chats.length).toBeGreaterThan(0);
    for (const c of chats) {
      expect(c.body.thinking).toEqual({ type: 'enabled' });
      expect(c.body.max_tokens).toBeUndefined();
      expect(c.body.max_completion_tokens).toBeGreaterThan(0);
      expect(c.body.temperature).toBeUndefined();
    }
  });

  it('refuses an unknown option value with the error envelope', async () => {
    const { token } = await workspace();
    const res = await server.request('POST', `${API}/api-keys`, { token, body: { provider: 'deepseek', api_key: 'sk-live-0123456789', base_url: fake.baseUrl('deepseek'), options: { thinking: 'maybe' } } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(40000);
    expect(res.body.message).toMatch(/thinking/);
    const conn = await connect(token, 'deepseek');
    const patch = await server.request('PATCH', `${API}/api-keys/${conn.id}`, { token, body: { options: { token_param: 'max_output_tokens' } } });
    expect(patch.status).toBe(400);
    expect(patch.body.code).toBe(40000);
  });

  it('the first task (6 texts) reaches pending_selection, every call with thinking off', async () => {
    const { token, productId } = await workspace();
    await connect(token, 'deepseek');
    const from = fake.calls.length;
    const detail = await generate(token, productId, { text_count: 6, image_count: 0 });
    expect(detail.status, JSON.stringify(await eventsOf(server, detail.id))).toBe('pending_selection');
    expect(detail.text_candidates).toHaveLength(6);
    const chats = chatsSince(from);
    expect(chats.every((c) => c.body.thinking?.type === 'disabled' && c.reasoningTokens === 0 && c.status === 200)).toBe(true);
  });
});

describe('error bodies and finish reasons, as each provider documents them', () => {
  it('DeepSeek: "Content Exists Risk" is content_blocked, "Model Not Exist" model_not_found', async () => {
    const { token, productId } = await workspace('敏感词面霜');
    const unknown = await connect(token, 'deepseek', { text_model: 'deepseek-v9' });
    expect(await textCheck(token, unknown.id)).toMatchObject({ ok: false, error_kind: 'model_not_found' });
    await ok(server, 'DELETE', `/api-keys/${unknown.id}`, token);
    await connect(token, 'deepseek');
    const detail = await generate(token, productId, { text_count: 3, image_count: 0 });
    expect(detail.status).toBe('failed');
    const errors = named(await eventsOf(server, detail.id), 'error').filter((e) => /^texts of set/.test(e.message));
    expect(errors.map((e) => e.error_kind)).toEqual(['content_blocked', 'content_blocked', 'content_blocked']);
  });

  it('finish_reason content_filter is content_blocked, not bad output', async () => {
    const { token, productId } = await workspace('过滤词精华');
    await connect(token, 'deepseek');
    const detail = await generate(token, productId, { text_count: 3, image_count: 0 });
    const errors = named(await eventsOf(server, detail.id), 'error').filter((e) => /^texts of set/.test(e.message));
    expect(errors.map((e) => e.error_kind)).toEqual(['content_blocked', 'content_blocked', 'content_blocked']);
  });

  it('a prompt over the context window is unsupported, with what to do', async () => {
    const { token, productId } = await workspace('超长上下文面霜');
    await connect(token, 'deepseek');
    const detail = await generate(token, productId, { text_count: 3, image_count: 0 });
    const errors = named(await eventsOf(server, detail.id), 'error').filter((e) => /^texts of set/.test(e.message));
    expect(errors.map((e) => e.error_kind)).toEqual(['unsupported', 'unsupported', 'unsupported']);
    expect(errors[0]!.message).toMatch(/context window: choose a model with a larger context/);
  });

  it("OpenAI's region refusal is not a wrong key; an overloaded provider is unavailable", async () => {
    const { token } = await workspace();
    const region = await connect(token, 'openai', { api_key: 'sk-region-0123456789' });
    const refused = await textCheck(token, region.id);
    expect(refused).toMatchObject({ ok: false, error_kind: 'unsupported' });
    expect(refused.message).toMatch(/country or region: use a relay or another provider/);
    for (const key of ['sk-busy-0123456789', 'sk-busy529-0123456789']) {
      const busy = await connect(token, 'deepseek', { api_key: key });
      expect(await textCheck(token, busy.id), key).toMatchObject({ ok: false, error_kind: 'unavailable' });
    }
  });
});

describe('verbose models and relays that drop json_schema', () => {
  it('a model that spends 2,000 tokens on a note writes every note: one cut note is asked again with twice the budget', async () => {
    const { token, productId } = await workspace();
    await connect(token, 'deepseek');
    fake.verbose.deepseek = 2000;
    try {
      const from = fake.calls.length;
      const detail = await generate(token, productId, { text_count: 6, image_count: 0 });
      expect(detail.status, JSON.stringify(await eventsOf(server, detail.id))).toBe('pending_selection');
      expect(detail.text_candidates).toHaveLength(6);
      const notes = noteCalls(from);
      const single = notes.filter((c) => c.body.max_tokens === 1600);
      expect(single.length).toBe(6);
      expect(single.every((c) => c.finishReason === 'length')).toBe(true);
      const roomy = notes.filter((c) => c.body.max_tokens === 3200);
      expect(roomy.length).toBe(6);
      expect(roomy.every((c) => c.finishReason === 'stop')).toBe(true);
    } finally {
      delete fake.verbose.deepseek;
    }
  });

  it('a rewrite cut by its budget is asked again with twice the budget, like a note', async () => {
    const { token, productId } = await workspace();
    await connect(token, 'deepseek');
    // Every note the offline writer behind the fake tags 好物分享: blocked, each note is rewritten.
    await ok(server, 'POST', '/banned-words', token, { word: '好物分享', level: 'hard_block' });
    fake.verbose.deepseek = 2000;
    try {
      const from = fake.calls.length;
      const detail = await generate(token, productId, { text_count: 3, image_count: 0 });
      expect(detail.status).toBe('pending_selection');
      const rewrites = noteCalls(from).filter((c) => String(c.body.messages.at(-1).content).startsWith('【改写任务】'));
      expect(rewrites.filter((c) => c.body.max_tokens === 1600 && c.finishReason === 'length')).toHaveLength(3);
      expect(rewrites.filter((c) => c.body.max_tokens === 3200 && c.finishReason === 'stop')).toHaveLength(3);
    } finally {
      delete fake.verbose.deepseek;
    }
  });

  it('a note that does not fit twice its budget either fails its set, saying why', async () => {
    const { token, productId } = await workspace();
    await connect(token, 'deepseek');
    fake.verbose.deepseek = 5000;
    try {
      const from = fake.calls.length;
      const detail = await generate(token, productId, { text_count: 3, image_count: 0 });
      expect(detail.status).toBe('failed');
      expect(Math.max(...noteCalls(from).map((c) => c.body.max_tokens))).toBe(3200);
      const errors = named(await eventsOf(server, detail.id), 'error').filter((e) => /^texts of set/.test(e.message));
      expect(errors.map((e) => e.error_kind)).toEqual(['truncated', 'truncated', 'truncated']);
    } finally {
      delete fake.verbose.deepseek;
    }
  });

  it('a relay that answers json_schema with a 200 and drops it steps down like a refusal, remembered for the connection', async () => {
    const { token, productId } = await workspace();
    const relay = await connect(token, 'lax', { text_model: 'glm-4-flash', name: '宽松中转' });
    const from = fake.calls.length;
    const first = await generate(token, productId, { text_count: 3, image_count: 0 });
    expect(first.status, JSON.stringify(await eventsOf(server, first.id))).toBe('pending_selection');
    expect(first.text_candidates).toHaveLength(3);
    expect(chatsSince(from).some((c) => c.body.response_format?.type === 'json_schema')).toBe(true);
    const row = await server.ctx.db.selectFrom('api_keys').select('structured_mode').where('id', '=', relay.id).executeTakeFirstOrThrow();
    expect(row.structured_mode).toBe('json_object');
    const again = fake.calls.length;
    expect((await generate(token, productId, { text_count: 3, image_count: 0 })).status).toBe('pending_selection');
    expect(chatsSince(again).some((c) => c.body.response_format?.type === 'json_schema')).toBe(false);
  });
});

describe('the dated catalogue', () => {
  it('a connection whose model shuts down within 30 days says so in its read and its test', async () => {
    const { token } = await workspace();
    const offset = Date.parse('2026-11-20T00:00:00Z') - server.clock.now().getTime();
    server.clock.advance(offset);
    try {
      const old = await connect(token, 'openai', { text_model: 'gpt-5-mini', vision_model: 'gpt-5-mini' });
      expect(old.retiring).toEqual([
        { capability: 'text', model: 'gpt-5-mini', retires_on: '2026-12-11' },
        { capability: 'vision', model: 'gpt-5-mini', retires_on: '2026-12-11' },
      ]);
      const tested = await ok(server, 'POST', `/api-keys/${old.id}/test`, token, {});
      expect(tested.retiring).toEqual(old.retiring);
      const current = await connect(token, 'openai');
      expect(current).toMatchObject({ text_model: 'gpt-5.4-mini', retiring: [] });
    } finally {
      server.clock.advance(-offset);
    }
    // Two months before the date it is not yet worth a warning.
    const early = Date.parse('2026-10-01T00:00:00Z') - server.clock.now().getTime();
    server.clock.advance(early);
    try {
      expect((await connect(token, 'openai', { text_model: 'gpt-5-mini' })).retiring).toEqual([]);
    } finally {
      server.clock.advance(-early);
    }
  });
});

describe('routing and a failed test', () => {
  it('automatic routing passes over a connection whose latest test failed; one chosen by hand is kept with a warning', async () => {
    const { token, productId } = await workspace();
    const good = await connect(token, 'deepseek');
    const broke = await connect(token, 'deepseek', { api_key: 'sk-broke-0123456789', name: '欠费的 DeepSeek' });
    // Newest first: untested, the broke one would write.
    expect(await textCheck(token, broke.id)).toMatchObject({ ok: false, error_kind: 'insufficient_balance' });
    const detail = await generate(token, productId, { text_count: 3, image_count: 0 });
    expect(detail.status).toBe('pending_selection');
    expect(detail.providers.text).toMatchObject({ key_id: good.id });

    const routing = { text_key_id: broke.id, vision_key_id: null, image_key_id: null };
    expect(await ok(server, 'PUT', '/workspaces/current/generation', token, routing)).toEqual({
      ...routing,
      warnings: [{ capability: 'text', key_id: broke.id, error_kind: 'insufficient_balance' }],
    });
    expect((await ok(server, 'GET', '/workspaces/current/generation', token)).warnings).toHaveLength(1);
    const chosen = await generate(token, productId, { text_count: 3, image_count: 0 });
    expect(chosen.providers.text).toMatchObject({ key_id: broke.id });

    // A passing test clears the warning (here: the key replaced, which also clears the old result).
    await ok(server, 'PATCH', `/api-keys/${broke.id}`, token, { api_key: 'sk-live-9876543210' });
    expect((await ok(server, 'GET', '/workspaces/current/generation', token)).warnings).toEqual([]);
  });
});

describe("the provider's own model list", () => {
  it('lists what the provider offers, marked by capability and shutdown day; a refused key is an error kind, not a 500', async () => {
    const { token } = await workspace();
    const conn = await connect(token, 'qwen');
    const from = fake.calls.length;
    const list = await ok(server, 'GET', `/api-keys/${conn.id}/models`, token);
    expect(fake.calls.slice(from).map((c) => c.path)).toEqual(['/compatible-mode/v1/models']);
    expect(list).toMatchObject({ ok: true, source: 'provider', error_kind: null });
    const byId = Object.fromEntries(list.models.map((m: any) => [m.id, m.capabilities]));
    expect(byId).toEqual({
      'qwen-image-edit': ['image'],
      'qwen-image-edit-plus': ['image'],
      'qwen-plus': ['text'],
      'qwen3-vl-plus': ['text', 'vision'],
      'text-embedding-v4': [],
      'wan2.2-t2i-flash': ['image'],
      'wan2.6-t2i': ['image'],
    });

    const bad = await connect(token, 'deepseek', { api_key: 'sk-bad-0123456789' });
    const refused = await server.request('GET', `${API}/api-keys/${bad.id}/models`, { token });
    expect(refused.status).toBe(200);
    expect(refused.body.data).toMatchObject({ ok: false, models: [], error_kind: 'auth' });
  });

  it("a preset without a documented list offers the catalogue's models, with their shutdown days", async () => {
    const { token } = await workspace();
    const conn = await connect(token, 'doubao');
    const from = fake.calls.length;
    const list = await ok(server, 'GET', `/api-keys/${conn.id}/models`, token);
    expect(fake.calls.length).toBe(from);
    expect(list.source).toBe('catalogue');
    expect(list.models.find((m: any) => m.id === 'doubao-seedream-4-5-251128')).toEqual({ id: 'doubao-seedream-4-5-251128', capabilities: ['image'], retires_on: '2026-11-24' });
  });
});

describe("each preset's first task", () => {
  for (const preset of ['deepseek', 'moonshot', 'relay', 'lax'] as const) {
    it(`${preset}: 6 texts reach pending_selection with the catalogue's defaults`, async () => {
      const { token, productId } = await workspace();
      await connect(token, preset, preset === 'relay' || preset === 'lax' ? { text_model: 'glm-4-flash', image_model: '' } : {});
      const detail = await generate(token, productId, { text_count: 6, image_count: 0 });
      expect(detail.status, JSON.stringify(await eventsOf(server, detail.id))).toBe('pending_selection');
      expect(detail.text_candidates).toHaveLength(6);
    });
  }

  it('qwen with Wan 2.6: its own synchronous endpoint and a size inside its pixel range', async () => {
    const { token, productId } = await workspace();
    const conn = await connect(token, 'qwen', { image_model: 'wan2.6-t2i' });
    const from = fake.calls.length;
    const detail = await generate(token, productId, { text_count: 6, image_count: 2 });
    expect(detail.status, JSON.stringify(await eventsOf(server, detail.id))).toBe('pending_selection');
    expect(detail.image_candidates.filter((i: any) => i.status === 'done')).toHaveLength(6);
    expect(detail.providers.image).toMatchObject({ key_id: conn.id, model: 'wan2.6-t2i' });
    const images = fake.calls.slice(from).filter((c) => /multimodal-generation|image-synthesis/.test(c.path));
    expect(images).toHaveLength(6);
    for (const c of images) {
      expect(c.path).toMatch(/multimodal-generation\/generation$/);
      expect(c.status).toBe(200);
      const [w, h] = String(c.body.parameters.size).split('*').map(Number) as [number, number];
      expect(w / h).toBeCloseTo(3 / 4, 1);
    }
  });
});

describe('options left auto adapt to what the endpoint refuses', () => {
  const relayToOpenAI = (token: string, options?: Record<string, string>) =>
    ok(server, 'POST', '/api-keys', token, { provider: 'openai-compatible', api_key: 'sk-live-0123456789', base_url: fake.baseUrl('openai'), text_model: 'gpt-5.4-mini', image_model: '', ...(options ? { options } : {}) });

  it('a relay in front of a reasoning model: max_completion_tokens and no temperature after one refusal each, then straight away', async () => {
    const { token, productId } = await workspace();
    await relayToOpenAI(token);
    const from = fake.calls.length;
    const first = await generate(token, productId, { text_count: 3, image_count: 0 });
    expect(first.status, JSON.stringify(await eventsOf(server, first.id))).toBe('pending_selection');
    const refused = chatsSince(from).filter((c) => c.status === 400);
    // Calls already in flight meet the same refusal; each is asked again once adapted.
    expect(new Set(refused.map((c) => (c.body.max_tokens !== undefined ? 'max_tokens' : 'temperature')))).toEqual(new Set(['max_tokens', 'temperature']));
    const again = fake.calls.length;
    expect((await generate(token, productId, { text_count: 3, image_count: 0 })).status).toBe('pending_selection');
    const chats = chatsSince(again);
    expect(chats.every((c) => c.status === 200 && c.body.max_tokens === undefined && c.body.max_completion_tokens > 0 && c.body.temperature === undefined)).toBe(true);
  });

  it('an option set by hand is sent as set: the refusal is the answer', async () => {
    const { token, productId } = await workspace();
    await relayToOpenAI(token, { token_param: 'max_tokens' });
    const detail = await generate(token, productId, { text_count: 3, image_count: 0 });
    expect(detail.status).toBe('failed');
    const errors = named(await eventsOf(server, detail.id), 'error').filter((e) => /^texts of set/.test(e.message));
    expect(errors.map((e) => e.error_kind)).toEqual(['unsupported', 'unsupported', 'unsupported']);
  });
});

describe('several product photos for models that take several', () => {
  async function withPhotos(token: string, productId: number, scenes: string[]) {
    for (const [k, scene] of scenes.entries()) {
      const photo = await sharp({ create: { width: 300 + 10 * k, height: 400, channels: 3, background: '#e0d0c0' } }).png().toBuffer();
      const up = await server.request('POST', `${API}/products/${productId}/images`, { token, raw: form({ scene }, { field: 'image', name: `p${k}.png`, type: 'image/png', data: photo }) });
      expect(up.status, up.text).toBe(200);
    }
  }
  const photoSizes = (urls: string[]) => urls.map((u) => u.length);

  // Which photo comes first for a role: test/config/images-and-files.test.ts.
  it('Seedream gets up to 4 distinct photos as an array, Qwen image editing up to 3', async () => {
    const { token, productId } = await workspace();
    await withPhotos(token, productId, ['白底正面 主图', '成分细节特写', '使用前后对比', '礼盒包装', '生活场景']);
    await connect(token, 'doubao');
    const from = fake.calls.length;
    const detail = await generate(token, productId, { text_count: 3, image_count: 2 });
    expect(detail.status, JSON.stringify(await eventsOf(server, detail.id))).toBe('pending_selection');
    const seedream = fake.calls.slice(from).filter((c) => c.path.endsWith('/images/generations'));
    expect(seedream.length).toBeGreaterThan(0);
    for (const c of seedream) {
      expect(c.status).toBe(200);
      expect(Array.isArray(c.body.image) && c.body.image.length).toBe(4);
      expect(new Set(photoSizes(c.body.image)).size).toBe(4);
    }

    const qwen = await workspace();
    await withPhotos(qwen.token, qwen.productId, ['白底正面 主图', '成分细节特写', '使用前后对比', '礼盒包装']);
    await connect(qwen.token, 'qwen');
    const qFrom = fake.calls.length;
    const qDetail = await generate(qwen.token, qwen.productId, { text_count: 3, image_count: 2 });
    expect(qDetail.status).toBe('pending_selection');
    const edits = fake.calls.slice(qFrom).filter((c) => c.path.endsWith('/multimodal-generation/generation'));
    expect(edits.length).toBeGreaterThan(0);
    for (const c of edits) {
      expect(c.status).toBe(200);
      expect(c.body.input.messages[0].content.filter((part: any) => part.image)).toHaveLength(3);
    }
  });
});
