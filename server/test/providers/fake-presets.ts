import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { LocalProvider } from '../../src/providers/local/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * One local HTTP server that behaves, per preset, as that provider's documentation says
 * (docs/providers.md names the pages): its paths, the output parameter it takes and its default
 * output cap when none is sent (a reply over the budget is cut with `finish_reason: "length"`),
 * which `response_format` it accepts, its image size rules and answer shapes, and its error
 * bodies for a bad key, an empty balance, moderation and an unknown model. Each preset lives
 * under `/<preset>` (`/qwen/compatible-mode/v1`, `/qwen/api/v1`, `/<preset>/v1` for the rest).
 *
 * Keys steer the failures: `sk-bad…` is refused, `sk-broke…` has no balance; a prompt with
 * `敏感词` is blocked by moderation. Replies fit the schema asked for (json_schema, or the schema
 * travelling in the prompt), written by the offline provider's schema filler.
 */

export type PresetName = 'openai' | 'deepseek' | 'qwen' | 'doubao' | 'zhipu' | 'moonshot' | 'siliconflow' | 'relay' | 'lax';

interface Behaviour {
  models: string[];
  imageModels: string[];
  /** response_format types accepted; others are refused with a 400 naming response_format. */
  formats: Array<'json_schema' | 'json_object'>;
  /** The output parameter the provider reads, and the cap it applies when none is sent. */
  tokenParam: 'max_tokens' | 'max_completion_tokens';
  defaultCap: number;
  /** Model output limit whatever is asked for. */
  maxOutput: number;
  refusesTemperature?: boolean;
  refusesMaxTokens?: boolean;
  /**
   * The model thinks unless the request switches it off, and its reasoning is spent from the
   * output budget before the answer (DeepSeek V4: effort high by default; GLM-4.5+ and Doubao
   * Seed likewise): a budget the reasoning uses up leaves `content` empty, cut with "length".
   */
  thinks?: { reasoningTokens: number; off(body: any): boolean };
  /** A relay that accepts `response_format: json_schema` with a 200 and drops it on the way. */
  ignoresJsonSchema?: boolean;
  /** `reasoning_effort` values the model takes (GPT-5.4: none, low, medium, high, xhigh; no `minimal`). */
  reasoningEfforts?: string[];
  errors: Record<'auth' | 'balance' | 'blocked' | 'model', [number, unknown]>;
}

