import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEGATIVE_PROMPT } from '../../src/content/storyboard.js';
import { runFission } from '../../src/modules/fission/pipeline.js';
import { runTaskGeneration } from '../../src/modules/tasks/pipeline.js';
import { form } from '../config/setup.js';
import { eventsOf, named, taskDetail } from '../generation/helpers.js';
import { paceOf } from '../../src/providers/factory.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { API, ok } from '../tasks/fixtures.js';
import { startPresetsWorld, type FakePresets, type PresetName } from './fake-presets.js';
import { strictViolations } from './strict-rules.js';

/**
 * Provider connections through the real HTTP API, against a local server that behaves as each
 * provider documents (fake-presets.ts). Every workspace is a fresh one of the admin, so routing
 * and automatic choices of one test never leak into another. Jobs are run by the test.
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
/** A fresh workspace of the admin with one product carrying a scene photo; its token. */
async function workspace(withPhoto = true): Promise<{ token: string; productId: number }> {
  const ws = await ok(server, 'POST', '/workspaces', admin, { name: `连接 ${++wsSeq}`, slug: `conn-${wsSeq}-${Math.random().toString(36).slice(2, 6)}` });
  const { token } = await ok(server, 'POST', '/workspaces/switch', admin, { workspace_id: ws.id });
  const product = await ok(server, 'POST', '/products', token, { name: '云朵保湿霜', category: '护肤', source: 'custom', selling_points: ['48小时保湿', '敏感肌可用'] });
  if (withPhoto) {
    const photo = await sharp({ create: { width: 300, height: 400, channels: 3, background: '#e0d0c0' } }).png().toBuffer();
    const up = await server.request('POST', `${API}/products/${product.id}/images`, { token, raw: form({ scene: '主图 场景' }, { field: 'image', name: 'p.png', type: 'image/png', data: photo }) });
    expect(up.status, up.text).toBe(200);
  }
  return { token, productId: product.id };
}

async function connect(token: string, preset: PresetName | 'openai-compatible', extra: Record<string, unknown> = {}) {
  const provider = preset === 'relay' ? 'openai-compatible' : preset;
  const base = preset === 'openai-compatible' ? fake.baseUrl('relay') : fake.baseUrl(preset as PresetName);
  return ok(server, 'POST', '/api-keys', token, { provider, api_key: 'sk-live-0123456789', base_url: base, ...extra });
}

async function generate(token: string, productId: number, body: Record<string, unknown>) {
  const task = await ok(server, 'POST', '/tasks', token, { product_id: productId, theme: '秋冬换季护肤', track: 'ai', ...body });
  const id = (task.id ?? task.task_id) as number;
  await runTaskGeneration(server.ctx, id);
  return taskDetail(server, token, id);
}

const callsSince = (n: number) => fake.calls.slice(n);

