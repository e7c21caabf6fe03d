import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { providerSettingsFrom } from '../../src/config.js';
import { createProviderFactory } from '../../src/providers/factory.js';
import { PRESET_PROVIDERS, type ProviderLabel } from '../../src/providers/labels.js';
import { backoffMs } from '../../src/providers/reliability.js';
import { ProviderError, type JsonSchemaSpec, type Provider } from '../../src/providers/types.js';
import { chatReply, json, startFakeProvider, streamChat, type FakeProvider } from './fake-provider.js';

const KEY = 'sk-test-SECRET-4f9a8b7c6d5e';

const schema: JsonSchemaSpec = {
  name: 'greeting',
  schema: {
    type: 'object',
    properties: { greeting: { type: 'string' }, count: { type: 'integer', minimum: 1, maximum: 3 } },
    required: ['greeting', 'count'],
    additionalProperties: false,
  },
};

let fake: FakeProvider;
/** A negative prompt, sent only where the provider documents one. */
const NO = '乱码文字，水印';
let portrait: Buffer;

function provider(label: ProviderLabel, extra: Record<string, string> = {}): Provider {
  const bases = Object.fromEntries(
    PRESET_PROVIDERS.map((l) => [`PROVIDER_${l.toUpperCase()}_BASE_URL`, l === 'qwen' ? `${fake.origin}/qwen/compatible-mode/v1` : `${fake.origin}/${l}/v1`]),
  );
  const factory = createProviderFactory(providerSettingsFrom({
    ...bases,
    PROVIDER_RETRY_BASE_MS: '5',
    PROVIDER_MAX_RETRIES: '2',
    PROVIDER_TIMEOUT_MS: '5000',
    PROVIDER_POLL_INTERVAL_MS: '20',
    // The fake answers at local speed: these tests are not about the presets' per-minute budgets (pacer.test.ts is).
    PROVIDER_RPM: '100000',
    PROVIDER_TPM: '100000000',
    ...extra,
  }));
  return factory.forCredentials({ keyId: 1, provider: label, apiKey: KEY });
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

const text = (intent = { kind: 'free' as const }) => ({ system: 'sys', prompt: 'say hi', intent });

beforeAll(async () => {
  fake = await startFakeProvider();
  portrait = await sharp({ create: { width: 1024, height: 1536, channels: 3, background: '#3a7bd5' } }).png().toBuffer();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.maxInFlight = 0;
});

describe('text', () => {
  it('streams deltas through onDelta and returns the whole text', async () => {
    fake.handle((_req, res) => streamChat(res, ['你好', '，小红', '书！']));
    const deltas: string[] = [];
    const result = await provider('openai').generateText({ ...text(), onDelta: (d) => deltas.push(d) });
    expect(deltas).toEqual(['你好', '，小红', '书！']);
    expect(result.text).toBe('你好，小红书！');
    expect(fake.requests[0]!.body.stream).toBe(true);
    expect(fake.requests[0]!.path).toBe('/openai/v1/chat/completions');
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('retries a stream cut off mid-way without repeating deltas already delivered', async () => {
    fake.handle((_req, res, n) => {
      if (n > 1) return streamChat(res, ['第一句。', '第二句。', '第三句。']);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'fake', choices: [{ index: 0, delta: { content: '第一句。' }, finish_reason: null }] };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`, () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const deltas: string[] = [];
    const result = await provider('openai').generateText({ ...text(), onDelta: (d) => deltas.push(d) });
    expect(fake.requests).toHaveLength(2);
    expect(result.text).toBe('第一句。第二句。第三句。');
    expect(deltas.join('')).toBe(result.text);
  });

  it('asks openai for json_schema with strict and returns the validated object', async () => {
    fake.handle((_req, res) => json(res, 200, chatReply('{"greeting":"嗨","count":2}')));
    const result = await provider('openai').generateText({ ...text(), schema });
    expect(result.json).toEqual({ greeting: '嗨', count: 2 });
    const body = fake.requests[0]!.body;
    expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'greeting', schema: schema.schema, strict: true } });
    expect(body.model).toBe('gpt-5.4-mini');
    expect(body.messages[1].content).toBe('say hi');
  });

  it('uses JSON mode with the schema in the prompt where json_schema is not supported', async () => {
    fake.handle((_req, res) => json(res, 200, chatReply('```json\n{"greeting":"hi","count":1}\n```')));
    const result = await provider('deepseek').generateText({ ...text(), schema });
    expect(result.json).toEqual({ greeting: 'hi', count: 1 });
    const body = fake.requests[0]!.body;
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages[1].content).toContain('say hi');
    expect(body.messages[1].content).toContain(JSON.stringify(schema.schema));
  });

  it('retries once on a reply that breaks the schema, then succeeds', async () => {
    fake.handle((_req, res, n) => json(res, 200, chatReply(n === 1 ? '{"greeting":"hi","count":7}' : '{"greeting":"hi","count":3}')));
    const result = await provider('openai').generateText({ ...text(), schema });
    expect(result.json).toEqual({ greeting: 'hi', count: 3 });
    expect(fake.requests).toHaveLength(2);
    // The second request tells the model what was wrong.
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain('count');
  });

  it('gives up with bad_output after two bad replies, so the caller falls back', async () => {
    fake.handle((_req, res) => json(res, 200, chatReply('sorry, I cannot do JSON')));
    // JSON mode: a bad reply is the model's (under strict json_schema it would mean the field was dropped).
    const error = await failure(provider('deepseek').generateText({ ...text(), schema }));
    expect(error.kind).toBe('bad_output');
    expect(error.message).toContain('greeting');
    expect(fake.requests).toHaveLength(2);
  });

  it('sends images to vision models as base64 data URLs in image_url parts', async () => {
    fake.handle((_req, res) => json(res, 200, chatReply('{"greeting":"图","count":1}')));
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } }).png().toBuffer();
    await provider('qwen').analyzeImage({ ...text(), schema, images: [{ data: png, mime: 'image/png' }] });
    const body = fake.requests[0]!.body;
    expect(fake.requests[0]!.path).toBe('/qwen/compatible-mode/v1/chat/completions');
    expect(body.model).toBe('qwen3-vl-plus');
    expect(body.messages[1].content[1]).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } });
  });

  it('applies PROVIDER_<LABEL>_*_MODEL overrides', async () => {
    fake.handle((_req, res) => json(res, 200, chatReply('ok')));
    await provider('moonshot', { PROVIDER_MOONSHOT_TEXT_MODEL: 'kimi-custom' }).generateText(text());
    expect(fake.requests[0]!.body.model).toBe('kimi-custom');
  });
});

describe('reliability', () => {
  it('honours Retry-After on 429 and then succeeds (two calls)', async () => {
    fake.handle((_req, res, n) => (n === 1 ? json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '1' }) : json(res, 200, chatReply('ok'))));
    const result = await provider('openai').generateText(text());
    expect(result.text).toBe('ok');
    expect(fake.requests).toHaveLength(2);
    // The backoff alone would be ~5 ms: the gap is the provider's Retry-After.
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('caps a long Retry-After and uses growing jittered backoff otherwise', () => {
    const options = { timeoutMs: 1000, maxRetries: 3, retryBaseMs: 100, retryMaxWaitMs: 2000, rateLimitBaseMs: 10 };
    expect(backoffMs(0, options, 3_600_000)).toBe(2000);
    for (let attempt = 0; attempt < 4; attempt++) {
      const step = 100 * 2 ** attempt;
      const wait = backoffMs(attempt, options);
      expect(wait).toBeGreaterThanOrEqual(step / 2);
      expect(wait).toBeLessThanOrEqual(Math.min(2000, step));
    }
  });

  it('fails as unavailable after 500s exhaust the retries (1 + 2 calls)', async () => {
    fake.handle((_req, res) => json(res, 503, { error: { message: 'overloaded' } }));
    const error = await failure(provider('doubao').generateText(text()));
    expect(error.kind).toBe('unavailable');
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/doubao text generation failed after 3 attempts/);
    expect(fake.requests).toHaveLength(3);
  });

  it('retries dropped connections as network errors', async () => {
    fake.handle((_req, res, n) => (n === 1 ? res.socket?.destroy() : json(res, 200, chatReply('back'))));
    expect((await provider('zhipu').generateText(text())).text).toBe('back');
    expect(fake.requests).toHaveLength(2);
  });

  it('times out a call that does not answer, without retrying it', async () => {
    fake.handle(() => undefined);
    const error = await failure(provider('openai', { PROVIDER_TIMEOUT_MS: '300' }).generateText(text()));
    expect(error.kind).toBe('timeout');
    expect(fake.requests).toHaveLength(1);
  });

  it('classifies a refused key as auth, does not retry, and never repeats the key', async () => {
    // Like OpenAI, the fake echoes the key it was given in the error message.
    fake.handle((req, res) => json(res, 401, { error: { message: `Incorrect API key provided: ${String(req.headers.authorization).slice(7)}` } }));
    const error = await failure(provider('openai').generateText(text()));
    expect(error.kind).toBe('auth');
    expect(fake.requests).toHaveLength(1);
    expect(error.message).toContain('API key');
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain(KEY.slice(0, 16));
    expect(JSON.stringify(error)).not.toContain(KEY);
  });

  it('keeps at most PROVIDER_CONCURRENCY calls of one provider in flight', async () => {
    fake.handle((_req, res) => setTimeout(() => json(res, 200, chatReply('ok')), 150));
    const p = provider('siliconflow', { PROVIDER_CONCURRENCY: '2' });
    await Promise.all(Array.from({ length: 6 }, () => p.generateText(text())));
    expect(fake.requests).toHaveLength(6);
    expect(fake.maxInFlight).toBe(2);
  });
});

describe('images', () => {
  it('openai: asks for the nearest portrait size, reads b64_json and crops to 1080×1440', async () => {
    fake.handle((_req, res) => json(res, 200, { created: 1, data: [{ b64_json: portrait.toString('base64') }] }));
    const image = await provider('openai').generateImage({ prompt: 'a bottle', negativePrompt: NO, intent: { kind: 'free' } });
    const body = fake.requests[0]!.body;
    // OpenAI's Images API has no negative prompt (and refuses unknown parameters).
    expect(body.negative_prompt).toBeUndefined();
    expect(fake.requests[0]!.path).toBe('/openai/v1/images/generations');
    // gpt-image-2 takes any size in steps of 16: 1080×1440 asked as 1088×1440.
    expect(body).toMatchObject({ model: 'gpt-image-2', size: '1088x1440', n: 1 });
    expect(body.response_format).toBeUndefined();
    expect(image).toMatchObject({ mime: 'image/jpeg', width: 1080, height: 1440 });
    const meta = await sharp(image.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 1080, 1440]);
  });

  it('doubao: WxH size, b64_json requested, watermark off, reference image sent', async () => {
    fake.handle((_req, res) => json(res, 200, { data: [{ b64_json: portrait.toString('base64') }] }));
    const reference = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } }).jpeg().toBuffer();
    await provider('doubao').generateImage({ prompt: 'p', negativePrompt: NO, intent: { kind: 'free' }, referenceImages: [{ data: reference, mime: 'image/jpeg' }] });
    // Seedream documents no negative prompt.
    expect(fake.requests[0]!.body.negative_prompt).toBeUndefined();
    // Seedream 4.5 needs at least 2560×1440 pixels in total: 3:4 scaled up to 1664×2224.
    expect(fake.requests[0]!.body).toMatchObject({ model: 'doubao-seedream-5-0-260128', size: '1664x2224', response_format: 'b64_json', watermark: false, image: `data:image/jpeg;base64,${reference.toString('base64')}` });
    const [w, h] = String(fake.requests[0]!.body.size).split('x').map(Number);
    expect(w! * h!).toBeGreaterThanOrEqual(2560 * 1440);
  });

  it('zhipu: downloads a data[].url reply and turns the watermark off', async () => {
    fake.handle((req, res) => {
      if (req.path === '/files/out.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(portrait);
      } else json(res, 200, { data: [{ url: `${fake.origin}/files/out.png` }] });
    });
    const image = await provider('zhipu').generateImage({ prompt: 'p', negativePrompt: NO, intent: { kind: 'free' } });
    expect(fake.requests[0]!.body).toMatchObject({ model: 'cogview-4-250304', size: '1088x1440', watermark_enabled: false });
    expect(fake.requests[0]!.body.negative_prompt).toBeUndefined();
    expect(fake.requests.map((r) => r.path)).toEqual(['/zhipu/v1/images/generations', '/files/out.png']);
    expect([image.width, image.height]).toEqual([1080, 1440]);
  });

  it('siliconflow: image_size from its list, the negative prompt, and an images[].url reply', async () => {
    fake.handle((req, res) => {
      if (req.path === '/img/1.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(portrait);
      } else json(res, 200, { images: [{ url: `${fake.origin}/img/1.png` }] });
    });
    await provider('siliconflow').generateImage({ prompt: 'p', negativePrompt: NO, intent: { kind: 'free' } });
    expect(fake.requests[0]!.body).toMatchObject({ image_size: '960x1280', model: 'Kwai-Kolors/Kolors', negative_prompt: NO });
    expect(fake.requests[0]!.body.size).toBeUndefined();
  });

  it('qwen: submits to DashScope asynchronously with W*H (the negative prompt in input) and polls until the task succeeds', async () => {
    fake.handle((req, res, n) => {
      if (req.method === 'POST') return json(res, 200, { output: { task_id: 't-1', task_status: 'PENDING' }, request_id: 'r' });
      if (req.path === '/qwen/api/v1/tasks/t-1') {
        const done = n >= 4;
        return json(res, 200, { output: { task_id: 't-1', task_status: done ? 'SUCCEEDED' : 'RUNNING', ...(done ? { results: [{ url: `${fake.origin}/oss/a.png` }] } : {}) } });
      }
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(portrait);
    });
    const image = await provider('qwen').generateImage({ prompt: 'p', negativePrompt: NO, intent: { kind: 'free' } });
    const submit = fake.requests[0]!;
    expect(submit.path).toBe('/qwen/api/v1/services/aigc/text2image/image-synthesis');
    expect(submit.headers['x-dashscope-async']).toBe('enable');
    expect(submit.body).toEqual({ model: 'wan2.2-t2i-flash', input: { prompt: 'p', negative_prompt: NO }, parameters: { size: '1080*1440', n: 1, watermark: false } });
    expect(fake.requests.filter((r) => r.path === '/qwen/api/v1/tasks/t-1').length).toBeGreaterThanOrEqual(2);
    expect(image.height).toBe(1440);
  });

  it('qwen: a failed task is reported with the provider reason', async () => {
    fake.handle((req, res) =>
      req.method === 'POST'
        ? json(res, 200, { output: { task_id: 't-2', task_status: 'PENDING' } })
        : json(res, 200, { output: { task_id: 't-2', task_status: 'FAILED', code: 'DataInspectionFailed', message: 'input data may contain inappropriate content' } }),
    );
    const error = await failure(provider('qwen').generateImage({ prompt: 'p', intent: { kind: 'free' } }));
    expect(error.kind).toBe('content_blocked');
    expect(error.message).toContain('DataInspectionFailed');
  });

  it('sends an explicit size override verbatim (e.g. 2K)', async () => {
    fake.handle((_req, res) => json(res, 200, { data: [{ b64_json: portrait.toString('base64') }] }));
    await provider('doubao', { PROVIDER_DOUBAO_IMAGE_SIZE: '2K' }).generateImage({ prompt: 'p', intent: { kind: 'free' } });
    expect(fake.requests[0]!.body.size).toBe('2K');
  });

  it('refuses image links to non-public addresses outside the provider origin', async () => {
    const internal = fake.origin.replace('127.0.0.1', 'localhost');
    fake.handle((_req, res) => json(res, 200, { data: [{ url: `${internal}/secret.png` }] }));
    const error = await failure(provider('zhipu').generateImage({ prompt: 'p', intent: { kind: 'free' } }));
    expect(error.message).toMatch(/non-public|not public/);
    expect(fake.requests.map((r) => r.path)).toEqual(['/zhipu/v1/images/generations']);
  });

  it('rejects a reply whose bytes are not an image', async () => {
    fake.handle((_req, res) => json(res, 200, { data: [{ b64_json: Buffer.from('<html>nope</html>').toString('base64') }] }));
    const error = await failure(provider('openai').generateImage({ prompt: 'p', intent: { kind: 'free' } }));
    expect(error.kind).toBe('bad_output');
  });

  it('says so when the connection has no image model, without calling', async () => {
    const error = await failure(provider('deepseek').generateImage({ prompt: 'p', intent: { kind: 'free' } }));
    expect(error.kind).toBe('unsupported');
    expect(error.message).toContain('no image model');
    expect(fake.requests).toHaveLength(0);
  });
});
