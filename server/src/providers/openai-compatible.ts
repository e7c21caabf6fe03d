import OpenAI from 'openai';
import type { Logger } from 'pino';
import type { ChatCompletionCreateParams, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { DEFAULT_HEIGHT, DEFAULT_WIDTH, InvalidImageError, normalizeImage, type NormalizedImage } from '../images/normalize.js';
import { submitAndPollDashscopeImage } from './dashscope.js';
import { downloadImage } from './download.js';
import { fetchImageReply } from './image-reply.js';
import { requestSize, type Preset } from './presets.js';
import { reliably, type ReliabilityOptions, type Semaphore } from './reliability.js';
import { readStructured, schemaInstruction } from './structured.js';
import {
  ProviderError,
  type ImageRequest,
  type ImageResult,
  type Provider,
  type TextRequest,
  type TextResult,
  type VisionRequest,
} from './types.js';

export interface AdapterDeps {
  apiKey: string;
  options: ReliabilityOptions;
  semaphore: Semaphore;
  log?: Logger;
  /** DashScope task polling interval. */
  pollIntervalMs: number;
}

type ResolvedPreset = Preset & { imageSizeOverride?: string };

/**
 * Every remote provider: OpenAI-compatible chat and image endpoints through the official SDK,
 * with the preset smoothing over where providers differ. The SDK's own retries are off so the
 * retries of reliably() are the only ones (and the only ones that count).
 */
export class OpenAICompatibleProvider implements Provider {
  private readonly client: OpenAI;

  constructor(
    private readonly preset: ResolvedPreset,
    private readonly deps: AdapterDeps,
  ) {
    this.client = new OpenAI({
      apiKey: deps.apiKey,
      baseURL: preset.baseUrl,
      maxRetries: 0,
      // reliably() enforces the deadline; the SDK's is only a backstop.
      timeout: deps.options.timeoutMs + 5_000,
    });
  }

  get label() {
    return this.preset.label;
  }

  async generateText(request: TextRequest): Promise<TextResult> {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: request.system },
      { role: 'user', content: this.userPrompt(request) },
    ];
    return this.structuredChat(request, this.preset.textModel, messages, 'text generation');
  }

  async analyzeImage(request: VisionRequest): Promise<TextResult> {
    const model = this.preset.visionModel;
    if (!model) {
      throw new ProviderError(
        'bad_request',
        `${this.label} has no vision model: set PROVIDER_${this.label.toUpperCase()}_VISION_MODEL or add a key of a provider with vision`,
        this.label,
      );
    }
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: request.system },
      {
        role: 'user',
        content: [
          { type: 'text', text: this.userPrompt(request) },
          ...request.images.map((image) => ({
            type: 'image_url' as const,
            image_url: { url: `data:${image.mime};base64,${image.data.toString('base64')}` },
          })),
        ],
      },
    ];
    return this.structuredChat({ ...request, onDelta: undefined }, model, messages, 'image analysis');
  }

  async generateImage(request: ImageRequest): Promise<ImageResult> {
    const model = this.preset.imageModel;
    if (!model) {
      throw new ProviderError(
        'bad_request',
        `${this.label} has no image model: set PROVIDER_${this.label.toUpperCase()}_IMAGE_MODEL or add a key of a provider that generates images`,
        this.label,
      );
    }
    const width = request.width ?? DEFAULT_WIDTH;
    const height = request.height ?? DEFAULT_HEIGHT;
    const size = this.preset.imageSizeOverride ?? requestSize(this.preset.features.imageSize, width, height).value;
    const inSlot = request.slot ?? ((work) => work());
    const raw = await inSlot(() =>
      this.preset.features.imageApi === 'dashscope'
        ? submitAndPollDashscopeImage(this.preset, this.deps, { model, prompt: request.prompt, size, signal: request.signal })
        : this.openaiImage(model, size, request),
    );
    // The provider's size rarely is exactly 3:4 (OpenAI has none): crop and resize here, in the
    // same decode that proves the bytes are an image.
    let normalized: NormalizedImage;
    try {
      normalized = await normalizeImage(raw, { width, height });
    } catch (err) {
      if (err instanceof InvalidImageError) throw new ProviderError('invalid_output', `${this.label} image generation returned data that is not a JPEG, PNG or WebP image`, this.label);
      throw err;
    }
    return { ...normalized, model };
  }

  private async openaiImage(model: string, size: string, request: ImageRequest): Promise<Buffer> {
    const { features } = this.preset;
    const body: Record<string, unknown> = {
      model,
      prompt: request.prompt,
      n: 1,
      [features.imageSizeField]: size,
      ...features.noWatermark,
    };
    if (features.requestB64) body.response_format = 'b64_json';
    if (request.referenceImage && features.referenceImageField) {
      body[features.referenceImageField] = `data:${request.referenceImage.mime};base64,${request.referenceImage.data.toString('base64')}`;
    }
    // Sent and read in a worker thread: the reply is megabytes of base64 (see image-reply.ts).
    const url = `${this.client.baseURL.replace(/\/+$/, '')}/images/generations`;
    const reply = await this.call('image generation', request.signal, (signal) => fetchImageReply({ url, apiKey: this.deps.apiKey, body, signal }));
    if ('invalid' in reply) throw new ProviderError('invalid_output', `${this.label} image generation answered without an image (${reply.invalid})`, this.label);
    if ('image' in reply) return reply.image;
    const link = reply.url;
    return this.call('image download', request.signal, (signal) => this.download(link, signal));
  }

  private download(link: string, signal: AbortSignal): Promise<Buffer> {
    return downloadImage(link, { provider: this.label, providerBaseUrl: this.preset.baseUrl, signal, timeoutMs: this.deps.options.timeoutMs });
  }

  private userPrompt(request: TextRequest | VisionRequest): string {
    const { schema } = request;
    // Without json_schema support the schema has to travel in the prompt.
    return schema && !this.preset.features.jsonSchema ? request.prompt + schemaInstruction(schema) : request.prompt;
  }

  /**
   * One chat completion, validated against the schema when there is one. An invalid reply is
   * asked for once more (with what was wrong); a second invalid one is ProviderError
   * 'invalid_output', on which callers use their fallback.
   */
  private async structuredChat(request: TextRequest, model: string, messages: ChatCompletionMessageParam[], what: string): Promise<TextResult> {
    const { schema } = request;
    let conversation = messages;
    let reason = '';
    for (let round = 0; round < 2; round++) {
      const text = await this.chat(request, model, conversation, what);
      if (!schema) {
        if (text.trim() === '') throw new ProviderError('invalid_output', `${this.label} ${what} returned an empty reply`, this.label);
        return { text, model };
      }
      const checked = readStructured(schema, text);
      if (checked.ok) return { text, json: checked.value, model };
      reason = checked.reason;
      conversation = [
        ...messages,
        { role: 'assistant', content: text.slice(0, 8_000) },
        { role: 'user', content: `That reply was not valid (${reason}). Answer again with one JSON object valid against the "${schema.name}" schema.` },
      ];
    }
    throw new ProviderError('invalid_output', `${this.label} ${what} twice returned output that does not fit the "${schema!.name}" schema (${reason})`, this.label);
  }

  private async chat(request: TextRequest, model: string, messages: ChatCompletionMessageParam[], what: string): Promise<string> {
    const { features } = this.preset;
    const body: ChatCompletionCreateParams = { model, messages };
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    if (request.schema) {
      if (features.jsonSchema) {
        body.response_format = { type: 'json_schema', json_schema: { name: request.schema.name, schema: request.schema.schema, strict: true } };
      } else if (features.jsonMode) {
        body.response_format = { type: 'json_object' };
      }
    }
    const onDelta = request.onDelta;
    // A stream cut off mid-way is retried from the start; listeners get only text beyond what
    // they already saw, so a retry never shows them the same words twice.
    let emitted = 0;
    const text =
      onDelta && features.streaming
        ? await this.call(what, request.signal, async (signal) => {
            const stream = await this.client.chat.completions.create({ ...body, stream: true }, { signal });
            let streamed = '';
            for await (const chunk of stream) {
              streamed += chunk.choices[0]?.delta?.content ?? '';
              if (streamed.length > emitted) {
                onDelta(streamed.slice(emitted));
                emitted = streamed.length;
              }
            }
            return streamed;
          })
        : await this.call(what, request.signal, async (signal) => {
            const completion = await this.client.chat.completions.create({ ...body, stream: false }, { signal });
            return completion.choices?.[0]?.message?.content ?? '';
          });
    return text;
  }

  private call<T>(what: string, signal: AbortSignal | undefined, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return reliably({ ...this.deps, provider: this.label, what, signal }, attempt);
  }
}