describe('every preset that draws: 6 texts and 2 images per set through the HTTP API', () => {
  const cases: Array<{ preset: PresetName; imagePath: RegExp; reference: 'edits' | 'image-field' | 'dashscope-edit' | null }> = [
    { preset: 'openai', imagePath: /\/images\/edits$/, reference: 'edits' },
    { preset: 'qwen', imagePath: /multimodal-generation\/generation$/, reference: 'dashscope-edit' },
    { preset: 'doubao', imagePath: /\/images\/generations$/, reference: 'image-field' },
    { preset: 'zhipu', imagePath: /\/images\/generations$/, reference: null },
    { preset: 'siliconflow', imagePath: /\/images\/generations$/, reference: 'image-field' },
  ];
  for (const { preset, imagePath, reference } of cases) {
    it(`${preset}`, async () => {
      const { token, productId } = await workspace();
      const conn = await connect(token, preset);
      expect(conn.capabilities).toEqual({ text: true, vision: true, image: true });
      const from = fake.calls.length;
      const detail = await generate(token, productId, { text_count: 6, image_count: 2 });
      expect(detail.status, JSON.stringify(await eventsOf(server, detail.id))).toBe('pending_selection');
      expect(detail.text_candidates).toHaveLength(6);
      expect(detail.image_candidates).toHaveLength(6);
      expect(detail.providers).toMatchObject({ text: { key_id: conn.id, provider: preset, model: conn.text_model }, vision: null, image: { key_id: conn.id, model: conn.image_model } });

      const calls = callsSince(from);
      const chats = calls.filter((c) => c.path.endsWith('/chat/completions'));
      expect(chats.every((c) => c.status === 200)).toBe(true);
      // Every call carries an output budget, in the parameter the provider reads.
      const param = preset === 'openai' ? 'max_completion_tokens' : 'max_tokens';
      for (const c of chats) expect(c.body[param], JSON.stringify(c.body).slice(0, 200)).toBeGreaterThan(0);
      const images = calls.filter((c) => imagePath.test(c.path));
      expect(images).toHaveLength(6);
      expect(images.every((c) => c.status === 200)).toBe(true);
      // The product photo reaches the model where it takes one, and only then does a prompt claim it.
      const prompts = images.map((c) => String(c.form?.prompt ?? c.body.prompt ?? c.body.input?.messages?.[0]?.content?.[1]?.text));
      if (reference === 'edits') expect(images.every((c) => /^<file:image\/png:\d+>$/.test(c.form!.image!))).toBe(true);
      if (reference === 'image-field') expect(images.every((c) => String(c.body.image).startsWith('data:image/png;base64,'))).toBe(true);
      if (reference === 'dashscope-edit') {
        expect(images.every((c) => c.body.input.messages[0].content[0].image.startsWith('data:image/png;base64,'))).toBe(true);
        // qwen-image-edit-plus keeps the photo's ratio unless told: the portrait size is always sent.
        expect(images.map((c) => c.body.model)).toEqual(Array(6).fill('qwen-image-edit-plus'));
        for (const c of images) {
          const [w, h] = String(c.body.parameters.size).split('*').map(Number) as [number, number];
          expect(w / h).toBeCloseTo(3 / 4, 1);
        }
      }
      // The negative prompt goes where the provider's API documents one, and nowhere else.
      const negatives = images.map((c) => c.body.negative_prompt ?? c.body.parameters?.negative_prompt ?? c.body.input?.negative_prompt ?? c.form?.negative_prompt);
      if (preset === 'qwen') expect(images.every((c) => c.body.parameters.negative_prompt === NEGATIVE_PROMPT)).toBe(true);
      else if (preset === 'siliconflow') expect(images.every((c) => c.body.negative_prompt === NEGATIVE_PROMPT)).toBe(true);
      else expect(negatives.every((n) => n === undefined)).toBe(true);
      if (reference === null) {
        expect(images.every((c) => c.body.image === undefined)).toBe(true);
        expect(prompts.some((p: string) => /reference/i.test(p))).toBe(false);
      } else {
        expect(prompts.some((p: string) => /reference/i.test(p))).toBe(true);
      }
    });
  }
});

