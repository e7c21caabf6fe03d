import type { JsonSchemaSpec } from '../content/schemas.js';
import type { AigcLabel } from '../images/aigc.js';
import type { ProviderLabel } from './labels.js';

/**
 * What a call is for, with the structured input behind its prompt. Remote models read the
 * prompt; the offline `local` provider reads the intent, so it can answer deterministically
 * with content that fits the request's schema.
 */
export type ProviderIntent =
  | { kind: 'notes'; input: unknown }
  | { kind: 'score'; input: unknown }
  | { kind: 'benchmark-analysis'; input: unknown }
  | { kind: 'fission'; input: unknown }
  | { kind: 'image-check'; input: unknown }
  | { kind: 'free'; input?: unknown };

export type { JsonSchemaSpec };

export interface TextRequest {
  system: string;
  prompt: string;
  intent: ProviderIntent;
  /** Structured reply: json_schema where the preset supports it, else JSON mode + schema in the prompt. */
  schema?: JsonSchemaSpec;
  temperature?: number;
  /** Output budget (max_tokens, or max_completion_tokens where the provider requires it), capped by the preset. */
  maxTokens?: number;
  /** A reply cut by its budget is returned as it is instead of failing as `truncated` (the key test). */
  acceptTruncated?: boolean;
  /** Called with each streamed token chunk where the provider streams. */
  onDelta?: (delta: string) => void;
  signal?: AbortSignal;
}

export interface TextResult {
  text: string;
  /** The parsed, schema-validated reply when `schema` was given. */
  json?: unknown;
  model: string;
}

export interface ImageInput {
  data: Buffer;
  mime: string;
}

export interface VisionRequest extends Omit<TextRequest, 'onDelta'> {
  images: ImageInput[];
}

export interface ImageRequest {
  prompt: string;
  /** Output size after normalisation; 1080×1440 (3:4) by default. */
  width?: number;
  height?: number;
  /** Product photos to stay faithful to, the role's best first; the provider sends as many as its model takes. */
  referenceImages?: ImageInput[];
  /** What the picture must not show; sent only to the providers whose API documents a negative prompt. */
  negativePrompt?: string;
  intent: ProviderIntent;
  signal?: AbortSignal;
  /**
   * Runs the provider's own work (the request with its retries, or local's drawing) inside a
   * slot of the caller's, such as a task's image pool; the normalisation of the reply runs
   * after the slot is given back, so the next call does not wait for this one's CPU work.
   */
  slot?: <T>(work: () => Promise<T>) => Promise<T>;
  /** The implicit AI label the normalised image carries, with the provider's own XMP kept (contract-decisions §12). */
  aigc?: AigcLabel;
}

export interface ImageResult {
  /**
   * Normalised: cropped/resized to the requested 3:4 size, re-encoded, all metadata stripped
   * but the provider's XMP and the `aigc` label, when the request has one.
   * Handed to the caller, which frees it once stored (releaseImage): never a buffer the provider
   * keeps or returns again.
   */
  data: Buffer;
  mime: 'image/png' | 'image/jpeg' | 'image/webp';
  width: number;
  height: number;
  model: string;
}

/**
 * Why a provider call failed (contract-decisions §7). The first four are never retried: a retry
 * cannot fix a refused key, an empty balance, a blocked prompt or a model the account lacks.
 */
export const PROVIDER_ERROR_KINDS = [
  'auth',
  'insufficient_balance',
  'content_blocked',
  'model_not_found',
  'rate_limited',
  'unsupported',
  'timeout',
  'unavailable',
  'bad_output',
  'truncated',
] as const;
export type ProviderErrorKind = (typeof PROVIDER_ERROR_KINDS)[number];

/**
 * Situations one kind covers where the fix differs: a region refusal is `unsupported` but needs a
 * relay, a request over the context window is `unsupported` but needs a larger model, a budget
 * spent on thinking is `truncated` but needs thinking off.
 */
export type ProviderSituation = 'region' | 'context' | 'thinking';

/** The params a stored failure carries for a provider failure: its kind (§7) and situation; none for other errors. */
export function providerParams(err: unknown): { error_kind?: ProviderErrorKind; situation?: ProviderSituation } {
  if (!(err instanceof ProviderError)) return {};
  return { error_kind: err.kind, ...(err.situation ? { situation: err.situation } : {}) };
}

