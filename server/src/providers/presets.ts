import type { PRESET_PROVIDERS } from './labels.js';
import type { ConnectionOptions, StructuredMode } from './types.js';

export type PresetLabel = (typeof PRESET_PROVIDERS)[number];

/**
 * How a provider wants the image size written: `WxH` (OpenAI, Zhipu, Doubao, SiliconFlow) or
 * `W*H` (DashScope).
 */
export type SizeSyntax = 'WxH' | 'W*H';

export interface ImageSizeRule {
  syntax: SizeSyntax;
  /** Sizes the model accepts; absent means any size inside the bounds in steps of `multiple`. */
  allowed?: Array<[number, number]>;
  /** Shortest and longest edge. */
  min?: number;
  max?: number;
  multiple?: number;
  /** Total pixels (Seedream 4.5: at least 2560×1440; gpt-image-2: 655,360 to 8,294,400). */
  minPixels?: number;
  maxPixels?: number;
}

/**
 * How a product photo reaches the image model: OpenAI's `/images/edits` (multipart), a data URL
 * in the generation request's `image` field (Seedream, Kolors), DashScope's image-editing model
 * (Qwen), or not at all (the prompt then never claims a reference).
 */
export type ReferenceMode = 'openai-edits' | 'image-field' | 'dashscope-edit' | null;

export interface ImageFeatures {
  /** The OpenAI-style `/images/generations`, or DashScope's asynchronous image synthesis. */
  api: 'openai' | 'dashscope';
  size: ImageSizeRule;
  /** Name of the size field (`size`, or SiliconFlow's `image_size`). */
  sizeField: 'size' | 'image_size';
  /** Ask for base64 with `response_format: b64_json`; false where the model refuses the field. */
  requestB64: boolean;
  reference: ReferenceMode;
  /** Product photos one request takes (Seedream up to 14, qwen-image-edit-plus up to 3); 1 where only one is sent. */
  maxReferences: number;
  /** DashScope: the image-editing model a reference goes to (the text-to-image model takes none). */
  referenceModel?: string;
  /** The editing model's own size rule: the size is always sent, so the picture comes out portrait. */
  referenceSize?: ImageSizeRule;
  /**
   * Image models whose size rule or endpoint differ from the preset's, by id pattern (first match
   * wins): DashScope's Wan 2.6 and later take the synchronous multimodal endpoint and a total-pixel
   * range instead of the asynchronous task and per-edge limits.
   */
  modelRules?: Array<{ pattern: RegExp; size: ImageSizeRule; endpoint?: 'dashscope-sync' }>;
  /**
   * Extra fields that turn the provider's visible watermark off: the contract removes visible
   * marks only (contract-decisions §12); the implicit label is written by the service (images/aigc.ts).
   */
  noWatermark: Record<string, unknown>;
  /**
   * The image API documents a negative prompt (DashScope: `input.negative_prompt` for Wan,
   * `parameters.negative_prompt` for Qwen image editing; SiliconFlow: `negative_prompt`). Where
   * it does not, none is sent: OpenAI refuses unknown parameters.
   */
  negativePrompt: boolean;
}

export interface Preset {
  label: PresetLabel;
  /** The name the console shows (contract: the user picks a provider by its Chinese name). */
  displayName: string;
  baseUrl: string;
  textModel: string;
  /** `""`: the provider has no vision model. */
  visionModel: string;
  /** `""`: the provider draws no images. */
  imageModel: string;
  /** The strongest structured-output mode the provider documents; refusals step it down per connection. */
  structured: StructuredMode;
  /** The output budget's parameter (`max_completion_tokens` where the provider requires it). */
  tokenParam: 'max_tokens' | 'max_completion_tokens';
  /** The default text model's documented output cap: no budget asks for more. */
  maxOutputTokens: number;
  /** Whether `temperature` may be sent (reasoning models fix it and refuse other values). */
  temperature: boolean;
  /**
   * The provider's own switch for a model's thinking: what a chat call carries for `thinking: off`
   * and `on` (`provider_default` sends neither). Thinking is spent from the output budget, so
   * writing and judging send `off` unless the connection says otherwise.
   */
  thinking: { off: Record<string, unknown>; on: Record<string, unknown> };
  /** Known shutdown dates (ISO day) of models this preset offers, from the provider's deprecation pages. */
  retirements: Record<string, string>;
  /** The provider documents an OpenAI-style `GET /models` (else the console offers the catalogue's models). */
  modelList: boolean;
  /** Calls of one connection in flight at once, from the documented account limits (overridable per connection). */
  concurrency: number;
  /**
   * Requests and tokens per minute a connection spends by default (overridable per connection and
   * by PROVIDER_<LABEL>_RPM / _TPM): the provider's documented limits for a new paying account,
   * or a conservative figure where it documents none (table and sources in docs/providers.md).
   */
  rpm: number;
  tpm: number;
  /** Absent: no image endpoint. */
  image?: ImageFeatures;
}

