import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BANNED_PRESETS } from '../../src/content/banned-presets.js';
import { runTaskGeneration } from '../../src/modules/tasks/pipeline.js';
import { form } from '../config/setup.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { API, createTask, ok, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';

const APPEARANCE = '白色磨砂圆罐，银色旋盖，罐身印有“云朵柔雾”四个字';

/**
 * Through a real generation (an OpenAI-compatible relay, which documents no reference-image input,
 * as Zhipu's preset does not): what the writer is told to avoid, and what each image model is told
 * about the product and the set (issue 29 items 3 and 4).
 */
describe('the product in the prompts of a real generation', () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    server = await startTestServer({ worker: false, env: { ALLOW_PRIVATE_PROVIDER_URLS: '1', PROVIDER_MAX_RETRIES: '0', PROVIDER_RETRY_BASE_MS: '10' } });
    ws = await workspaceWithProduct(server, { apiKey: false, product: { name: '云朵柔雾保湿面霜', appearance: APPEARANCE } });
    await ok(server, 'POST', '/api-keys', ws.token, { provider: 'openai-compatible', api_key: 'sk-test-not-real-1234', base_url: fake.url, text_model: 'gpt-4.1-mini', image_model: 'gpt-image-1' });
    const photo = await sharp({ create: { width: 300, height: 400, channels: 3, background: '#eee' } }).png().toBuffer();
    const uploaded = await server.request('POST', `${API}/products/${ws.productId}/images`, { token: ws.token, raw: form({ scene: '主图' }, { field: 'image', name: 'jar.png', type: 'image/png', data: photo }) });
    expect(uploaded.status).toBe(200);
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  it('the avoid list is the hard blocks in force for the product: the legal baseline and the team’s words, no warning, no other product’s word', async () => {
    const word = (body: Record<string, unknown>) => ok(server, 'POST', '/banned-words', ws.token, body);
    await word({ word: '秒杀价', level: 'hard_block' });
    await word({ word: '小样神器', level: 'soft_warn' });
    const mine = await word({ word: '竞品对比', level: 'hard_block' });
    const theirs = await word({ word: '平替款', level: 'hard_block' });
    const other = await ok(server, 'POST', '/products', ws.token, { name: '通勤背包', category: '箱包', source: 'custom', banned_word_ids: [theirs.id] });
    expect(other.banned_word_ids).toEqual([theirs.id]);
    const product = await ok(server, 'GET', `/products/${ws.productId}`, ws.token);
    await ok(server, 'PUT', `/products/${ws.productId}`, ws.token, { ...product, banned_word_ids: [mine.id] });

    const before = fake.calls.length;
    const task = await createTask(server, ws, { text_count: 1, image_count: 0 });
    await runTaskGeneration(server.ctx, task.id);
    const notes = fake.calls.slice(before).find((c) => c.kind === 'notes')!.prompt;
    const line = /本工作区会直接拦下的词（任何形式都不要出现，包括拆开、加符号或繁体）：(.+)\n/.exec(notes)?.[1];
    // A skin cream is not a medical product: the three baseline lists all apply, their blocks only.
    const baseline = BANNED_PRESETS.filter((p) => ['ad-law', 'health-claims', 'xhs-diversion'].includes(p.name)).flatMap((p) => p.words.filter((w) => w.level === 'hard_block').map((w) => w.word));
    expect(line?.split('、').sort()).toEqual([...baseline, '秒杀价', '竞品对比'].sort());
    // The team's own words come first.
    expect(line?.split('、').slice(0, 2).sort()).toEqual(['秒杀价', '竞品对比'].sort());
  });

  it('an appearance with a hard-blocked word stops the task at creation: it would be sent to every image model', async () => {
    const product = await ok(server, 'POST', '/products', ws.token, { name: '小罐面霜', category: '护肤', source: 'custom', appearance: '金色圆罐，罐身印着国家级认证字样' });
    const refused = await server.request('POST', `${API}/tasks`, { token: ws.token, body: { product_id: product.id, theme: '秋冬保湿', text_count: 1, image_count: 1, track: 'ai' } });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe(42202);
    expect(refused.body.message).toContain('国家级');
  });

  it('every frame describes the product in words (no photo goes to this model) and carries the set’s one visual direction', async () => {
    const before = fake.calls.length;
    const task = await createTask(server, ws, { text_count: 1, image_count: 3 });
    await runTaskGeneration(server.ctx, task.id);
    const images = fake.calls.slice(before).filter((c) => c.kind === 'image').map((c) => c.prompt);
    expect(images).toHaveLength(3);
    const direction =
      'Visual direction of the whole set, the same in every frame: setting: 清晨窗边，女生手拿面膜，柔和自然光; light: soft, slightly cool morning daylight from one window; palette: muted neutrals: off-white, pale grey and a little soft blue; people: at most one person, a young Chinese adult of the note\'s audience, in the same plain light-grey top with the same hairstyle in every frame; the face mostly out of frame or turned away (hands, shoulders, back).';
    for (const p of images) {
      expect(p).toContain(`Product: 云朵柔雾保湿面霜 (护肤); what it looks like: ${APPEARANCE}.`);
      expect(p).toContain('No photo of the product is attached: draw it exactly as described under Product');
      expect(p).not.toContain('reference');
      expect(p).toContain(direction);
    }
  });
});