const openaiErrors: Behaviour['errors'] = {
  auth: [401, { error: { message: 'Incorrect API key provided: sk-bad***.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }],
  balance: [429, { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } }],
  blocked: [400, { error: { message: 'Your request was rejected by the safety system.', type: 'image_generation_user_error', param: null, code: 'moderation_blocked' } }],
  model: [404, { error: { message: 'The model `x` does not exist or you do not have access to it.', type: 'invalid_request_error', param: null, code: 'model_not_found' } }],
};

export const BEHAVIOURS: Record<PresetName, Behaviour> = {
  openai: {
    models: ['gpt-5.4-mini', 'gpt-5-mini'],
    imageModels: ['gpt-image-2'],
    formats: ['json_schema', 'json_object'],
    tokenParam: 'max_completion_tokens',
    defaultCap: 128_000,
    maxOutput: 128_000,
    refusesTemperature: true,
    refusesMaxTokens: true,
    reasoningEfforts: ['none', 'low', 'medium', 'high', 'xhigh'],
    errors: openaiErrors,
  },
  deepseek: {
    models: ['deepseek-flash', 'deepseek-v4-flash', 'deepseek-v4-pro'],
    imageModels: [],
    formats: ['json_object'],
    tokenParam: 'max_tokens',
    defaultCap: 4096,
    maxOutput: 32_768,
    thinks: { reasoningTokens: 1500, off: (body) => body.thinking?.type === 'disabled' },
    // DeepSeek's bodies name the problem only in `message`: the code is a generic invalid_request_error.
    errors: {
      auth: [401, { error: { message: 'Authentication Fails, Your api key: ****abcd is invalid', type: 'authentication_error', param: null, code: 'invalid_request_error' } }],
      balance: [402, { error: { message: 'Insufficient Balance', type: 'unknown_error', param: null, code: 'invalid_request_error' } }],
      blocked: [400, { error: { message: 'Content Exists Risk', type: 'invalid_request_error', param: null, code: 'invalid_request_error' } }],
      model: [400, { error: { message: 'Model Not Exist', type: 'invalid_request_error', param: null, code: 'invalid_request_error' } }],
    },
  },
  qwen: {
    models: ['qwen-plus', 'qwen3-vl-plus'],
    imageModels: ['wan2.2-t2i-flash', 'wan2.6-t2i', 'qwen-image-edit', 'qwen-image-edit-plus'],
    formats: ['json_object'],
    tokenParam: 'max_tokens',
    defaultCap: 8192,
    maxOutput: 32_768,
    errors: {
      auth: [401, { error: { message: 'Incorrect API key provided. ', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }],
      balance: [400, { error: { message: 'Access denied, please make sure your account is in good standing.', type: 'Arrearage', param: null, code: 'Arrearage' } }],
      blocked: [400, { error: { message: 'Input data may contain inappropriate content.', type: 'data_inspection_failed', param: null, code: 'data_inspection_failed' } }],
      model: [404, { error: { message: 'The model `x` does not exist or you do not have access to it.', type: 'invalid_request_error', param: null, code: 'model_not_found' } }],
    },
  },
  doubao: {
    models: ['doubao-seed-2-0-mini-260428', 'doubao-seed-1-6-250615'],
    imageModels: ['doubao-seedream-5-0-260128', 'doubao-seedream-4-5-251128'],
    formats: ['json_object', 'json_schema'],
    tokenParam: 'max_tokens',
    defaultCap: 4096,
    maxOutput: 32_768,
    thinks: { reasoningTokens: 1500, off: (body) => body.thinking?.type === 'disabled' },
    errors: {
      auth: [401, { error: { code: 'AuthenticationError', message: 'The API key or AK/SK in the request is missing or invalid. Request id: x', param: '', type: 'Unauthorized' } }],
      balance: [403, { error: { code: 'AccountOverdueError', message: 'The request failed because your account has an overdue balance. Request id: x', param: '', type: 'Forbidden' } }],
      blocked: [400, { error: { code: 'InputTextSensitiveContentDetected', message: 'The request failed because the input text may contain sensitive information. Request id: x', param: '', type: 'BadRequest' } }],
      model: [404, { error: { code: 'InvalidEndpointOrModel.NotFound', message: 'The model or endpoint x does not exist or you do not have access to it. Request id: x', param: '', type: 'NotFound' } }],
    },
  },
  zhipu: {
    models: ['glm-4.6', 'glm-4.6v-flash'],
    imageModels: ['cogview-4-250304'],
    formats: ['json_object'],
    tokenParam: 'max_tokens',
    defaultCap: 1024,
    maxOutput: 65_536,
    thinks: { reasoningTokens: 1500, off: (body) => body.thinking?.type === 'disabled' },
    errors: {
      auth: [401, { error: { code: '1000', message: '身份验证失败。' } }],
      // An empty balance arrives as 429, like a rate limit: only the code tells them apart.
      balance: [429, { error: { code: '1113', message: '余额不足或无可用资源包,请充值。' } }],
      blocked: [400, { error: { code: '1301', message: '系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语，感谢您的配合。' } }],
      model: [400, { error: { code: '1211', message: '模型不存在，请检查模型代码。' } }],
    },
  },
  moonshot: {
    models: ['kimi-k2.6'],
    imageModels: [],
    formats: ['json_object'],
    tokenParam: 'max_tokens',
    defaultCap: 1024,
    maxOutput: 32_768,
    refusesTemperature: true,
    errors: {
      auth: [401, { error: { message: 'Invalid Authentication', type: 'invalid_authentication_error' } }],
      balance: [429, { error: { message: 'Your account x is suspended, please check your plan and billing details', type: 'exceeded_current_quota_error' } }],
      blocked: [400, { error: { message: 'The request was rejected because it was considered high risk', type: 'content_filter' } }],
      model: [404, { error: { message: 'Not found the model x or Permission denied', type: 'resource_not_found_error' } }],
    },
  },
  siliconflow: {
    models: ['deepseek-ai/DeepSeek-V4-Flash', 'deepseek-ai/DeepSeek-V3.2', 'Qwen/Qwen3-VL-32B-Instruct'],
    imageModels: ['Kwai-Kolors/Kolors'],
    formats: ['json_object'],
    tokenParam: 'max_tokens',
    defaultCap: 512,
    maxOutput: 16_384,
    errors: {
      auth: [401, { code: 20015, message: 'Invalid token', data: null }],
      balance: [403, { code: 30001, message: 'Sorry, your account balance is insufficient', data: null }],
      blocked: [400, { code: 20041, message: 'The content you sent may contain sensitive content (content_filter).', data: null }],
      model: [400, { code: 20012, message: 'Model does not exist. Please check it carefully.', data: null }],
    },
  },
  // one-api / new-api fronting a model without structured outputs: json_schema answers 400.
  relay: {
    models: ['glm-4-flash', 'kolors'],
    imageModels: ['kolors'],
    formats: ['json_object'],
    tokenParam: 'max_tokens',
    defaultCap: 4096,
    maxOutput: 16_384,
    errors: openaiErrors,
  },
  // A relay in front of a model without structured outputs that takes json_schema and drops it.
  lax: {
    models: ['glm-4-flash'],
    imageModels: [],
    formats: ['json_object', 'json_schema'],
    tokenParam: 'max_tokens',
    defaultCap: 4096,
    maxOutput: 16_384,
    ignoresJsonSchema: true,
    errors: openaiErrors,
  },
};

export interface FakeCall {
  preset: PresetName;
  path: string;
  body: any;
  /** Form fields of a multipart request (OpenAI /images/edits). */
  form?: Record<string, string>;
  status: number;
  finishReason?: string;
  /** Tokens of the whole reply before any cut (the fake counts a character as a token). */
  replyTokens?: number;
  /** Reasoning tokens spent from the budget before the answer. */
  reasoningTokens?: number;
}

export interface FakePresets {
  origin: string;
  calls: FakeCall[];
  /** Override a preset's model output limit (tokens), e.g. to make a set of notes too long. */
  maxOutput: Partial<Record<PresetName, number>>;
  /** A verbose model: tokens it spends per note written (its JSON padded out to that length). */
  verbose: Partial<Record<PresetName, number>>;
  baseUrl(preset: PresetName): string;
  close(): Promise<void>;
}

/** Tokens of a reply as the fake counts them: a character each (CJK text is about that). */
const tokensOf = (text: string) => [...text].length;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, payload: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(payload));
}

/** Fields of a multipart body, files as `<file:mime:bytes>`. */
function multipartFields(body: Buffer, contentType: string): Record<string, string> {
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
  if (!boundary) return {};
  const out: Record<string, string> = {};
  for (const part of body.toString('latin1').split(`--${boundary}`)) {
    const name = /name="([^"]+)"/.exec(part)?.[1];
    if (!name) continue;
    const [head, ...rest] = part.split('\r\n\r\n');
    const value = rest.join('\r\n\r\n').replace(/\r\n$/, '');
    out[name] = /filename=/.test(head!) ? `<file:${/Content-Type: ([^\r\n]+)/i.exec(head!)?.[1] ?? ''}:${value.length}>` : value;
  }
  return out;
}

