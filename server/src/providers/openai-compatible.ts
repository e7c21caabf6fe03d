import OpenAI, { toFile } from 'openai';
import type { Reach } from './download.js';
import type { Logger } from 'pino';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { DEFAULT_HEIGHT, DEFAULT_WIDTH, InvalidImageError, type NormalizedImage, type NormalizeOptions } from '../images/normalize.js';
import { normalizeImageInThread } from '../images/threads.js';
import { dashscopeSyncImage, submitAndPollDashscopeImage } from './dashscope.js';
import { downloadImage } from './download.js';
import { fetchImageReply } from './image-reply.js';
import { withErrorEnvelope, type FetchLike } from './http.js';
import { requestSize, type ChatShape, type ResolvedPreset } from './presets.js';
import { reliably, type CallContext, type Pacing, type ReliabilityOptions, type Semaphore } from './reliability.js';
import { readStructured, schemaInstruction, strictSchema } from './structured.js';
import {
  ProviderError,
  STRUCTURED_MODES,
  type ImageInput,
  type ImageRequest,
  type ImageResult,
  type Provider,
  type StructuredMode,
  type TextRequest,
  type TextResult,
  type VisionRequest,
} from './types.js';

export interface AdapterDeps {
  apiKey: string;
  options: ReliabilityOptions;
  /** The connection's own slots: its account's limits are not shared with other tenants' keys. */
  semaphore: Semaphore;
  /** The connection's budget and who is calling (pacer.ts); absent: not paced. */
  pace?: Pacing;
  fetch: FetchLike;
  /** Where the endpoint (and an image link on its origin) may connect, and the resolver: security/ssrf.ts. */
  reach: Reach;
  /** The endpoint is the deployment's own (or private ones are allowed): image replies may be read off the main thread without the address check. */
  trustedEndpoint: boolean;
  log?: Logger;
  /** DashScope task polling interval. */
  pollIntervalMs: number;
  /** The connection's structured-output mode now, and where a downgrade is remembered. */
  structured: { current(): StructuredMode; downgrade(to: StructuredMode): void };
  /** The shape of its chat calls now (thinking switch, budget name, temperature), and where an `auto` option's adaptation is remembered. */
  chat: { current(): ChatShape; adapt(change: Partial<Pick<ChatShape, 'tokenParam' | 'temperature'>>): void };
}

/** The models and size one connection uses (the preset's where the connection names none). */
export interface ConnectionModels {
  baseUrl: string;
  text: string;
  vision: string;
  image: string;
  imageSize?: string;
}

/** Output budget of a call that names none. */
const DEFAULT_MAX_TOKENS = 2048;

/** What an image in a chat call is counted as against the token budget (providers bill 256-1,500 tokens for a picture, by size and detail). */
export const IMAGE_TOKENS = 1000;

/**
 * The tokens a chat call is counted as before it is sent, so the connection's TPM is never
 * exceeded: its text input at one token per character plus ~1000 per image, plus the whole
 * output budget sent. One token per character is an upper bound for the text we send: Chinese
 * runs at ~0.6-0.7 tokens a character on the presets' tokenizers (Moonshot documents 1 token ≈
 * 1.5-2 Chinese characters), English and JSON at ~0.25; over-counting costs some throughput
 * when TPM is the binding limit, under-counting would cost 429s.
 */
export function estimateChatTokens(messages: ChatCompletionMessageParam[], outputBudget: number): number {
  let tokens = outputBudget;
  for (const message of messages) {
    const content = (message as { content?: unknown }).content;
    if (typeof content === 'string') tokens += content.length;
    else if (Array.isArray(content)) {
      for (const part of content as Array<{ type?: string; text?: string }>) {
        if (part.type === 'text' && typeof part.text === 'string') tokens += part.text.length;
        else if (part.type === 'image_url') tokens += IMAGE_TOKENS;
      }
    }
  }
  return tokens;
}

/**
 * Every remote provider: OpenAI-compatible chat and image endpoints through the official SDK,
 * with the preset smoothing over where providers differ. The SDK's own retries are off so the
 * retries of reliably() are the only ones (and the only ones that count).
 */
export class OpenAICompatibleProvider implements Provider {
  private readonly client: OpenAI;