describe('routing', () => {
  it('DeepSeek writes, Doubao draws; the task records both', async () => {
    const { token, productId } = await workspace();
    const deepseek = await connect(token, 'deepseek');
    expect(deepseek.capabilities).toEqual({ text: true, vision: false, image: false });
    // Without an image connection a task that asks for images is refused up front.
    const refused = await server.request('POST', `${API}/tasks`, { token, body: { product_id: productId, theme: '换季', track: 'ai', text_count: 3, image_count: 2 } });
    expect([refused.status, refused.body.code]).toEqual([422, 42203]);

    const doubao = await connect(token, 'doubao', { text_model: '', vision_model: '', name: '豆包画图' });
    expect(doubao.capabilities).toEqual({ text: false, vision: false, image: true });
    // A connection routed for a capability it lacks cannot be saved; another workspace's is not found.
    const wrong = await server.request('PUT', `${API}/workspaces/current/generation`, { token, body: { text_key_id: doubao.id, vision_key_id: null, image_key_id: null } });
    expect(wrong.status).toBe(400);
    const other = await workspace(false);
    const foreign = await connect(other.token, 'deepseek');
    const notFound = await server.request('PUT', `${API}/workspaces/current/generation`, { token, body: { text_key_id: foreign.id, vision_key_id: null, image_key_id: null } });
    expect(notFound.status).toBe(404);

    const routing = { text_key_id: deepseek.id, vision_key_id: null, image_key_id: doubao.id };
    expect(await ok(server, 'PUT', '/workspaces/current/generation', token, routing)).toEqual({ ...routing, warnings: [] });
    expect(await ok(server, 'GET', '/workspaces/current/generation', token)).toEqual({ ...routing, warnings: [] });

    const from = fake.calls.length;
    const detail = await generate(token, productId, { text_count: 6, image_count: 2 });
    expect(detail.status).toBe('pending_selection');
    expect(detail.providers).toEqual({
      text: { key_id: deepseek.id, provider: 'deepseek', name: 'DeepSeek', model: 'deepseek-flash' },
      vision: null,
      image: { key_id: doubao.id, provider: 'doubao', name: '豆包画图', model: doubao.image_model },
    });
    const calls = callsSince(from);
    expect(new Set(calls.filter((c) => c.path.endsWith('/chat/completions')).map((c) => c.preset))).toEqual(new Set(['deepseek']));
    expect(calls.filter((c) => c.path.endsWith('/images/generations')).map((c) => c.preset)).toEqual(Array(6).fill('doubao'));
    expect(detail.image_candidates).toHaveLength(6);
    // The reviewer sees which connections made what they approve (the console marks demo output by it).
    await ok(server, 'POST', `/tasks/${detail.id}/text-candidates/select`, token, { candidate_id: detail.text_candidates[0].candidate_id });
    await ok(server, 'POST', `/tasks/${detail.id}/submit-review`, token);
    const queue = await ok(server, 'GET', '/review/queue', token);
    expect(queue.items.find((i: { task_id: number }) => i.task_id === detail.id).providers).toEqual(detail.providers);

    // The connection that drew cannot lose its image model while it is routed for images.
    const patch = await server.request('PATCH', `${API}/api-keys/${doubao.id}`, { token, body: { image_model: '' } });
    expect(patch.status).toBe(400);
  });

  it('without routing, the newest connection with each capability is used', async () => {
    const { token, productId } = await workspace(false);
    await connect(token, 'moonshot');
    const zhipu = await connect(token, 'zhipu', { text_model: '' });
    const moonshot2 = await connect(token, 'moonshot', { name: 'Kimi 2' });
    const detail = await generate(token, productId, { text_count: 3, image_count: 1 });
    expect(detail.status).toBe('pending_selection');
    expect(detail.providers.text).toMatchObject({ key_id: moonshot2.id, provider: 'moonshot', model: 'kimi-k2.6' });
    expect(detail.providers.image).toMatchObject({ key_id: zhipu.id, provider: 'zhipu' });
  });
});