const openaiSizes: Array<[number, number]> = [
  [1024, 1024],
  [1024, 1536],
  [1536, 1024],
];

/**
 * Built-in presets, checked against each provider's documentation on 2026-11-24 (sources and
 * limits in docs/providers.md). A connection overrides the endpoint and every model; the
 * deployment may change a preset's defaults with PROVIDER_<LABEL>_BASE_URL / _TEXT_MODEL /
 * _VISION_MODEL / _IMAGE_MODEL / _IMAGE_SIZE, so a renamed model needs no release.
 */
export const PRESETS: Record<PresetLabel, Preset> = {
  openai: {
    label: 'openai',
    displayName: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    textModel: 'gpt-5.4-mini',
    visionModel: 'gpt-5.4-mini',
    imageModel: 'gpt-image-2',
    structured: 'json_schema',
    tokenParam: 'max_completion_tokens',
    maxOutputTokens: 128_000,
    // GPT-5 models take only the default temperature; reasoning `none` (GPT-5.1 and later) keeps the budget for the answer.
    temperature: false,
    thinking: { off: { reasoning_effort: 'none' }, on: { reasoning_effort: 'medium' } },
    retirements: { 'gpt-5-mini': '2026-12-11', 'gpt-5-mini-2025-08-07': '2026-12-11', 'gpt-5': '2026-12-11', 'gpt-5-nano': '2026-12-11' },
    modelList: true,
    concurrency: 8,
    rpm: 500,
    tpm: 500_000,
    image: {
      api: 'openai',
      // gpt-image-2 takes any size: edges multiples of 16 up to 3840, 655,360 to 8,294,400 pixels.
      size: { syntax: 'WxH', min: 512, max: 3840, multiple: 16, minPixels: 655_360, maxPixels: 8_294_400 },
      sizeField: 'size',
      // GPT image models always answer base64 and refuse the response_format field.
      requestB64: false,
      reference: 'openai-edits',
      maxReferences: 1,
      noWatermark: {},
      negativePrompt: false,
    },
  },
  deepseek: {
    label: 'deepseek',
    displayName: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com',
    textModel: 'deepseek-flash',
    visionModel: '',
    imageModel: '',
    structured: 'json_object',
    tokenParam: 'max_tokens',
    maxOutputTokens: 32_768,
    temperature: true,
    // V4 thinks by default (effort high) and spends it from max_tokens.
    thinking: { off: { thinking: { type: 'disabled' } }, on: { thinking: { type: 'enabled' } } },
    retirements: {},
    modelList: true,
    // No fixed concurrency limit is documented (the service throttles dynamically).
    concurrency: 16,
    rpm: 300,
    tpm: 1_000_000,
  },
  qwen: {
    label: 'qwen',
    displayName: '通义千问',
    baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    textModel: 'qwen-plus',
    visionModel: 'qwen3-vl-plus',
    imageModel: 'wan2.2-t2i-flash',
    structured: 'json_object',
    tokenParam: 'max_tokens',
    maxOutputTokens: 32_768,
    temperature: true,
    // Qwen3 hybrid models (qwen-plus, qwen3-vl-plus) take DashScope's enable_thinking.
    thinking: { off: { enable_thinking: false }, on: { enable_thinking: true } },
    retirements: { 'qwen-vl-plus': '2026-10-10', 'qwen-vl-max': '2026-10-10' },
    modelList: true,
    concurrency: 8,
    rpm: 600,
    tpm: 1_000_000,
    image: {
      api: 'dashscope',
      size: { syntax: 'W*H', min: 512, max: 1440, multiple: 8 },
      sizeField: 'size',
      requestB64: false,
      reference: 'dashscope-edit',
      maxReferences: 3,
      // qwen-image-edit-plus: 1-6 outputs, a custom `size` with edges of 512-2048.
      referenceModel: 'qwen-image-edit-plus',
      referenceSize: { syntax: 'W*H', min: 512, max: 2048, multiple: 16 },
      // wan2.6-t2i / wan2.7-image: 1280×1280 to 1440×1440 pixels in total, ratio within 1:4-4:1.
      modelRules: [{ pattern: /^wan(2\.[6-9]|[3-9])/, endpoint: 'dashscope-sync', size: { syntax: 'W*H', min: 384, max: 2880, multiple: 16, minPixels: 1280 * 1280, maxPixels: 1440 * 1440 } }],
      noWatermark: { watermark: false },
      negativePrompt: true,
    },
  },
  doubao: {
    label: 'doubao',
    displayName: '豆包',
    baseUrl: 'https://ark.cn-beijing.volces.com/api/v3',
    textModel: 'doubao-seed-2-0-mini-260428',
    visionModel: 'doubao-seed-2-0-mini-260428',
    imageModel: 'doubao-seedream-5-0-260128',
    structured: 'json_object',
    tokenParam: 'max_tokens',
    maxOutputTokens: 32_768,
    temperature: true,
    thinking: { off: { thinking: { type: 'disabled' } }, on: { thinking: { type: 'enabled' } } },
    retirements: { 'doubao-seedream-4-5-251128': '2026-11-24' },
    modelList: false,
    concurrency: 10,
    rpm: 500,
    tpm: 1_000_000,
    image: {
      api: 'openai',
      // Seedream 5.0 keeps 4.5's range: at least 2560×1440 pixels in total, at most 4096×4096.
      size: { syntax: 'WxH', min: 480, max: 4096, multiple: 8, minPixels: 2560 * 1440, maxPixels: 4096 * 4096 },
      sizeField: 'size',
      requestB64: true,
      reference: 'image-field',
      maxReferences: 4,
      noWatermark: { watermark: false },
      negativePrompt: false,
    },
  },
  zhipu: {
    label: 'zhipu',
    displayName: '智谱',
    baseUrl: 'https://open.bigmodel.cn/api/paas/v4',
    textModel: 'glm-4.6',
    // glm-4v-flash refuses base64 images, the only form sent; glm-4.6v-flash takes them.
    visionModel: 'glm-4.6v-flash',
    imageModel: 'cogview-4-250304',
    structured: 'json_object',
    tokenParam: 'max_tokens',
    maxOutputTokens: 65_536,
    temperature: true,
    thinking: { off: { thinking: { type: 'disabled' } }, on: { thinking: { type: 'enabled' } } },
    retirements: {},
    modelList: false,
    concurrency: 5,
    rpm: 300,
    tpm: 600_000,
    image: {
      api: 'openai',
      size: { syntax: 'WxH', min: 512, max: 2048, multiple: 16, maxPixels: 2 ** 21 },
      sizeField: 'size',
      requestB64: false,
      reference: null,
      maxReferences: 0,
      noWatermark: { watermark_enabled: false },
      negativePrompt: false,
    },
  },
  moonshot: {
    label: 'moonshot',
    displayName: '月之暗面 Kimi',
    baseUrl: 'https://api.moonshot.cn/v1',
    textModel: 'kimi-k2.6',
    visionModel: 'kimi-k2.6',
    imageModel: '',
    structured: 'json_object',
    tokenParam: 'max_tokens',
    maxOutputTokens: 32_768,
    // Kimi K2.6 fixes its temperature and refuses other values.
    temperature: false,
    thinking: { off: { thinking: { type: 'disabled' } }, on: { thinking: { type: 'enabled' } } },
    retirements: {},
    modelList: true,
    concurrency: 8,
    rpm: 200,
    tpm: 2_000_000,
  },
  siliconflow: {
    label: 'siliconflow',
    displayName: '硅基流动',
    baseUrl: 'https://api.siliconflow.cn/v1',
    textModel: 'deepseek-ai/DeepSeek-V4-Flash',
    visionModel: 'Qwen/Qwen3-VL-32B-Instruct',
    imageModel: 'Kwai-Kolors/Kolors',
    structured: 'json_object',
    tokenParam: 'max_tokens',
    maxOutputTokens: 16_384,
    temperature: true,
    // Its reasoning models take enable_thinking; there max_tokens excludes the reasoning.
    thinking: { off: { enable_thinking: false }, on: { enable_thinking: true } },
    retirements: {},
    modelList: true,
    concurrency: 4,
    rpm: 1_000,
    tpm: 50_000,
    image: {
      api: 'openai',
      size: {
        syntax: 'WxH',
        allowed: [
          [1024, 1024],
          [960, 1280],
          [768, 1024],
          [720, 1440],
          [720, 1280],
        ],
      },
      sizeField: 'image_size',
      requestB64: false,
      reference: 'image-field',
      maxReferences: 1,
      noWatermark: {},
      negativePrompt: true,
    },
  },
  'openai-compatible': {
    label: 'openai-compatible',
    displayName: '自定义兼容接口',
    // Required on the connection: relays and gateways have no common address.
    baseUrl: '',
    textModel: '',
    visionModel: '',
    imageModel: '',
    structured: 'json_schema',
    tokenParam: 'max_tokens',
    maxOutputTokens: 16_384,
    temperature: true,
    // A relay's switch is unknown: nothing is sent unless the connection picks a preset-like option.
    thinking: { off: {}, on: {} },
    retirements: {},
    modelList: true,
    concurrency: 4,
    rpm: 300,
    tpm: 500_000,
    image: {
      api: 'openai',
      size: { syntax: 'WxH', allowed: openaiSizes },
      sizeField: 'size',
      requestB64: false,
      reference: null,
      maxReferences: 0,
      noWatermark: {},
      negativePrompt: false,
    },
  },
};