  constructor(
    private readonly preset: ResolvedPreset,
    private readonly connection: ConnectionModels,
    private readonly deps: AdapterDeps,
  ) {
    this.client = new OpenAI({
      apiKey: deps.apiKey,
      baseURL: connection.baseUrl,
      maxRetries: 0,
      // reliably() enforces the deadline; the SDK's is only a backstop.
      timeout: deps.options.timeoutMs + 5_000,
      fetch: withErrorEnvelope(deps.fetch),
    });
  }

  get label() {
    return this.preset.label;
  }

  get models() {
    return { text: this.connection.text, vision: this.connection.vision, image: this.preset.image ? this.connection.image : '' };
  }

  get referenceImages() {
    return this.preset.image?.reference ? this.preset.image.maxReferences : 0;
  }

  async listModels(signal?: AbortSignal): Promise<string[] | null> {
    if (!this.preset.modelList) return null;
    const page = await this.call('model list', signal, (s) => this.client.get<{ data?: Array<{ id?: unknown }> }>('/models', { signal: s }));
    return (page?.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string' && id !== '');
  }

  async generateText(request: TextRequest): Promise<TextResult> {
    const model = this.connection.text;
    if (!model) throw new ProviderError('unsupported', `${this.label}: this connection has no text model`, this.label);
    return this.structuredChat(request, model, (mode) => [
      { role: 'system', content: request.system },
      { role: 'user', content: this.userPrompt(request, mode) },
    ], 'text generation');
  }

  async analyzeImage(request: VisionRequest): Promise<TextResult> {
    const model = this.connection.vision;
    if (!model) throw new ProviderError('unsupported', `${this.label}: this connection has no vision model`, this.label);
    return this.structuredChat({ ...request, onDelta: undefined }, model, (mode) => [
      { role: 'system', content: request.system },
      {
        role: 'user',
        content: [
          { type: 'text', text: this.userPrompt(request, mode) },
          ...request.images.map((image) => ({
            type: 'image_url' as const,
            image_url: { url: `data:${image.mime};base64,${image.data.toString('base64')}` },
          })),
        ],
      },
    ], 'image analysis');
  }

  async generateImage(request: ImageRequest): Promise<ImageResult> {
    const features = this.preset.image;
    const model = this.models.image;
    if (!features || !model) throw new ProviderError('unsupported', `${this.label}: this connection has no image model`, this.label);
    const width = request.width ?? DEFAULT_WIDTH;
    const height = request.height ?? DEFAULT_HEIGHT;
    const rule = features.modelRules?.find((r) => r.pattern.test(model));
    const size = this.connection.imageSize ?? this.preset.imageSizeOverride ?? requestSize(rule?.size ?? features.size, width, height).value;
    const references = features.reference ? (request.referenceImages ?? []).slice(0, features.maxReferences) : [];
    const reference = references[0];
    const negativePrompt = features.negativePrompt ? request.negativePrompt : undefined;
    const inSlot = request.slot ?? ((work) => work());
    const raw = await inSlot((): Promise<Buffer | Normalizing> => {
      if (features.api === 'dashscope') {
        const dashscope = { baseUrl: this.connection.baseUrl, label: this.label, noWatermark: features.noWatermark };
        if (reference && features.referenceModel) {
          const editSize = this.connection.imageSize ?? (features.referenceSize ? requestSize(features.referenceSize, width, height).value : undefined);
          return dashscopeSyncImage(dashscope, this.deps, { model: features.referenceModel, prompt: request.prompt, negativePrompt, references, size: editSize, signal: request.signal });
        }
        return rule?.endpoint === 'dashscope-sync'
          ? dashscopeSyncImage(dashscope, this.deps, { model, prompt: request.prompt, negativePrompt, size, signal: request.signal })
          : submitAndPollDashscopeImage(dashscope, this.deps, { model, prompt: request.prompt, negativePrompt, size, signal: request.signal });
      }
      return reference && features.reference === 'openai-edits' ? this.openaiEdit(model, size, request, reference) : this.openaiImage(model, size, request, references, negativePrompt, { width, height, aigc: request.aigc });
    });
    // The provider's size rarely is exactly 3:4: crop and resize here, in the same decode that
    // proves the bytes are an image; in an image thread, after the provider's slot is free.
    let normalized: NormalizedImage;
    try {
      normalized = Buffer.isBuffer(raw) ? await normalizeImageInThread(raw, { width, height, aigc: request.aigc }) : await raw.normalizing;
    } catch (err) {
      if (err instanceof InvalidImageError) throw new ProviderError('bad_output', `${this.label} image generation returned data that is not a JPEG, PNG or WebP image`, this.label);
      throw err;
    }
    return { ...normalized, model: reference && features.referenceModel ? features.referenceModel : model };
  }

  private async openaiImage(model: string, size: string, request: ImageRequest, references: ImageInput[], negativePrompt: string | undefined, normalized: NormalizeOptions): Promise<Buffer | Normalizing> {
    const features = this.preset.image!;
    const body: Record<string, unknown> = { model, prompt: request.prompt, n: 1, [features.sizeField]: size, ...features.noWatermark };
    if (negativePrompt) body.negative_prompt = negativePrompt;
    if (features.requestB64) body.response_format = 'b64_json';
    if (references.length > 0 && features.reference === 'image-field') {
      const urls = references.map((r) => `data:${r.mime};base64,${r.data.toString('base64')}`);
      // One photo as the documented string; Seedream takes several as an array.
      body.image = urls.length === 1 ? urls[0] : urls;
    }
    if (!this.deps.trustedEndpoint) {
      // A user's endpoint goes through the address-checked fetch of the main thread (http.ts).
      const reply = await this.call('image generation', request.signal, (signal) => this.client.post<ImageReplyBody>('/images/generations', { body, signal }));
      return this.imageOf(reply, request.signal);
    }
    // Sent, read and normalised in an image thread: the reply is megabytes of base64 (see image-reply.ts).
    const url = `${this.client.baseURL.replace(/\/+$/, '')}/images/generations`;
    const reply = await this.call('image generation', request.signal, (signal) => fetchImageReply({ url, apiKey: this.deps.apiKey, body, signal, size: normalized }));
    if ('invalid' in reply) throw new ProviderError('bad_output', `${this.label} image generation answered without an image (${reply.invalid})`, this.label);
    if ('image' in reply) return { normalizing: reply.image };
    return this.imageOf({ data: [{ url: reply.url }] }, request.signal);
  }

  /** OpenAI: the product photo goes to `/images/edits` as a multipart file. */
  private async openaiEdit(model: string, size: string, request: ImageRequest, reference: ImageInput): Promise<Buffer> {
    const extension = reference.mime === 'image/jpeg' ? 'jpg' : reference.mime === 'image/webp' ? 'webp' : 'png';
    const reply = await this.call('image generation', request.signal, async (signal) =>
      this.client.images.edit(
        { model, prompt: request.prompt, n: 1, size: size as never, image: await toFile(reference.data, `product.${extension}`, { type: reference.mime }) },
        { signal },
      ),
    );
    return this.imageOf(reply as ImageReplyBody, request.signal);
  }

  private async imageOf(reply: ImageReplyBody, signal: AbortSignal | undefined): Promise<Buffer> {
    const first: { b64_json?: string; url?: string } | undefined = reply?.data?.[0] ?? reply?.images?.[0];
    if (first?.b64_json) return Buffer.from(first.b64_json, 'base64');
    if (first?.url) {
      const link = first.url;
      // A download from the answer's storage link is not an API call: the budget does not count it.
      return this.call(
        'image download',
        signal,
        (s) => downloadImage(link, { provider: this.label, providerBaseUrl: this.connection.baseUrl, reach: this.deps.reach, signal: s, timeoutMs: this.deps.options.timeoutMs }),
        'unpaced',
      );
    }
    throw new ProviderError('bad_output', `${this.label} image generation answered without an image (no b64_json or url)`, this.label);
  }

  private userPrompt(request: TextRequest | VisionRequest, mode: StructuredMode): string {
    const { schema } = request;
    // Without json_schema the schema has to travel in the prompt.
    return schema && mode !== 'json_schema' ? request.prompt + schemaInstruction(schema) : request.prompt;
  }

  /**
   * One chat completion, validated against the schema when there is one. A refused
   * `response_format` steps the connection's mode down (remembered) and asks again; an invalid
   * reply is asked for once more (with what was wrong; under json_schema, at the mode below,
   * since the endpoint ignored the schema); a second invalid one is 'bad_output', on which callers use their fallback. A reply cut by its budget is 'truncated' at once: the
   * caller splits the work, asking the same again would be cut the same way.
   */
  private async structuredChat(request: TextRequest, model: string, messages: (mode: StructuredMode) => ChatCompletionMessageParam[], what: string): Promise<TextResult> {
    const { schema } = request;
    let reason = '';
    let retryNote: ChatCompletionMessageParam[] = [];
    for (let round = 0; round < 2; ) {
      let text: string;
      const mode = this.deps.structured.current();
      // Calls in flight at once all meet the same refusal: only the first steps the mode down, the rest ask again at the new one.
      const stepDown = (why: string) => {
        if (this.deps.structured.current() !== mode) return;
        const next = STRUCTURED_MODES[STRUCTURED_MODES.indexOf(mode) + 1]!;
        this.deps.log?.warn({ provider: this.label, from: mode, to: next }, `${why}: structured output downgraded for this connection`);
        this.deps.structured.downgrade(next);
      };
      try {
        text = await this.chat(request, model, [...messages(mode), ...retryNote], what, mode);
      } catch (err) {
        if (schema && err instanceof ProviderError && err.refusedResponseFormat && mode !== 'prompt') {
          stepDown('response_format refused');
          continue;
        }
        throw err;
      }
      if (!schema) {
        if (text.trim() === '') throw new ProviderError('bad_output', `${this.label} ${what} returned an empty reply`, this.label);
        return { text, model };
      }
      const checked = readStructured(schema, text);
      if (checked.ok) return { text, json: checked.value, model };
      // Strict json_schema guarantees the shape: a reply outside it means the endpoint accepted the
      // field and dropped it (some relays do), so it is treated as the refusal it is. The question
      // asked again at the lower mode is also the reply's one second chance: a model that answers
      // badly whatever the mode costs two calls, not three.
      round++;
      reason = checked.reason;
      if (mode === 'json_schema') {
        // Asked afresh: at the mode below the schema travels in the prompt itself.
        stepDown(`json_schema ignored (${checked.reason})`);
        retryNote = [];
        continue;
      }
      retryNote = [
        { role: 'assistant', content: text.slice(0, 8_000) },
        { role: 'user', content: `That reply was not valid (${reason}). Answer again with one JSON object valid against the "${schema.name}" schema.` },
      ];
    }
    throw new ProviderError('bad_output', `${this.label} ${what} twice returned output that does not fit the "${schema!.name}" schema (${reason})`, this.label);
  }

  /**
   * One chat call; an option left `auto` adapts to a refusal that names its parameter (a relay in
   * front of a reasoning model wants `max_completion_tokens` and no temperature) and asks again:
   * a refused request is not billed, and the adaptation is remembered for the connection.
   */
  private async chat(request: TextRequest, model: string, messages: ChatCompletionMessageParam[], what: string, mode: StructuredMode): Promise<string> {
    for (let adaptations = 0; ; adaptations++) {
      const shape = this.deps.chat.current();
      try {
        return await this.chatOnce(request, model, messages, what, mode, shape);
      } catch (err) {
        const refused = err instanceof ProviderError ? err.refusedParam : undefined;
        if (adaptations >= 2 || !refused) throw err;
        if (refused === shape.tokenParam && shape.auto.tokenParam) {
          this.deps.chat.adapt({ tokenParam: refused === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens' });
        } else if (refused === 'temperature' && shape.temperature && shape.auto.temperature) {
          this.deps.chat.adapt({ temperature: false });
        } else {
          throw err;
        }
        this.deps.log?.warn({ provider: this.label, refused }, 'parameter refused: adapted for this connection');
      }
    }
  }

  private async chatOnce(request: TextRequest, model: string, messages: ChatCompletionMessageParam[], what: string, mode: StructuredMode, shape: ChatShape): Promise<string> {
    const budget = Math.max(1, Math.min(request.maxTokens ?? DEFAULT_MAX_TOKENS, this.preset.maxOutputTokens));
    const body: Record<string, unknown> = { ...shape.extras, model, messages, [shape.tokenParam]: budget };
    if (request.temperature !== undefined && shape.temperature) body.temperature = request.temperature;
    if (request.schema && mode === 'json_schema') {
      body.response_format = { type: 'json_schema', json_schema: { name: request.schema.name, schema: strictSchema(request.schema.schema), strict: true } };
    } else if (request.schema && mode === 'json_object') {
      body.response_format = { type: 'json_object' };
    }
    const onDelta = request.onDelta;
    // A stream cut off mid-way is retried from the start; listeners get only text beyond what
    // they already saw, so a retry never shows them the same words twice.
    let emitted = 0;
    const cost = { tokens: estimateChatTokens(messages, budget) };
    if (onDelta) {
      const reply = await this.call(what, request.signal, async (signal) => {
        const stream = await this.client.chat.completions.create({ ...body, stream: true } as ChatCompletionCreateParamsStreaming, { signal });
        let streamed = '';
        let reasoned = false;
        let finishReason: string | null | undefined;
        for await (const chunk of stream) {
          const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string | null } | undefined;
          streamed += delta?.content ?? '';
          reasoned ||= Boolean(delta?.reasoning_content);
          finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
          if (streamed.length > emitted) {
            onDelta(streamed.slice(emitted));
            emitted = streamed.length;
          }
        }
        return { text: streamed, finish: finishReason, reasoned };
      }, cost);
      return this.settle(reply, request, budget, what);
    }
    const completion = await this.call(what, request.signal, (signal) => this.client.chat.completions.create({ ...body, stream: false } as ChatCompletionCreateParamsNonStreaming, { signal }), cost);
    const choice = completion.choices?.[0];
    const message = choice?.message as { content?: string | null; reasoning_content?: string | null; refusal?: string | null } | undefined;
    // OpenAI's structured outputs answer a safety refusal in `refusal`, outside the schema.
    if (message?.refusal) throw new ProviderError('content_blocked', `${this.label} ${what}: the model refused (${message.refusal.slice(0, 200)})`, this.label);
    // Only `content` is the answer: a thinking model's `reasoning_content` is its working, never the reply.
    return this.settle({ text: message?.content ?? '', finish: choice?.finish_reason, reasoned: Boolean(message?.reasoning_content) }, request, budget, what);
  }

  /**
   * A reply read by its documented finish reason: `length` is cut by the budget (said plainly when
   * thinking spent it), `content_filter` is the provider's moderation, and DeepSeek's
   * `insufficient_system_resource` is a reply it broke off for want of capacity.
   */
  private settle(reply: { text: string; finish: string | null | undefined; reasoned: boolean }, request: TextRequest, budget: number, what: string): string {
    const { text, finish } = reply;
    if (finish === 'content_filter') throw new ProviderError('content_blocked', `${this.label} ${what}: the provider's moderation stopped the reply (finish_reason content_filter)`, this.label);
    if (finish === 'insufficient_system_resource') throw new ProviderError('unavailable', `${this.label} ${what}: the provider broke the reply off for lack of capacity (insufficient_system_resource)`, this.label);
    if (finish !== 'length' || (request.acceptTruncated && text.trim() !== '')) return text;
    const thinking = reply.reasoned && text.trim() === '';
    const why = thinking ? "the model's thinking used the whole budget before it answered (set the connection's thinking to off)" : 'the reply was cut off';
    throw new ProviderError('truncated', `${this.label} ${what}: ${why} at its output budget of ${budget} tokens`, this.label, undefined, false, undefined, thinking ? 'thinking' : undefined);
  }

  /** One call with retries; `cost` defaults to requests only (image generation, model lists). */
  private call<T>(what: string, signal: AbortSignal | undefined, attempt: (signal: AbortSignal) => Promise<T>, cost: CallContext['cost'] = { tokens: 0 }): Promise<T> {
    return reliably({ ...this.deps, provider: this.label, what, signal, cost }, attempt);
  }
}

/** An OpenAI-style image reply as JSON (SiliconFlow answers `images` instead of `data`). */
interface ImageReplyBody {
  data?: Array<{ b64_json?: string; url?: string }>;
  images?: Array<{ url?: string }>;
}

/** An image the provider answered, already being normalised in an image thread (image-reply.ts). */
interface Normalizing {
  normalizing: Promise<NormalizedImage>;
}
