import type { JsonSchemaSpec } from '../content/schemas.js';
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
  maxTokens?: number;
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
  referenceImage?: ImageInput;
  intent: ProviderIntent;
  signal?: AbortSignal;
  /**
   * Runs the provider's own work (the request with its retries, or local's drawing) inside a
   * slot of the caller's, such as a task's image pool; the normalisation of the reply runs
   * after the slot is given back, so the next call does not wait for this one's CPU work.
   */
  slot?: <T>(work: () => Promise<T>) => Promise<T>;
}

export interface ImageResult {
  /** Normalised: cropped/resized to the requested 3:4 size, re-encoded, all metadata stripped. */
  data: Buffer;
  mime: 'image/png' | 'image/jpeg' | 'image/webp';
  width: number;
  height: number;
  model: string;
}

export type ProviderErrorKind = 'auth' | 'rate_limit' | 'bad_request' | 'provider_down' | 'timeout' | 'invalid_output';

/** A provider failure after retries, with a message an operator can act on (never the key). */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly provider: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface Provider {
  readonly label: ProviderLabel;
  generateText(request: TextRequest): Promise<TextResult>;
  analyzeImage(request: VisionRequest): Promise<TextResult>;
  generateImage(request: ImageRequest): Promise<ImageResult>;
}

/** A key as the provider layer receives it: decrypted by the api-keys module, never logged. */
export interface ProviderCredentials {
  keyId: number;
  provider: ProviderLabel;
  apiKey: string;
}
