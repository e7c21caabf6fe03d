import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/**
 * A real HTTP server speaking the OpenAI chat-completions and image-generations API, for tests
 * and the pipeline bench: replies fit the pipeline's schemas (by the json_schema name), streams
 * when asked to, answers after fixed latencies, and fails the requests a test picks.
 */

export interface FakeNote {
  angle_label: string;
  title: string;
  title_options: string[];
  content: string;
  tags: string[];
  cover_title: string;
  cover_title_options: string[];
  image_brief: string;
  image_plan: Array<{ role: string; brief: string; caption: string }>;
}

export interface FakeOpenAIOptions {
  textLatencyMs?: number;
  imageLatencyMs?: number;
  /** Notes of a `notes` reply; `rewrite` is true for the automatic rewrite of a blocked note. */
  note?: (index: number, opts: { rewrite: boolean; prompt: string }) => FakeNote;
  /** An HTTP status to fail this image request with (every time it is asked), or undefined. */
  failImage?: (prompt: string) => number | undefined;
  /** Fails `notes` calls (generation and rewrite) with this status. */
  failText?: number;
  /** Fails `score` (judge) calls with this status. */
  failScore?: number;
  /** Answer images with photo-like noise (PNGs of several MB, as real models send) instead of a flat colour. */
  photoImages?: boolean;
  /** What the judge reports as unsupported claims for text index i of a judge call with this prompt (default none). */
  unsupportedClaims?: (index: number, prompt: string) => string[];
  /** Metadata in every image, as a real model's file may carry: camera EXIF with GPS, its own XMP label. */
  imageMetadata?: { exif?: Record<string, Record<string, string>>; xmp?: string };
  /**
   * An account limit: a request is answered 429 once more than `perMinute` requests arrived in the
   * last `windowMs` (default 60 000, sliding; refused requests count too, as OpenAI's do), with the
   * body and headers OpenAI documents for a rate limit (`retry-after`, `x-ratelimit-*`).
   */
  rateLimit?: { perMinute: number; windowMs?: number };
}

export interface CallLog {
  kind: 'notes' | 'rewrite' | 'score' | 'image' | 'other';
  prompt: string;
  stream: boolean;
  /** The request's temperature, if it set one. */
  temperature?: number;
  startedAt: number;
  endedAt: number;
  status: number;
}

export interface FakeOpenAI {
  url: string;
  /** Read on every request: a test may change the behaviour between tasks. */
  options: FakeOpenAIOptions;
  calls: CallLog[];
  /** The PNG an image request of this size ("1024x1536") gets (the bench costs its processing). */
  imageOf(size: string, photo?: boolean, metadata?: FakeOpenAIOptions['imageMetadata']): Promise<Buffer>;
  close(): Promise<void>;
}

