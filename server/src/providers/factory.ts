import type { Logger } from 'pino';
import type { LocalImageFailures } from '../config.js';
import { LocalProvider } from './local/index.js';
import { OpenAICompatibleProvider } from './openai-compatible.js';
import { PRESET_PROVIDERS } from './labels.js';
import { envPrefix, resolvePreset } from './presets.js';
import { reliabilityFromEnv, Semaphore, type AttemptObserver } from './reliability.js';
import type { Provider, ProviderCredentials } from './types.js';

/** ctx.providers: the one way code gets a Provider, from the credentials of a key. */
export interface ProviderFactory {
  forCredentials(creds: ProviderCredentials): Provider;
}

/**
 * Builds providers from the environment's presets and limits (PROVIDER_<LABEL>_* overrides,
 * PROVIDER_CONCURRENCY / _TIMEOUT_MS / _MAX_RETRIES / _RETRY_BASE_MS / _RETRY_MAX_WAIT_MS /
 * _POLL_INTERVAL_MS, each also per label). The concurrency limit is per provider label and
 * process, shared by every key and task, because rate limits are per account and endpoint.
 */
export function createProviderFactory(
  env: NodeJS.ProcessEnv,
  log?: Logger,
  opts: { imageFailures?: LocalImageFailures; observeAttempt?: AttemptObserver } = {},
): ProviderFactory {
  // Read every label's settings now, so a bad value stops the process at start, not a task later.
  const settings = new Map(
    PRESET_PROVIDERS.map((label) => {
      const prefix = envPrefix(label);
      const { concurrency, ...options } = reliabilityFromEnv(env, prefix);
      const pollIntervalMs = Number(env[`${prefix}POLL_INTERVAL_MS`] || env.PROVIDER_POLL_INTERVAL_MS || 2000);
      if (!Number.isFinite(pollIntervalMs) || pollIntervalMs <= 0) throw new Error(`${prefix}POLL_INTERVAL_MS / PROVIDER_POLL_INTERVAL_MS must be a positive number`);
      return [label, { preset: resolvePreset(label, env), options: { ...options, observe: opts.observeAttempt }, pollIntervalMs, semaphore: new Semaphore(concurrency) }] as const;
    }),
  );
  const offline = new LocalProvider({ imageFailures: opts.imageFailures });
  return {
    forCredentials(creds) {
      if (creds.provider === 'local') return offline;
      const { preset, options, pollIntervalMs, semaphore } = settings.get(creds.provider)!;
      return new OpenAICompatibleProvider(preset, { apiKey: creds.apiKey, options, semaphore, pollIntervalMs, log });
    },
  };
}
