import type { PRESET_PROVIDERS } from './labels.js';

export type PresetLabel = (typeof PRESET_PROVIDERS)[number];

/**
 * How a provider wants the image size written: `WxH` (OpenAI, Zhipu, Doubao), `W*H` (DashScope),
 * or a resolution class like `2K` (Seedream 4) where the aspect ratio comes from the prompt.
 */
export type SizeSyntax = 'WxH' | 'W*H' | '2K';

export interface ImageSizeRule {
  syntax: SizeSyntax;
  /** Sizes the model accepts; absent means any size inside min/max in steps of `multiple`. */
  allowed?: Array<[number, number]>;
  min?: number;
  max?: number;
  multiple?: number;
}

export interface Preset {
  label: PresetLabel;
  baseUrl: string;
  textModel: string;
  /** Absent: the provider has no vision model; vision calls fail with an actionable message. */
  visionModel?: string;
  /** Absent: the provider has no image model. */
  imageModel?: string;
  features: {
    /** `response_format: json_schema` with `strict` (otherwise JSON mode + schema in the prompt). */
    jsonSchema: boolean;
    /** `response_format: json_object` is accepted (otherwise the prompt alone asks for JSON). */
    jsonMode: boolean;
    streaming: boolean;
    /** Which endpoint images come from: the OpenAI-style `/images/generations`, or DashScope's async API. */
    imageApi: 'openai' | 'dashscope';
    imageSize: ImageSizeRule;
    /** Name of the size field in the image request (`size`, or SiliconFlow's `image_size`). */
    imageSizeField: 'size' | 'image_size';
    /** Ask for base64 with `response_format: b64_json`; false where the model refuses the field. */
    requestB64: boolean;
    /** Field that takes a reference image as a data URL (Seedream 4); absent: prompt only. */
    referenceImageField?: 'image';
    /** Extra fields that turn the provider's visible watermark off. */
    noWatermark: Record<string, unknown>;
  };
}

const openaiSizes: Array<[number, number]> = [
  [1024, 1024],
  [1024, 1536],
  [1536, 1024],
];

/**
 * Built-in presets (November 2026). Every value can be overridden per deployment through
 * PROVIDER_<LABEL>_BASE_URL / _TEXT_MODEL / _VISION_MODEL / _IMAGE_MODEL, so a renamed model
 * needs no release.
 */
export const PRESETS: Record<PresetLabel, Preset> = {
  openai: {
    label: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    textModel: 'gpt-4.1-mini',
    visionModel: 'gpt-4.1-mini',
    imageModel: 'gpt-image-1',
    features: {
      jsonSchema: true,
      jsonMode: true,
      streaming: true,
      imageApi: 'openai',
      // No 3:4 size: 1024x1536 (2:3) is generated and cropped.
      imageSize: { syntax: 'WxH', allowed: openaiSizes },
      imageSizeField: 'size',
      // gpt-image-1 always answers base64 and rejects the response_format field.
      requestB64: false,
      noWatermark: {},
    },
  },
  deepseek: {
    label: 'deepseek',
    baseUrl: 'https://api.deepseek.com/v1',
    textModel: 'deepseek-chat',
    features: {
      jsonSchema: false,
      jsonMode: true,
      streaming: true,
      imageApi: 'openai',
      imageSize: { syntax: 'WxH', min: 512, max: 2048, multiple: 8 },
      imageSizeField: 'size',
      requestB64: true,
      noWatermark: {},
    },
  },
  qwen: {
    label: 'qwen',
    baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    textModel: 'qwen-plus',
    visionModel: 'qwen-vl-plus',
    imageModel: 'wanx2.1-t2i-turbo',
    features: {
      jsonSchema: false,
      jsonMode: true,
      streaming: true,
      imageApi: 'dashscope',
      imageSize: { syntax: 'W*H', min: 512, max: 1440, multiple: 8 },
      imageSizeField: 'size',
      requestB64: false,
      noWatermark: { watermark: false },
    },
  },
  doubao: {
    label: 'doubao',
    baseUrl: 'https://ark.cn-beijing.volces.com/api/v3',
    textModel: 'doubao-seed-1-6-250615',
    visionModel: 'doubao-seed-1-6-250615',
    imageModel: 'doubao-seedream-4-0-250828',
    features: {
      jsonSchema: false,
      jsonMode: true,
      streaming: true,
      imageApi: 'openai',
      imageSize: { syntax: 'WxH', min: 720, max: 4096, multiple: 8 },
      imageSizeField: 'size',
      requestB64: true,
      referenceImageField: 'image',
      noWatermark: { watermark: false },
    },
  },
  zhipu: {
    label: 'zhipu',
    baseUrl: 'https://open.bigmodel.cn/api/paas/v4',
    textModel: 'glm-4-flash',
    visionModel: 'glm-4v-flash',
    imageModel: 'cogview-4',
    features: {
      jsonSchema: false,
      jsonMode: true,
      streaming: true,
      imageApi: 'openai',
      imageSize: { syntax: 'WxH', min: 512, max: 2048, multiple: 16 },
      imageSizeField: 'size',
      requestB64: false,
      noWatermark: { watermark_enabled: false },
    },
  },
  moonshot: {
    label: 'moonshot',
    baseUrl: 'https://api.moonshot.cn/v1',
    textModel: 'moonshot-v1-32k',
    visionModel: 'moonshot-v1-32k-vision-preview',
    features: {
      jsonSchema: false,
      jsonMode: true,
      streaming: true,
      imageApi: 'openai',
      imageSize: { syntax: 'WxH', min: 512, max: 2048, multiple: 8 },
      imageSizeField: 'size',
      requestB64: true,
      noWatermark: {},
    },
  },
  siliconflow: {
    label: 'siliconflow',
    baseUrl: 'https://api.siliconflow.cn/v1',
    textModel: 'Qwen/Qwen2.5-72B-Instruct',
    visionModel: 'Qwen/Qwen2.5-VL-72B-Instruct',
    imageModel: 'Kwai-Kolors/Kolors',
    features: {
      jsonSchema: false,
      jsonMode: true,
      streaming: true,
      imageApi: 'openai',
      imageSize: {
        syntax: 'WxH',
        allowed: [
          [1024, 1024],
          [960, 1280],
          [768, 1024],
          [720, 1440],
          [720, 1280],
        ],
      },
      imageSizeField: 'image_size',
      requestB64: false,
      noWatermark: {},
    },
  },
};