/** The day the catalogue (PRESETS: defaults, limits, switches, retirements) was last checked against the providers' pages. */
export const CATALOGUE_CHECKED_ON = '2026-11-28';

/** What one chat call of a connection sends, from its preset and options. */
export interface ChatShape {
  extras: Record<string, unknown>;
  tokenParam: 'max_tokens' | 'max_completion_tokens';
  temperature: boolean;
  /** Options left `auto`: a refusal naming the parameter switches it (the other budget name, no temperature). */
  auto: { tokenParam: boolean; temperature: boolean };
}

export function chatShape(preset: Preset, options: ConnectionOptions): ChatShape {
  return {
    extras: options.thinking === 'provider_default' ? {} : preset.thinking[options.thinking],
    tokenParam: options.token_param === 'auto' ? preset.tokenParam : options.token_param,
    temperature: options.temperature === 'auto' && preset.temperature,
    auto: { tokenParam: options.token_param === 'auto', temperature: options.temperature === 'auto' },
  };
}

export interface Retiring {
  capability: 'text' | 'vision' | 'image';
  model: string;
  retires_on: string;
}

/** A connection's models that the catalogue knows retire within `days` of `today` (or already did). */
export function retiringModels(preset: Preset, models: Record<Retiring['capability'], string>, today: Date, days = 30): Retiring[] {
  const horizon = new Date(today.getTime() + days * 86_400_000).toISOString().slice(0, 10);
  return (Object.keys(models) as Array<Retiring['capability']>).flatMap((capability) => {
    const model = models[capability];
    const retiresOn = model ? preset.retirements[model] : undefined;
    return retiresOn && retiresOn <= horizon ? [{ capability, model, retires_on: retiresOn }] : [];
  });
}

