import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { anyAddress, outboundFetch, outboundOf, type Outbound } from '../security/ssrf.js';
import type { LocalImageFailures, ProviderSettings } from '../config.js';
import { LocalProvider } from './local/index.js';
import { OpenAICompatibleProvider } from './openai-compatible.js';
import { PRESET_PROVIDERS } from './labels.js';
import { chatShape, resolvePreset, type ChatShape, type PresetLabel, type ResolvedPreset } from './presets.js';
import { budgetOf, memoryPacer, type Pacer, type PacerCaller } from './pacer.js';
import { Semaphore, type AttemptObserver, type ReliabilityOptions } from './reliability.js';
import { connectionOptions, type ConnectionOptions, type Provider, type ProviderCredentials, type StructuredMode } from './types.js';

/**
 * Whose budget a call spends: the provider's limits are per account, and two connections (two
 * workspaces, say) holding the same key at the same endpoint are one account, paced as one. A
 * digest, so the key itself is never a Redis key or a log field.
 */
export function paceAccount(baseUrl: string, apiKey: string): string {
  return createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex').slice(0, 32);
}

/** The pacing of a connection's account now (pacer.ts PacerState), for a progress view. */
export function paceOf(factory: ProviderFactory, creds: ProviderCredentials) {
  return creds.provider === 'local' ? Promise.resolve(null) : factory.pacer.state(paceAccount(factory.effective(creds).baseUrl, creds.apiKey));
}

/**
 * How long a call is taken to last when a connection's slots are sized from its rpm budget
 * (Little's law: calls in flight = rate × time in flight); image and long text calls take 10–30 s.
 */
const CALL_SECONDS = 20;

/** ctx.providers: the one way code gets a Provider, from a connection's credentials. */
export interface ProviderFactory {
  /**
   * `maxRetries` overrides the configured retries (a connection test answers at once); `caller`
   * says who spends the connection's budget: absent, an interactive call of party `interactive`;
   * batch tasks pass `{ party: 'batch:<id>', bulk: true }`, other work `{ party: 'ws:<id>', bulk: false }`.
   */
  forCredentials(creds: ProviderCredentials, overrides?: { maxRetries?: number; caller?: { party: string; bulk: boolean } }): Provider;
  /** The effective models and limits of a connection (its own values over the preset's). */
  effective(creds: Pick<ProviderCredentials, 'provider' | 'baseUrl' | 'textModel' | 'visionModel' | 'imageModel' | 'imageSize' | 'concurrency' | 'rpm' | 'tpm' | 'options'>): EffectiveConnection;
  /** Paces every connection's calls to its rpm/tpm, per provider account (paceAccount). */
  readonly pacer: Pacer;
}

/** Who calls when forCredentials is told nobody. */
export const INTERACTIVE_CALLER: PacerCaller = { party: 'interactive', bulk: false };

export interface EffectiveConnection {
  baseUrl: string;
  textModel: string;
  visionModel: string;
  imageModel: string;
  imageSize: string | null;
  concurrency: number;
  /** Requests / tokens per minute the connection is paced to; 0 = not paced (the offline provider). */
  rpm: number;
  tpm: number;
  options: ConnectionOptions;
}

interface LabelSettings {
  preset: ResolvedPreset;
  options: ReliabilityOptions;
  pollIntervalMs: number;
  /** PROVIDER_<LABEL>_CONCURRENCY / PROVIDER_CONCURRENCY; 0: the preset's. */
  concurrency: number;
  /** PROVIDER_<LABEL>_RPM / _TPM (or PROVIDER_RPM / _TPM); 0: the preset's. */
  rpm: number;
  tpm: number;
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
    /** Shared through Redis where the deployment has it (runtime.ts); else this process's own. */
    pacer?: Pacer;
  } = {},
): ProviderFactory {
  const settings = new Map<PresetLabel, LabelSettings>(
    PRESET_PROVIDERS.map((label) => {
      const { overrides, limits, pollIntervalMs, concurrency, rpm, tpm } = providerSettings[label];
      return [label, { preset: resolvePreset(label, overrides), options: { ...limits, observe: opts.observeAttempt }, pollIntervalMs, concurrency, rpm, tpm }];
    }),
  );
  const pacer = opts.pacer ?? memoryPacer(log);
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
      return { baseUrl: '', textModel: 'local-offline-1', visionModel: 'local-offline-1', imageModel: 'local-offline-1', imageSize: null, concurrency: 8, rpm: 0, tpm: 0, options: connectionOptions(creds.options) };
    }
    const { preset, concurrency, rpm, tpm } = settings.get(creds.provider)!;
    const budget = creds.rpm || rpm || preset.rpm;
    const pick = (own: string | null | undefined, fallback: string) => (own === null || own === undefined ? fallback : own.trim());
    return {
      baseUrl: (creds.baseUrl?.trim() || preset.baseUrl).replace(/\/+$/, ''),
      textModel: pick(creds.textModel, preset.textModel),
      visionModel: pick(creds.visionModel, preset.visionModel),
      imageModel: preset.image ? pick(creds.imageModel, preset.imageModel) : '',
      imageSize: creds.imageSize?.trim() || preset.imageSizeOverride || null,
      concurrency: creds.concurrency || concurrency || (preset.concurrencyFromBudget ? Math.max(preset.concurrency, Math.ceil((budget / 60) * CALL_SECONDS)) : preset.concurrency),
      rpm: budget,
      tpm: creds.tpm || tpm || preset.tpm,
      options: connectionOptions(creds.options),
    };
  };

  return {
    effective,
    pacer,
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
          // The budget as the connection says now: a changed rpm/tpm applies from the next provider built.
          pace: { pacer, account: paceAccount(conn.baseUrl, creds.apiKey), budget: budgetOf(conn.rpm, conn.tpm), caller: overrides.caller ?? INTERACTIVE_CALLER },
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