/** Kinds a retry cannot fix. */
export const FINAL_ERROR_KINDS: ReadonlySet<ProviderErrorKind> = new Set(['auth', 'insufficient_balance', 'content_blocked', 'model_not_found']);

/** A provider failure after retries, with a message an operator can act on (never the key). */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly provider: string,
    readonly status?: number,
    /** The request was refused for its `response_format`: the caller may ask again one mode lower. */
    readonly refusedResponseFormat = false,
    /** The request was refused for this parameter (errors.ts RefusedParam). */
    readonly refusedParam?: 'max_tokens' | 'max_completion_tokens' | 'temperature',
    /** What the kind alone would not tell, for the console's wording (a stored failure's `situation` param). */
    readonly situation?: ProviderSituation,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface Provider {
  readonly label: ProviderLabel;
  /** The models this provider calls for each capability; empty: it lacks the capability. */
  readonly models: { text: string; vision: string; image: string };
  /** How many product photos generateImage sends to the model; 0: none (prompts may mention a reference only otherwise). */
  readonly referenceImages: number;
  generateText(request: TextRequest): Promise<TextResult>;
  analyzeImage(request: VisionRequest): Promise<TextResult>;
  generateImage(request: ImageRequest): Promise<ImageResult>;
  /** The model ids the provider's own list (`GET {base_url}/models`) offers; null where the preset documents none. */
  listModels(signal?: AbortSignal): Promise<string[] | null>;
}

/**
 * A connection as the provider layer receives it: the key decrypted by the api-keys module
 * (never logged), with the connection's own endpoint and models; absent fields take the
 * preset's, `""` means the connection lacks that capability.
 */
export interface ProviderCredentials {
  keyId: number;
  provider: ProviderLabel;
  apiKey: string;
  baseUrl?: string | null;
  textModel?: string | null;
  visionModel?: string | null;
  imageModel?: string | null;
  imageSize?: string | null;
  concurrency?: number | null;
  /** Requests and tokens per minute this connection may spend; null/absent = the preset's (or the deployment's PROVIDER_<LABEL>_RPM / _TPM). */
  rpm?: number | null;
  tpm?: number | null;
  /** The structured-output mode this connection was downgraded to after a refusal, if any. */
  structuredMode?: StructuredMode | null;
  /** Stored options; absent or unknown ones are DEFAULT_CONNECTION_OPTIONS'. */
  options?: StoredOptions | null;
}

/**
 * How a connection's chat calls are shaped where providers differ and change (contract-decisions
 * §7): `thinking` off by default (reasoning is spent from the output budget), the output budget's
 * parameter and whether a temperature is sent; `auto` is the preset's choice from the catalogue.
 */
export const THINKING_OPTIONS = ['off', 'on', 'provider_default'] as const;
export const TOKEN_PARAM_OPTIONS = ['auto', 'max_tokens', 'max_completion_tokens'] as const;
export const TEMPERATURE_OPTIONS = ['auto', 'omit'] as const;
export interface ConnectionOptions {
  thinking: (typeof THINKING_OPTIONS)[number];
  token_param: (typeof TOKEN_PARAM_OPTIONS)[number];
  temperature: (typeof TEMPERATURE_OPTIONS)[number];
}
export const DEFAULT_CONNECTION_OPTIONS: ConnectionOptions = { thinking: 'off', token_param: 'auto', temperature: 'auto' };

/** The stored options with the defaults filled in; values no longer known fall back to the default. */
export type StoredOptions = { [K in keyof ConnectionOptions]?: string };

export function connectionOptions(stored: StoredOptions | null | undefined): ConnectionOptions {
  const pick = <K extends keyof ConnectionOptions>(key: K, allowed: readonly string[]) =>
    (allowed.includes(String(stored?.[key])) ? stored![key] : DEFAULT_CONNECTION_OPTIONS[key]) as ConnectionOptions[K];
  return { thinking: pick('thinking', THINKING_OPTIONS), token_param: pick('token_param', TOKEN_PARAM_OPTIONS), temperature: pick('temperature', TEMPERATURE_OPTIONS) };
}

/** How a structured reply is asked for, strongest first. */
export const STRUCTURED_MODES = ['json_schema', 'json_object', 'prompt'] as const;
export type StructuredMode = (typeof STRUCTURED_MODES)[number];