/** DashScope (Wan, Qwen image editing) and SiliconFlow take a negative prompt as a string; DashScope's is at most 500 characters. */
function negativePromptProblem(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string') return 'negative_prompt must be a string';
  return [...value].length > 500 ? 'negative_prompt must be at most 500 characters' : null;
}

export async function startFakePresets(): Promise<FakePresets> {
  const writer = new LocalProvider();
  const calls: FakeCall[] = [];
  const maxOutput: FakePresets['maxOutput'] = {};
  const verbose: FakePresets['verbose'] = {};
  const images = new Map<string, Promise<Buffer>>();
  const png = (w: number, h: number) => {
    const key = `${w}x${h}`;
    if (!images.has(key)) images.set(key, sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 170, b: 150 } } }).png().toBuffer());
    return images.get(key)!;
  };
  const tasks = new Map<string, { size: string; polls: number }>();
  let taskSeq = 0;

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://fake');
      const preset = url.pathname.split('/')[1] as PresetName;
      const behaviour = BEHAVIOURS[preset];
      const route = url.pathname.slice(preset.length + 1);
      const contentType = String(req.headers['content-type'] ?? '');
      const multipart = contentType.startsWith('multipart/');
      const body = multipart || raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'));
      const form = multipart ? multipartFields(raw, contentType) : undefined;
      const call: FakeCall = { preset, path: route, body, form, status: 200 };
      calls.push(call);
      const reply = (status: number, payload: unknown) => {
        call.status = status;
        send(res, status, payload);
      };
      if (!behaviour) return reply(404, { error: { message: 'no such preset' } });
      // Generated images sit on object storage behind signed links: no key.
      if (route.startsWith('/oss/')) {
        const [w, h] = route.slice(5).replace('.png', '').split('x').map(Number);
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(await png(w!, h!));
        return;
      }
      const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      const fail = (what: keyof Behaviour['errors']) => reply(...behaviour.errors[what]);
      if (!key || key.startsWith('sk-bad')) return fail('auth');
      if (key.startsWith('sk-broke')) return fail('balance');
      // OpenAI from a country it does not serve (its documented 403 body).
      if (key.startsWith('sk-region')) {
        return reply(403, { error: { code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported', param: null, type: 'request_forbidden' } });
      }
      // DeepSeek's documented 503 "Server Overloaded"; Anthropic-style gateways answer 529.
      if (key.startsWith('sk-busy')) return reply(key.startsWith('sk-busy529') ? 529 : 503, { error: { message: 'Server overloaded, please try again later.', type: 'server_error', param: null, code: 'server_overloaded' } });
      const text = JSON.stringify(body.messages ?? body.input ?? body.prompt ?? form?.prompt ?? '');
      if (text.includes('敏感词')) return fail('blocked');

      // OpenAI's list shape: ids only, nothing about what each model can do.
      if (req.method === 'GET' && route.endsWith('/models')) {
        const ids = [...new Set([...behaviour.models, ...behaviour.imageModels, 'text-embedding-v4'])];
        return reply(200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1, owned_by: preset })) });
      }
      if (route.endsWith('/chat/completions')) return chat(body, behaviour, preset, reply, res, call);
      if (route.endsWith('/images/generations') || route.endsWith('/images/edits')) return image(body, form, behaviour, preset, reply);
      if (route.endsWith('/services/aigc/text2image/image-synthesis')) {
        if (!behaviour.imageModels.includes(body.model)) return reply(400, { code: 'InvalidParameter', message: `Model not exist: ${body.model}`, request_id: 'r' });
        const negative = negativePromptProblem(body.input?.negative_prompt) ?? (body.parameters?.negative_prompt !== undefined ? 'negative_prompt belongs in input for text-to-image' : null);
        if (negative) return reply(400, { code: 'InvalidParameter', message: negative, request_id: 'r' });
        const [w, h] = String(body.parameters?.size ?? '1024*1024').split('*').map(Number);
        // Wan: each side within 512-1440.
        if (!(w! >= 512 && w! <= 1440 && h! >= 512 && h! <= 1440)) return reply(400, { code: 'InvalidParameter', message: 'size must be within [512, 1440]', request_id: 'r' });
        if (req.headers['x-dashscope-async'] !== 'enable') return reply(403, { code: 'AccessDenied', message: 'current user api does not support synchronous calls', request_id: 'r' });
        const id = `t-${++taskSeq}`;
        tasks.set(id, { size: `${w}x${h}`, polls: 0 });
        return reply(200, { output: { task_id: id, task_status: 'PENDING' }, request_id: 'r' });
      }
      if (route.startsWith('/api/v1/tasks/')) {
        const id = route.split('/').pop()!;
        const task = tasks.get(id);
        if (!task) return reply(404, { code: 'NotFound', message: 'task not found' });
        task.polls += 1;
        if (task.polls < 2) return reply(200, { output: { task_id: id, task_status: 'RUNNING' } });
        return reply(200, { output: { task_id: id, task_status: 'SUCCEEDED', results: [{ url: `${origin}/qwen/oss/${task.size}.png` }] } });
      }
      if (route.endsWith('/services/aigc/multimodal-generation/generation')) {
        if (!behaviour.imageModels.includes(body.model)) return reply(400, { code: 'InvalidParameter', message: `Model not exist: ${body.model}`, request_id: 'r' });
        const content = body.input?.messages?.[0]?.content ?? [];
        const wan = /^wan/.test(body.model);
        // Qwen image editing needs the photo; Wan 2.6 text-to-image takes the prompt alone.
        const photos = content.filter((c: any) => typeof c.image === 'string').length;
        if (!wan && photos === 0) return reply(400, { code: 'InvalidParameter', message: 'an image is required' });
        // qwen-image-edit-plus takes 1 to 3 input images.
        if (photos > 3) return reply(400, { code: 'InvalidParameter', message: 'at most 3 images are supported', request_id: 'r' });
        const negative = negativePromptProblem(body.parameters?.negative_prompt);
        if (negative) return reply(400, { code: 'InvalidParameter', message: negative, request_id: 'r' });
        const size = body.parameters?.size as string | undefined;
        const [w, h] = String(size ?? '1024*1024').split('*').map(Number) as [number, number];
        // wan2.6-t2i: 1280×1280 to 1440×1440 pixels in total; qwen-image-edit-plus: edges of 512-2048.
        if (wan && !(w * h >= 1280 * 1280 && w * h <= 1440 * 1440)) return reply(400, { code: 'InvalidParameter', message: `size ${size} out of range: total pixels must be within [1638400, 2073600]`, request_id: 'r' });
        if (!wan && size !== undefined && !(w >= 512 && w <= 2048 && h >= 512 && h <= 2048)) return reply(400, { code: 'InvalidParameter', message: `size ${size} must be within [512, 2048]`, request_id: 'r' });
        return reply(200, { output: { choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: [{ image: `${origin}/qwen/oss/${w}x${h}.png` }] } }] }, request_id: 'r' });
      }
      reply(404, { error: { message: `no route ${route}` } });
    })().catch((err: unknown) => send(res, 500, { error: { message: String(err) } }));
  });

  async function chat(body: any, behaviour: Behaviour, preset: PresetName, reply: (s: number, p: unknown) => void, res: ServerResponse, call: FakeCall) {
    if (!behaviour.models.includes(body.model)) return reply(...behaviour.errors.model);
    const asked = JSON.stringify(body.messages);
    // DeepSeek's (and OpenAI's) wording when the prompt exceeds the context window.
    if (asked.includes('超长上下文')) {
      return reply(400, { error: { message: "This model's maximum context length is 131072 tokens. However, you requested 180000 tokens (179000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", type: 'invalid_request_error', param: null, code: 'invalid_request_error' } });
    }
    if (behaviour.refusesMaxTokens && body.max_tokens !== undefined) {
      return reply(400, { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } });
    }
    if (behaviour.refusesTemperature && body.temperature !== undefined && body.temperature !== 1) {
      return reply(400, { error: { message: "Unsupported value: 'temperature' does not support 0.2 with this model.", type: 'invalid_request_error', param: 'temperature', code: 'unsupported_value' } });
    }
    if (behaviour.reasoningEfforts && body.reasoning_effort !== undefined && !behaviour.reasoningEfforts.includes(body.reasoning_effort)) {
      return reply(400, { error: { message: `Unsupported value: 'reasoning_effort' does not support '${body.reasoning_effort}' with this model. Supported values are: ${behaviour.reasoningEfforts.map((v) => `'${v}'`).join(', ')}.`, type: 'invalid_request_error', param: 'reasoning_effort', code: 'unsupported_value' } });
    }
    const format = body.response_format?.type;
    if (format && format !== 'text' && !behaviour.formats.includes(format)) {
      return reply(400, { error: { message: `Invalid parameter: response_format type ${format} is not supported by this model`, type: 'invalid_request_error', param: 'response_format', code: 'invalid_parameter' } });
    }
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    const promptText = messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
    let schema = behaviour.ignoresJsonSchema ? undefined : body.response_format?.json_schema?.schema;
    let name = behaviour.ignoresJsonSchema ? undefined : body.response_format?.json_schema?.name;
    if (!schema) {
      const inPrompt = /valid against this JSON Schema named "([^"]+)":\n(\{[\s\S]*\})\s*$/.exec(String(messages.at(-1)?.content ?? ''));
      if (inPrompt) [name, schema] = [inPrompt[1], JSON.parse(inPrompt[2]!)];
    }
    let content = 'ok';
    if (schema) {
      const value = (await writer.generateText({ system: '', prompt: promptText, intent: { kind: 'free', input: {} }, schema: { name, schema } })).json as { notes?: unknown[] };
      content = JSON.stringify(value);
      // A verbose model spends its tokens on layout: valid JSON, padded out per note.
      const perNote = verbose[preset];
      if (perNote && Array.isArray(value.notes)) content = JSON.stringify(value, null, 2).padEnd(perNote * value.notes.length, ' ');
    } else if (behaviour.ignoresJsonSchema && body.response_format?.type === 'json_schema') {
      // The schema never reached the model: it answers the prompt in prose.
      content = '好的，下面是为您准备的小红书笔记：\n标题：秋冬换季护肤小心得\n正文：最近天气变冷，皮肤特别干……';
    }
    const filtered = asked.includes('过滤词');
    const budget = Math.min(body[behaviour.tokenParam] ?? behaviour.defaultCap, maxOutput[preset] ?? behaviour.maxOutput);
    const reasoning = behaviour.thinks && !behaviour.thinks.off(body) ? Math.min(behaviour.thinks.reasoningTokens, budget) : 0;
    call.reasoningTokens = reasoning;
    call.replyTokens = tokensOf(content);
    const room = budget - reasoning;
    const cut = call.replyTokens > room;
    // content_filter: the provider's moderation stops the answer part-way.
    const text = filtered ? [...content].slice(0, 10).join('') : cut ? [...content].slice(0, room).join('') : content;
    call.finishReason = filtered ? 'content_filter' : cut ? 'length' : 'stop';
    const reasoningContent = reasoning > 0 ? '嗯，用户想要'.padEnd(reasoning, '。') : undefined;
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // The reasoning streams first, as `reasoning_content` beside an empty `content`.
      if (reasoningContent) res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: { content: null, reasoning_content: reasoningContent }, finish_reason: null }] })}\n\n`);
      for (let i = 0; i < text.length; i += 40) {
        res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: { content: text.slice(i, i + 40) }, finish_reason: null }] })}\n\n`);
      }
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: {}, finish_reason: call.finishReason }] })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    reply(200, {
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text, ...(reasoningContent ? { reasoning_content: reasoningContent } : {}) }, finish_reason: call.finishReason }],
      usage: { completion_tokens: tokensOf(text) + reasoning, completion_tokens_details: { reasoning_tokens: reasoning } },
    });
  }

  async function image(body: any, form: Record<string, string> | undefined, behaviour: Behaviour, preset: PresetName, reply: (s: number, p: unknown) => void) {
    const fields = form ?? body;
    if (!behaviour.imageModels.includes(fields.model)) return reply(...behaviour.errors.model);
    const sizeText = String(fields.size ?? fields.image_size ?? '');
    const [w, h] = sizeText.split('x').map(Number) as [number, number];
    const refuse = (message: string) => reply(400, preset === 'siliconflow' ? { code: 20015, message, data: null } : { error: { message, type: 'invalid_request_error', param: 'size', code: 'InvalidParameter' } });
    if (preset === 'siliconflow') {
      const negative = negativePromptProblem(fields.negative_prompt);
      if (negative) return reply(400, { code: 20015, message: negative, data: null });
    }
    if (preset === 'openai') {
      // The Images API documents no negative prompt and refuses parameters it does not know.
      if (fields.negative_prompt !== undefined) return reply(400, { error: { message: "Unknown parameter: 'negative_prompt'.", type: 'invalid_request_error', param: 'negative_prompt', code: 'unknown_parameter' } });
      // gpt-image-2: edges multiples of 16, at most 3840, 655,360 to 8,294,400 pixels.
      if (w % 16 || h % 16 || Math.max(w, h) > 3840 || w * h < 655_360 || w * h > 8_294_400) return refuse(`Invalid size '${sizeText}'`);
      if (fields.response_format !== undefined) return reply(400, { error: { message: "Unknown parameter: 'response_format'.", type: 'invalid_request_error', param: 'response_format', code: 'unknown_parameter' } });
    }
    // Seedream: `image` is one URL or data URL, or an array of up to 14.
    if (preset === 'doubao' && fields.image !== undefined) {
      const refs = Array.isArray(fields.image) ? fields.image : [fields.image];
      if (refs.length > 14 || !refs.every((r: unknown) => typeof r === 'string' && /^(https?:|data:image\/)/.test(r))) return refuse('The parameter image specified in the request is not valid');
    }
    if (preset === 'doubao' && (w * h < 2560 * 1440 || w * h > 4096 * 4096)) return refuse(`The parameter size specified in the request is not valid: total pixels must be within [3686400, 16777216]`);
    if (preset === 'zhipu' && (w % 16 || h % 16 || w < 512 || h < 512 || w > 2048 || h > 2048 || w * h > 2 ** 21)) return refuse(`size ${sizeText} not supported`);
    if (preset === 'siliconflow' && !['1024x1024', '960x1280', '768x1024', '720x1440', '720x1280'].includes(sizeText)) return refuse(`image_size ${sizeText} not supported`);
    const bytes = await png(w || 1024, h || 1024);
    if (preset === 'openai' || (preset === 'doubao' && fields.response_format === 'b64_json')) return reply(200, { created: 1, data: [{ b64_json: bytes.toString('base64') }] });
    if (preset === 'siliconflow') return reply(200, { images: [{ url: `${origin}/qwen/oss/${w}x${h}.png` }], timings: { inference: 1 }, seed: 1 });
    return reply(200, { created: 1, data: [{ url: `${origin}/qwen/oss/${w}x${h}.png` }] });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    calls,
    maxOutput,
    verbose,
    baseUrl: (preset) => (preset === 'qwen' ? `${origin}/qwen/compatible-mode/v1` : `${origin}/${preset}/v1`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The provider fakes and, beside them, a test server that reaches them (private addresses
 * allowed), gives up on a failed call at once and polls image tasks fast; its admin's token.
 * Jobs are run by the test (`worker: false`).
 */
export async function startPresetsWorld(): Promise<{ fake: FakePresets; server: TestServer; admin: string }> {
  const fake = await startFakePresets();
  const server = await startTestServer({
    worker: false,
    env: { ALLOW_PRIVATE_PROVIDER_URLS: '1', PROVIDER_MAX_RETRIES: '0', PROVIDER_RETRY_BASE_MS: '5', PROVIDER_POLL_INTERVAL_MS: '10' },
  });
  return { fake, server, admin: await server.adminToken() };
}
