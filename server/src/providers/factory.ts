import type { Logger } from 'pino';
import { anyAddress, outboundFetch, outboundOf, type Outbound } from '../security/ssrf.js';
import type { LocalImageFailures, ProviderSettings } from '../config.js';
import { LocalProvider } from './local/index.js';
import { OpenAICompatibleProvider } from './openai-compatible.js';
import { PRESET_PROVIDERS } from './labels.js';
import { chatShape, resolvePreset, type ChatShape, type PresetLabel, type ResolvedPreset } from './presets.js';
import { Semaphore, type AttemptObserver, type ReliabilityOptions } from './reliability.js';
import { connectionOptions, type ConnectionOptions, type Provider, type ProviderCredentials, type StructuredMode } from './types.js';

/** ctx.providers: the one way code gets a Provider, from a connection's credentials. */
export interface ProviderFactory {
  /** `maxRetries` overrides the configured retries (a connection test answers at once). */
  forCredentials(creds: ProviderCredentials, overrides?: { maxRetries?: number }): Provider;
  /** The effective models and limits of a connection (its own values over the preset's). */
  effective(creds: Pick<ProviderCredentials, 'provider' | 'baseUrl' | 'textModel' | 'visionModel' | 'imageModel' | 'imageSize' | 'concurrency' | 'options'>): EffectiveConnection;
}

export interface EffectiveConnection {
  baseUrl: string;
  textModel: string;
  visionModel: string;
  imageModel: string;
  imageSize: string | null;
  concurrency: number;
  options: ConnectionOptions;
}

interface LabelSettings {
  preset: ResolvedPreset;
  options: ReliabilityOptions;
  pollIntervalMs: number;
  /** PROVIDER_<LABEL>_CONCURRENCY / PROVIDER_CONCURRENCY; 0: the preset's. */
  concurrency: number;
}

/**
 * Builds providers from the presets and the deployment's overrides and limits per preset
 * (config.ts `providers`: PROVIDER_<LABEL>_* and PROVIDER_*). Concurrency is per connection and
 * process: a key's account limits are its own, not shared with other tenants of the same
 * provider. `rememberStructuredMode` persists a connection's structured-output downgrade.
 */
export function createProviderFactory(
  providerSettings: ProviderSettings,
  log?: Logger,
  opts: {
    /** The deployment's resolver and address policy (config.ts); without it, the system's resolver and public addresses only. */
    outbound?: Outbound;
    imageFailures?: LocalImageFailures;
    observeAttempt?: AttemptObserver;
    rememberStructuredMode?: (keyId: number, mode: StructuredMode) => void;
  } = {},
): ProviderFactory {
  const settings = new Map<PresetLabel, LabelSettings>(
    PRESET_PROVIDERS.map((label) => {
      const { overrides, limits, pollIntervalMs, concurrency } = providerSettings[label];
      return [label, { preset: resolvePreset(label, overrides), options: { ...limits, observe: opts.observeAttempt }, pollIntervalMs, concurrency }];
    }),
  );
  // The deployment's own endpoints (presets, PROVIDER_<LABEL>_BASE_URL) are trusted; a base URL a
  // user typed into a connection must lead to public addresses unless the deployment allows private ones.
  // Both go through security/ssrf.ts: connections checked where they connect, redirects refused.
  const { resolve, userEndpoints: userPolicy } = opts.outbound ?? outboundOf({ allowPrivate: false, privateHosts: [] });
  // ALLOW_PRIVATE_PROVIDER_URLS=1 makes every typed endpoint as trusted as the deployment's own.
  const allowPrivate = userPolicy === anyAddress;
  const trustedFetch = outboundFetch(anyAddress, { resolve });
  const userFetch = outboundFetch(userPolicy, { resolve });
  const offline = new LocalProvider({ imageFailures: opts.imageFailures });
  // One semaphore per connection and limit; a changed limit gets a fresh one.
  const semaphores = new Map<string, Semaphore>();
  // Downgrades seen in this process, ahead of the stored value the next read brings.
  // Keyed by what the mode depends on, so an edited endpoint or model starts from the preset's again.
  const modes = new Map<string, StructuredMode>();
  // Adaptations of `auto` options to what the endpoint refused, kept for this process like the modes.
  const adapted = new Map<string, Partial<ChatShape>>();

  const effective: ProviderFactory['effective'] = (creds) => {
    if (creds.provider === 'local') {
      return { baseUrl: '', textModel: 'local-offline-1', visionModel: 'local-offline-1', imageModel: 'local-offline-1', imageSize: null, concurrency: 8, options: connectionOptions(creds.options) };
    }
    const { preset, concurrency } = settings.get(creds.provider)!;
    const pick = (own: string | null | undefined, fallback: string) => (own === null || own === undefined ? fallback : own.trim());
    return {
      baseUrl: (creds.baseUrl?.trim() || preset.baseUrl).replace(/\/+$/, ''),
      textModel: pick(creds.textModel, preset.textModel),
      visionModel: pick(creds.visionModel, preset.visionModel),
      imageModel: preset.image ? pick(creds.imageModel, preset.imageModel) : '',
      imageSize: creds.imageSize?.trim() || preset.imageSizeOverride || null,
      concurrency: creds.concurrency || concurrency || preset.concurrency,
      options: connectionOptions(creds.options),
    };
  };

  return {
    effective,
    forCredentials(creds, overrides = {}) {
      if (creds.provider === 'local') return offline;
      const { preset, pollIntervalMs, options: configured } = settings.get(creds.provider)!;
      const options = overrides.maxRetries === undefined ? configured : { ...configured, maxRetries: overrides.maxRetries };
      const conn = effective(creds);
      const slotKey = `${creds.keyId}:${conn.concurrency}`;
      let semaphore = semaphores.get(slotKey);
      if (!semaphore) semaphores.set(slotKey, (semaphore = new Semaphore(conn.concurrency)));
      const stored = creds.structuredMode ?? preset.structured;
      const modeKey = `${creds.keyId}:${conn.baseUrl}:${conn.textModel}:${conn.visionModel}`;
      const shape = chatShape(preset, conn.options);
      const shapeKey = `${modeKey}:${conn.options.token_param}:${conn.options.temperature}`;
      const trusted = !creds.baseUrl?.trim() || allowPrivate;
      return new OpenAICompatibleProvider(
        preset,
        { baseUrl: conn.baseUrl, text: conn.textModel, vision: conn.visionModel, image: conn.imageModel, imageSize: conn.imageSize ?? undefined },
        {
          apiKey: creds.apiKey,
          options,
          semaphore,
          fetch: trusted ? trustedFetch : userFetch,
          reach: { policy: trusted ? anyAddress : userPolicy, resolve },
          trustedEndpoint: trusted,
          pollIntervalMs,
          log,
          chat: {
            current: () => ({ ...shape, ...adapted.get(shapeKey) }),
            adapt: (change) => adapted.set(shapeKey, { ...adapted.get(shapeKey), ...change }),
          },
          structured: {
            current: () => modes.get(modeKey) ?? stored,
            downgrade: (to) => {
              modes.set(modeKey, to);
              opts.rememberStructuredMode?.(creds.keyId, to);
            },
          },
        },
      );
    },
  };
}