describe('structured output and output budgets', () => {
  it('a relay that refuses json_schema works, and the downgrade is remembered for the connection', async () => {
    const { token, productId } = await workspace(false);
    const relay = await connect(token, 'openai-compatible', { text_model: 'glm-4-flash', image_model: 'kolors', name: '公司中转' });
    expect(relay).toMatchObject({ provider: 'openai-compatible', capabilities: { text: true, vision: false, image: true } });
    const from = fake.calls.length;
    const first = await generate(token, productId, { text_count: 3, image_count: 0 });
    expect(first.status).toBe('pending_selection');
    expect(first.text_candidates).toHaveLength(3);
    const refused = callsSince(from).filter((c) => c.status === 400);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.every((c) => c.body.response_format?.type === 'json_schema')).toBe(true);
    const row = await server.ctx.db.selectFrom('api_keys').select('structured_mode').where('id', '=', relay.id).executeTakeFirstOrThrow();
    expect(row.structured_mode).toBe('json_object');
    // The next task asks in JSON mode straight away: no refused call.
    const again = fake.calls.length;
    expect((await generate(token, productId, { text_count: 3, image_count: 0 })).status).toBe('pending_selection');
    expect(callsSince(again).filter((c) => c.status === 400)).toHaveLength(0);
    // Editing the model starts from the strongest mode again.
    await ok(server, 'PATCH', `/api-keys/${relay.id}`, token, { text_model: 'glm-4-flash' });
    expect((await server.ctx.db.selectFrom('api_keys').select('structured_mode').where('id', '=', relay.id).executeTakeFirstOrThrow()).structured_mode).toBeNull();
  });

  it('a reply cut by the output budget is split into smaller calls, not reported as a schema failure', async () => {
    const { token, productId } = await workspace(false);
    await connect(token, 'moonshot');
    // A note is a few hundred tokens here: a model capped at 800 cuts every set of three.
    fake.maxOutput.moonshot = 800;
    try {
      const from = fake.calls.length;
      const detail = await generate(token, productId, { text_count: 9, image_count: 0 });
      expect(detail.status).toBe('pending_selection');
      expect(detail.text_candidates).toHaveLength(9);
      const notes = callsSince(from).filter((c) => c.path.endsWith('/chat/completions') && String(c.body.messages.at(-1).content).includes('named "notes"'));
      // Each set's three-note call was cut; smaller calls (halved until they fit) wrote every note.
      const cut = notes.filter((c) => c.finishReason === 'length');
      expect(cut.length).toBeGreaterThanOrEqual(3);
      expect(cut.filter((c) => c.body.max_tokens === 4000)).toHaveLength(3);
      expect(notes.filter((c) => c.finishReason === 'stop').length).toBeGreaterThanOrEqual(3);
      expect(Math.min(...notes.map((c) => c.body.max_tokens))).toBeLessThan(4000);
      const events = await eventsOf(server, detail.id);
      expect(named(events, 'error').filter((e) => /does not fit/.test(e.message))).toHaveLength(0);
    } finally {
      delete fake.maxOutput.moonshot;
    }
  });

  it('a fission works under OpenAI strict rules: every schema sent passes them', async () => {
    const { token, productId } = await workspace(false);
    await connect(token, 'openai');
    const from = fake.calls.length;
    const detail = await generate(token, productId, { text_count: 1, image_count: 0 });
    expect(detail.status).toBe('pending_selection');
    const fission = await ok(server, 'POST', '/fission', token, { source_task_id: detail.id, reference_level: 'mid', fanout_count: 3 });
    await runFission(server.ctx, fission.fission_id);
    const done = await ok(server, 'GET', `/fission/${fission.fission_id}`, token);
    expect(done.status, JSON.stringify(done).slice(0, 600)).toBe('completed');
    const schemas = callsSince(from).filter((c) => c.body.response_format?.type === 'json_schema');
    expect(new Set(schemas.map((c) => c.body.response_format.json_schema.name))).toEqual(new Set(['notes', 'text_scores', 'fission']));
    for (const c of schemas) expect(strictViolations(c.body.response_format.json_schema.schema), c.body.response_format.json_schema.name).toEqual([]);
  });
});

describe('errors by kind', () => {
  const presets: PresetName[] = ['openai', 'deepseek', 'qwen', 'doubao', 'zhipu', 'moonshot', 'siliconflow'];

  it('the connection test reports auth, insufficient_balance and model_not_found per preset', async () => {
    const { token } = await workspace(false);
    for (const preset of presets) {
      const bad = await connect(token, preset, { api_key: 'sk-bad-0123456789' });
      const broke = await connect(token, preset, { api_key: 'sk-broke-0123456789' });
      const unknown = await connect(token, preset, { text_model: 'no-such-model' });
      const good = await connect(token, preset);
      const kinds = async (id: number) => (await ok(server, 'POST', `/api-keys/${id}/test`, token, {})).results.find((r: any) => r.capability === 'text');
      expect((await kinds(bad.id)).error_kind, preset).toBe('auth');
      expect((await kinds(broke.id)).error_kind, preset).toBe('insufficient_balance');
      expect((await kinds(unknown.id)).error_kind, preset).toBe('model_not_found');
      const tested = await ok(server, 'POST', `/api-keys/${good.id}/test`, token, { image: true });
      expect(tested.ok, `${preset}: ${JSON.stringify(tested)}`).toBe(true);
      expect(tested.results.map((r: any) => r.capability)).toEqual(preset === 'deepseek' || preset === 'moonshot' ? ['text', ...(preset === 'moonshot' ? ['vision'] : [])] : ['text', 'vision', 'image']);
      for (const r of tested.results) expect(r).toMatchObject({ ok: true, error_kind: null, message: null });
      // Stored as last_test, shown with the connection; never the key.
      const listed = (await ok(server, 'GET', '/api-keys?page_size=100', token)).items.find((k: any) => k.id === good.id);
      expect(listed.last_test).toEqual(tested);
    }
    expect(JSON.stringify(server.logs)).not.toContain('sk-live-0123456789');
  });

  it('an empty Zhipu balance (1113, sent as 429) is not retried, moderation is content_blocked', async () => {
    const retrying = await startTestServer({ worker: false, env: { ALLOW_PRIVATE_PROVIDER_URLS: '1', PROVIDER_MAX_RETRIES: '3', PROVIDER_RETRY_BASE_MS: '5', PROVIDER_RATE_LIMIT_BASE_MS: '5' } });
    try {
      const token = await retrying.adminToken();
      const broke = (await retrying.request('POST', `${API}/api-keys`, { token, body: { provider: 'zhipu', api_key: 'sk-broke-0123456789', base_url: fake.baseUrl('zhipu') } })).body.data;
      const from = fake.calls.length;
      const result = (await retrying.request('POST', `${API}/api-keys/${broke.id}/test`, { token, body: {} })).body.data;
      // Text and vision: each refused once, neither retried although 429 is a retry status.
      expect(result.results.map((r: any) => [r.capability, r.ok, r.error_kind])).toEqual([
        ['text', false, 'insufficient_balance'],
        ['vision', false, 'insufficient_balance'],
      ]);
      expect(callsSince(from).filter((c) => c.path.endsWith('/chat/completions'))).toHaveLength(2);
    } finally {
      await retrying.close();
    }
    const { token, productId } = await workspace(false);
    await ok(server, 'PUT', `/products/${productId}`, token, { name: '敏感词面霜', category: '护肤', source: 'custom', selling_points: ['48小时保湿'] });
    await connect(token, 'zhipu');
    const detail = await generate(token, productId, { text_count: 3, image_count: 0 });
    expect(detail.status).toBe('failed');
    const errors = named(await eventsOf(server, detail.id), 'error');
    expect(errors.filter((e) => /^texts of set/.test(e.message)).map((e) => e.error_kind)).toEqual(['content_blocked', 'content_blocked', 'content_blocked']);
  });
});