/** `doubao` → `DOUBAO`, `my-proxy` → `MY_PROXY`: the env prefix of a label. */
export function envPrefix(label: string): string {
  return `PROVIDER_${label.toUpperCase().replace(/-/g, '_')}_`;
}

/**
 * The preset with the deployment's overrides applied (contract-decisions §1). An override of
 * the image size (`_IMAGE_SIZE`, e.g. `2K` or `1536x2048`) is sent verbatim.
 */
export function resolvePreset(label: PresetLabel, env: NodeJS.ProcessEnv): Preset & { imageSizeOverride?: string } {
  const base = PRESETS[label];
  const prefix = envPrefix(label);
  const pick = (name: string) => {
    const value = env[prefix + name]?.trim();
    return value ? value : undefined;
  };
  return {
    ...base,
    baseUrl: (pick('BASE_URL') ?? base.baseUrl).replace(/\/+$/, ''),
    textModel: pick('TEXT_MODEL') ?? base.textModel,
    visionModel: pick('VISION_MODEL') ?? base.visionModel,
    imageModel: pick('IMAGE_MODEL') ?? base.imageModel,
    imageSizeOverride: pick('IMAGE_SIZE'),
  };
}

/**
 * The size to request for a wanted output size: the wanted one where the model takes any
 * size, else the allowed size closest in aspect ratio (ties: the larger), which the caller then
 * crops. Returns the request string and the dimensions asked for.
 */
export function requestSize(rule: ImageSizeRule, width: number, height: number): { value: string; width: number; height: number } {
  const format = (w: number, h: number) => (rule.syntax === 'W*H' ? `${w}*${h}` : `${w}x${h}`);
  if (rule.syntax === '2K') return { value: '2K', width, height };
  if (rule.allowed) {
    const want = width / height;
    const [w, h] = [...rule.allowed].sort((a, b) => {
      const da = Math.abs(Math.log(a[0] / a[1] / want));
      const db = Math.abs(Math.log(b[0] / b[1] / want));
      return da - db || b[0] * b[1] - a[0] * a[1];
    })[0]!;
    return { value: format(w, h), width: w, height: h };
  }
  // Scale into [min, max] keeping the ratio, then round to the model's step.
  const min = rule.min ?? 256;
  const max = rule.max ?? 4096;
  const step = rule.multiple ?? 1;
  let scale = 1;
  if (Math.max(width, height) > max) scale = max / Math.max(width, height);
  if (Math.min(width, height) * scale < min) scale = min / Math.min(width, height);
  const round = (v: number) => Math.min(max, Math.max(min, Math.round((v * scale) / step) * step));
  const w = round(width);
  const h = round(height);
  return { value: format(w, h), width: w, height: h };
}