/**
 * What a model id says about its capability, for model lists that do not (OpenAI's and most
 * relays' `/models` carry only ids): image models by their family names, vision models by
 * theirs; ids of other kinds (embeddings, speech, rerankers) are neither text nor vision.
 */
const IMAGE_MODEL = /image|seedream|cogview|kolors|flux|dall-e|stable-diffusion|sdxl|sd3|^wan\d|wanx|t2i/i;
const NOT_CHAT = /embed|tts|whisper|speech|audio|rerank|moderation|transcribe|realtime|asr|video|t2v|i2v/i;
const VISION_MODEL = /vl|vision|4v|\dv\b|\dv-|omni|gpt-4o|gpt-4\.1|gpt-5|kimi-k2\.[5-9]|doubao-seed|qvq|gemini|claude/i;

export function capabilitiesOfModel(preset: Preset, id: string): Array<Retiring['capability']> {
  if (id === preset.imageModel || IMAGE_MODEL.test(id)) return ['image'];
  if (NOT_CHAT.test(id)) return [];
  return id === preset.visionModel || VISION_MODEL.test(id) ? ['text', 'vision'] : ['text'];
}

/** The catalogue's own models of a preset: its defaults and those with a known shutdown date. */
export function catalogueModels(preset: Preset): string[] {
  return [...new Set([preset.textModel, preset.visionModel, preset.imageModel, preset.image?.referenceModel ?? '', ...Object.keys(preset.retirements)])].filter(Boolean);
}