describe('connection settings', () => {
  it('needs a base_url for openai-compatible, refuses private addresses unless allowed, and never returns the key', async () => {
    const { token } = await workspace(false);
    const noBase = await server.request('POST', `${API}/api-keys`, { token, body: { provider: 'openai-compatible', api_key: 'sk-live-0123456789', text_model: 'x' } });
    expect(noBase.status).toBe(400);
    const nothing = await server.request('POST', `${API}/api-keys`, { token, body: { provider: 'deepseek', api_key: 'sk-live-0123456789', text_model: '' } });
    expect(nothing.status).toBe(400);
    const imageOnDeepseek = await server.request('POST', `${API}/api-keys`, { token, body: { provider: 'deepseek', api_key: 'sk-live-0123456789', image_model: 'x' } });
    expect(imageOnDeepseek.status).toBe(400);

    const strict = await startTestServer({ worker: false });
    try {
      const t = await strict.adminToken();
      for (const base_url of ['http://127.0.0.1:9/v1', 'http://10.0.0.7/v1', 'http://[::1]/v1', 'http://169.254.169.254/latest']) {
        const res = await strict.request('POST', `${API}/api-keys`, { token: t, body: { provider: 'openai-compatible', api_key: 'sk-live-0123456789', base_url, text_model: 'm' } });
        expect([res.status, res.body.code], base_url).toEqual([400, 40000]);
      }
    } finally {
      await strict.close();
    }

    const created = await connect(token, 'qwen', { name: '通义（国际站）', image_size: '1024*1024', concurrency: 2 });
    expect(created).toMatchObject({ name: '通义（国际站）', image_size: '1024*1024', concurrency: 2, key_last4: '6789' });
    const patched = await ok(server, 'PATCH', `/api-keys/${created.id}`, token, { api_key: 'sk-new-key-abcd', vision_model: '' });
    expect(patched).toMatchObject({ key_last4: 'abcd', vision_model: '', capabilities: { text: true, vision: false, image: true } });
    const text = JSON.stringify(await ok(server, 'GET', '/api-keys?page_size=100', token));
    expect(text).not.toContain('sk-new-key-abcd');
    expect(text).not.toMatch(/ciphertext|auth_tag/);
  });
});