export function defaultNote(index: number, opts: { rewrite: boolean }): FakeNote {
  return {
    angle_label: `角度${index + 1}`,
    title: `换季护肤｜${index + 1}个补水秘诀✨`,
    title_options: [],
    content: `换季皮肤干到起皮真的崩溃😭\n${opts.rewrite ? '改写后：' : ''}这款面膜玻尿酸深层补水，敷完第二天脸超级舒服！\n质地清爽不黏腻，懒人也能坚持💧\n你们换季有什么护肤烦恼？评论区聊聊🥰`,
    tags: ['换季护肤', '补水面膜', '护肤分享', '好物推荐', '敏感肌'],
    cover_title: '换季补水秘诀',
    cover_title_options: [],
    image_brief: '清晨窗边，女生手拿面膜，柔和自然光',
    image_plan: [],
  };
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const calls: CallLog[] = [];
  // A flat portrait PNG of the size the request asks for ("1024x1536"), as OpenAI answers;
  // made once per size. Unsized requests get 512×768.
  const images = new Map<string, Promise<Buffer>>();
  const imageOf = (size: unknown, photo = false, metadata?: FakeOpenAIOptions['imageMetadata']): Promise<Buffer> => {
    const [width, height] = typeof size === 'string' && /^\d{2,4}x\d{2,4}$/.test(size) ? size.split('x').map(Number) : [512, 768];
    const key = `${width}x${height}${photo ? ' photo' : ''}${metadata ? ` ${JSON.stringify(metadata)}` : ''}`;
    const noise = photo ? { noise: { type: 'gaussian' as const, mean: 160, sigma: 40 } } : {};
    if (!images.has(key)) {
      let image = sharp({ create: { width: width!, height: height!, channels: 3, background: { r: 230, g: 180, b: 190 }, ...noise } });
      if (metadata?.exif) image = image.withExif(metadata.exif);
      if (metadata?.xmp) image = image.withXmp(metadata.xmp);
      images.set(key, image.png().toBuffer());
    }
    return images.get(key)!;
  };
  // The reply that carries an image, built once per image: base64 and JSON of several megabytes
  // take a real provider's machine, not the one running the tests, 15-20 ms each time.
  const imageReplies = new Map<string, Promise<Buffer>>();
  const imageReplyOf = (size: unknown, photo = false, metadata?: FakeOpenAIOptions['imageMetadata']): Promise<Buffer> => {
    const key = `${String(size)}${photo ? ' photo' : ''}${metadata ? ` ${JSON.stringify(metadata)}` : ''}`;
    if (!imageReplies.has(key)) imageReplies.set(key, imageOf(size, photo, metadata).then((png) => Buffer.from(JSON.stringify({ created: 1, data: [{ b64_json: png.toString('base64') }] }))));
    return imageReplies.get(key)!;
  };

  const api: { current?: FakeOpenAI } = {};
  // Arrival times of the requests inside the rate-limit window.
  const arrivals: number[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const options = api.current!.options;
      const startedAt = Date.now();
      const limit = options.rateLimit;
      let limited: { retryMs: number; limit: number; windowMs: number } | undefined;
      if (limit) {
        const windowMs = limit.windowMs ?? 60_000;
        while (arrivals.length > 0 && arrivals[0]! <= startedAt - windowMs) arrivals.shift();
        arrivals.push(startedAt);
        if (arrivals.length > limit.perMinute) limited = { retryMs: Math.max(1, arrivals[arrivals.length - 1 - limit.perMinute]! + windowMs - startedAt), limit: limit.perMinute, windowMs };
      }
      const body = await readJson(req);
      const send = (status: number, payload: unknown, kind: CallLog['kind'], prompt: string, stream = false) => {
        calls.push({ kind, prompt, stream, ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}), startedAt, endedAt: Date.now(), status });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(Buffer.isBuffer(payload) ? payload : JSON.stringify(payload));
      };

      if (limited) {
        const { retryMs, limit: perMinute } = limited;
        const used = arrivals.length;
        const seconds = retryMs / 1000;
        calls.push({ kind: req.url?.endsWith('/images/generations') ? 'image' : 'other', prompt: '', stream: Boolean(body.stream), startedAt, endedAt: Date.now(), status: 429 });
        // As OpenAI answers a rate limit (platform.openai.com/docs/guides/rate-limits, error-codes).
        res.writeHead(429, {
          'content-type': 'application/json',
          'retry-after': String(Math.max(1, Math.ceil(seconds))),
          'retry-after-ms': String(Math.ceil(retryMs)),
          'x-ratelimit-limit-requests': String(perMinute),
          'x-ratelimit-remaining-requests': '0',
          'x-ratelimit-reset-requests': `${seconds.toFixed(3)}s`,
          'x-ratelimit-limit-tokens': '200000',
          'x-ratelimit-remaining-tokens': '200000',
          'x-ratelimit-reset-tokens': '0s',
        });
        res.end(
          JSON.stringify({
            error: {
              message: `Rate limit reached for ${String(body.model ?? 'the model')} in organization org-fake on requests per min (RPM): Limit ${perMinute}, Used ${used - 1}, Requested 1. Please try again in ${seconds.toFixed(3)}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
              type: 'requests',
              param: null,
              code: 'rate_limit_exceeded',
            },
          }),
        );
        return;
      }

      if (req.url?.endsWith('/images/generations')) {
        await sleep(options.imageLatencyMs ?? 0);
        const prompt = String(body.prompt ?? '');
        // OpenAI's Images API has no negative prompt and refuses parameters it does not know.
        if (body.negative_prompt !== undefined) return send(400, { error: { message: "Unknown parameter: 'negative_prompt'.", type: 'invalid_request_error', param: 'negative_prompt', code: 'unknown_parameter' } }, 'image', prompt);
        const failure = options.failImage?.(prompt);
        if (failure) return send(failure, { error: { message: 'fake image failure', type: 'invalid_request_error' } }, 'image', prompt);
        return send(200, await imageReplyOf(body.size, options.photoImages, options.imageMetadata), 'image', prompt);
      }

      if (req.url?.endsWith('/chat/completions')) {
        const prompt = (body.messages as Array<{ role: string; content: string }>).map((m) => m.content).join('\n');
        const schemaName: string | undefined = body.response_format?.json_schema?.name;
        const schema = body.response_format?.json_schema?.schema;
        await sleep(options.textLatencyMs ?? 0);
        let kind: CallLog['kind'] = 'other';
        let reply: unknown = {};
        if (schemaName === 'notes') {
          const count: number = schema?.properties?.notes?.minItems ?? 1;
          const rewrite = prompt.includes('【改写任务】');
          kind = rewrite ? 'rewrite' : 'notes';
          if (options.failText) return send(options.failText, { error: { message: 'fake text failure' } }, kind, prompt);
          const noteOf = options.note ?? defaultNote;
          reply = { notes: Array.from({ length: count }, (_, i) => noteOf(i, { rewrite, prompt })) };
        } else if (schemaName === 'text_scores') {
          kind = 'score';
          if (options.failScore) return send(options.failScore, { error: { message: 'fake judge failure' } }, kind, prompt);
          const indexes = [...prompt.matchAll(/^Text (\d+):/gm)].map((m) => Number(m[1]));
          reply = { scores: indexes.map((index) => ({ index, issues: [], unsupported_claims: options.unsupportedClaims?.(index, prompt) ?? [], title: 22, emotion: 21, selling: 23, keyword: 17, compliance: 5, summary: '评审：结构清晰，卖点突出。' })) };
        }
        const content = JSON.stringify(reply);
        if (body.stream) {
          calls.push({ kind, prompt, stream: true, ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}), startedAt, endedAt: Date.now(), status: 200 });
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (let i = 0; i < content.length; i += 16) {
            const chunk = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: { content: content.slice(i, i + 16) }, finish_reason: null }] };
            res.write(`data: ${JSON.stringify(chunk)}\n\n`);
          }
          res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
          res.end('data: [DONE]\n\n');
          return;
        }
        return send(200, { id: 'c1', object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }, kind, prompt);
      }
      send(404, { error: { message: 'not found' } }, 'other', '');
    })().catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  api.current = {
    url: `http://127.0.0.1:${port}/v1`,
    options,
    calls,
    imageOf,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return api.current;
}