/** `doubao` → `DOUBAO`, `openai-compatible` → `OPENAI_COMPATIBLE`: the env prefix of a label. */
export function envPrefix(label: string): string {
  return `PROVIDER_${label.toUpperCase().replace(/-/g, '_')}_`;
}

export type ResolvedPreset = Preset & { imageSizeOverride?: string };

/** What a deployment may override of a preset (PROVIDER_<LABEL>_BASE_URL, _TEXT_MODEL, …; read by config.ts). */
export interface PresetOverrides {
  baseUrl?: string | undefined;
  textModel?: string | undefined;
  visionModel?: string | undefined;
  imageModel?: string | undefined;
  imageSize?: string | undefined;
}

/** The preset with the deployment's overrides applied (contract-decisions §1). */
export function resolvePreset(label: PresetLabel, overrides: PresetOverrides): ResolvedPreset {
  const base = PRESETS[label];
  return {
    ...base,
    baseUrl: (overrides.baseUrl ?? base.baseUrl).replace(/\/+$/, ''),
    textModel: overrides.textModel ?? base.textModel,
    visionModel: overrides.visionModel ?? base.visionModel,
    imageModel: overrides.imageModel ?? base.imageModel,
    imageSizeOverride: overrides.imageSize,
  };
}

/**
 * The size to request for a wanted output size: the wanted one where the model takes any size
 * (scaled into its edge and pixel bounds, keeping the ratio), else the allowed size closest in
 * aspect ratio (ties: the larger), which the caller then crops.
 */
export function requestSize(rule: ImageSizeRule, width: number, height: number): { value: string; width: number; height: number } {
  const format = (w: number, h: number) => (rule.syntax === 'W*H' ? `${w}*${h}` : `${w}x${h}`);
  if (rule.allowed) {
    const want = width / height;
    const [w, h] = [...rule.allowed].sort((a, b) => {
      const da = Math.abs(Math.log(a[0] / a[1] / want));
      const db = Math.abs(Math.log(b[0] / b[1] / want));
      return da - db || b[0] * b[1] - a[0] * a[1];
    })[0]!;
    return { value: format(w, h), width: w, height: h };
  }
  const min = rule.min ?? 256;
  const max = rule.max ?? 4096;
  const step = rule.multiple ?? 1;
  let scale = 1;
  if (rule.minPixels && width * height < rule.minPixels) scale = Math.sqrt(rule.minPixels / (width * height));
  if (rule.maxPixels && width * height * scale * scale > rule.maxPixels) scale = Math.sqrt(rule.maxPixels / (width * height));
  if (Math.max(width, height) * scale > max) scale = max / Math.max(width, height);
  if (Math.min(width, height) * scale < min) scale = min / Math.min(width, height);
  // Up when a pixel floor must be met, down when a ceiling must: rounding never crosses a bound.
  const round = rule.minPixels && scale > 1 ? Math.ceil : rule.maxPixels && scale < 1 ? Math.floor : Math.round;
  const fit = (v: number) => Math.min(max, Math.max(min, round((v * scale) / step) * step));
  const w = fit(width);
  const h = fit(height);
  return { value: format(w, h), width: w, height: h };
}