describe('connection budgets (rpm / tpm)', () => {
  it('a connection shows its preset’s budget until it sets its own; a change applies from the next call', async () => {
    const { token } = await workspace(false);
    const presets = (await ok(server, 'GET', '/api-keys/presets', token)) as Array<{ provider: string; rpm: number; tpm: number }>;
    const qwenPreset = presets.find((p) => p.provider === 'qwen')!;
    expect(qwenPreset.rpm).toBeGreaterThan(0);
    expect(qwenPreset.tpm).toBeGreaterThan(0);

    // The test server sets PROVIDER_RPM / _TPM (the deployment's override of every preset).
    const plain = await connect(token, 'qwen');
    expect(plain).toMatchObject({ rpm: 100_000, tpm: 100_000_000 });

    const own = await connect(token, 'qwen', { rpm: 600, tpm: 200_000 });
    expect(own).toMatchObject({ rpm: 600, tpm: 200_000 });
    const tested = await ok(server, 'POST', `/api-keys/${own.id}/test`, token, {});
    expect(tested.ok).toBe(true);
    // Paced per provider account: this connection's key at its endpoint.
    const pace = () => paceOf(server.ctx.providers, { keyId: own.id, provider: 'qwen', apiKey: 'sk-live-0123456789', baseUrl: fake.baseUrl('qwen') });
    expect(await pace()).toMatchObject({ rpm: 600, tpm: 200_000, factor: 1 });

    // Changed while the server runs: the next call is paced to the new figures; the last test stays.
    const patched = await ok(server, 'PATCH', `/api-keys/${own.id}`, token, { rpm: 1200, tpm: 300_000 });
    expect(patched).toMatchObject({ rpm: 1200, tpm: 300_000 });
    expect(patched.last_test).not.toBeNull();
    await ok(server, 'POST', `/api-keys/${own.id}/test`, token, {});
    expect(await pace()).toMatchObject({ rpm: 1200, tpm: 300_000 });

    // null: back to the preset's (here the deployment's).
    const reset = await ok(server, 'PATCH', `/api-keys/${own.id}`, token, { rpm: null, tpm: null });
    expect(reset).toMatchObject({ rpm: 100_000, tpm: 100_000_000 });
    const listed = (await ok(server, 'GET', '/api-keys?page_size=100', token)).items as Array<{ id: number; rpm: number; tpm: number }>;
    expect(listed.find((c) => c.id === own.id)).toMatchObject({ rpm: 100_000, tpm: 100_000_000 });
  });

  it('refuses budgets outside their range, and the offline provider is not paced', async () => {
    const { token } = await workspace(false);
    for (const extra of [{ rpm: 0 }, { rpm: 100_001 }, { rpm: 1.5 }, { tpm: 999 }, { tpm: 100_000_001 }, { rpm: '60' }]) {
      const res = await server.request('POST', `${API}/api-keys`, { token, body: { provider: 'qwen', api_key: 'sk-live-0123456789', base_url: fake.baseUrl('qwen'), ...extra } });
      expect([res.status, res.body.code], JSON.stringify(extra)).toEqual([400, 40000]);
    }
    const created = await connect(token, 'qwen', { rpm: 1, tpm: 1_000 });
    const res = await server.request('PATCH', `${API}/api-keys/${created.id}`, { token, body: { tpm: 500 } });
    expect([res.status, res.body.code]).toEqual([400, 40000]);

    const local = await ok(server, 'POST', '/api-keys', token, { provider: 'local', api_key: 'local-key' });
    expect(local).toMatchObject({ rpm: 0, tpm: 0 });
    const refused = await server.request('POST', `${API}/api-keys`, { token, body: { provider: 'local', api_key: 'local-key', rpm: 60 } });
    expect(refused.status).toBe(400);
  });

  it('sizes the slots of a provider that limits by the minute from its budget, and keeps a documented concurrency limit', async () => {
    const { token } = await workspace(false);
    // Qwen limits requests a minute: 600 a minute is 10 a second, 20 s each in flight → 200 slots.
    expect(await connect(token, 'qwen', { rpm: 600 })).toMatchObject({ rpm: 600, concurrency: 200 });
    // A budget smaller than the preset's slots keeps the preset's floor (8).
    expect(await connect(token, 'qwen', { rpm: 6 })).toMatchObject({ concurrency: 8 });
    // The connection's own figure wins.
    expect(await connect(token, 'qwen', { rpm: 600, concurrency: 3 })).toMatchObject({ concurrency: 3 });
    // Zhipu limits calls at once, not a minute: its slots stay what it documents (5).
    expect(await connect(token, 'zhipu', { rpm: 600 })).toMatchObject({ rpm: 600, concurrency: 5 });
  });
});
