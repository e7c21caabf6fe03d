import { randomBytes } from 'node:crypto';
import { PRESET_PROVIDERS } from './providers/labels.js';
import { envPrefix, type PresetLabel, type PresetOverrides } from './providers/presets.js';
import type { ReliabilityOptions } from './providers/reliability.js';
import { outboundOf, parsePrivateHosts, type Outbound } from './security/ssrf.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import type { S3StorageOptions } from './storage/s3.js';

export type ProcessRole = 'all' | 'api' | 'worker';

/**
 * LOCAL_PROVIDER_IMAGE_FAILURES, a fault switch for tests and demos: the first `count` image
 * calls the offline `local` provider gets in this process fail with a provider error; with an
 * `origin`, only the images of tasks or of fissions count (and fail).
 */
export interface LocalImageFailures {
  count: number;
  origin: 'task' | 'fission' | undefined;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  jwtSecret: string;
  secretKey: string;
  production: boolean;
  admin: { username: string; password: string | undefined; email: string };
  demoData: boolean;
  corsOrigins: string[];
  /** `off`: no /api/docs and no /api/v1/openapi.json (both describe the whole API to anyone). */
  apiDocs: 'public' | 'off';
  bodyLimitBytes: number;
  rateLimitPerMinute: number;
  /** Interval of the comment lines that keep an idle event stream open through proxies. */
  sseHeartbeatMs: number;
  /** Password hashing of logins: running at once, waiting, and held by one client address (security/work-gate.ts). */
  loginHashing: { slots: number; waiting: number; perClient: number };
  /**
   * PASSWORD_HASH_COST: log2 of scrypt's N for new password hashes (security/passwords.ts), 15 by
   * default. The test servers lower it: a hash at 15 takes 180 ms of a core, and the suite makes
   * thousands of accounts and logins that test anything but hashing.
   */
  passwordHashCost: number;
  /** Memory for serialized task list pages per process (0 turns the cache off). */
  taskListCacheBytes: number;
  logLevel: string;
  localImageFailures: LocalImageFailures;
  /** The console's public address (PUBLIC_URL, no trailing slash): links in notifications; none without it. */
  publicUrl: string | undefined;
  /** ALLOW_PRIVATE_PROVIDER_URLS=1: user-given URLs (provider endpoints, webhooks) may point at private addresses. */
  allowPrivateUrls: boolean;
  /**
   * Outbound connections (security/ssrf.ts): the resolver (the system's; tests answer names
   * themselves) and where URLs users type (provider endpoints, webhooks) may connect, from
   * ALLOW_PRIVATE_PROVIDER_URLS and ALLOW_PRIVATE_PROVIDER_HOSTS.
   */
  outbound: Outbound;
  webhooks: WebhookSettings;
  /** How often a worker moves posts whose time has come to `due`, and unpublished ones a day later to `missed` (POST_SWEEP_MS, 5 s; contract-decisions §11). */
  postSweepMs: number;
  /** How often worker processes advance running batches and place their planned posts (BATCH_SWEEP_MS). */
  batchSweepMs: number;
  /** Where the built web client lives; absent directory means the API runs without it. */
  webDistDir: string;
  /** TRUST_PROXY=1: behind a reverse proxy, the client address comes from X-Forwarded-For. */
  trustProxy: boolean;
  /** METRICS_TOKEN: when set, GET /metrics needs it as a bearer token. */
  metricsToken: string | undefined;
  /** STORAGE: files on local disk under DATA_DIR, or in an S3-compatible bucket (S3_*). */
  storage: { kind: 'local' } | { kind: 's3'; s3: S3StorageOptions };
  jobs: JobOptions;
  fileSweep: FileSweepOptions;
  generation: GenerationOptions;
  /** Each provider preset's overrides and call limits (PROVIDER_<LABEL>_…, else PROVIDER_…). */
  providers: ProviderSettings;
  /** Where JWT_SECRET and SECRET_KEY came from: the environment, or generated into DATA_DIR (backups carry the latter). */
  secretSources: Record<'JWT_SECRET' | 'SECRET_KEY', 'environment' | 'generated'>;
}

/** One provider preset's settings from the environment. */
export interface ProviderLabelSettings {
  overrides: PresetOverrides;
  limits: Omit<ReliabilityOptions, 'observe'>;
  /** Calls of one connection in flight per process; 0: the preset's (or the connection's) own. */
  concurrency: number;
  /** Requests / tokens per minute of a connection that sets none (PROVIDER_<LABEL>_RPM / _TPM); 0: the preset's. */
  rpm: number;
  tpm: number;
  /** How often an asynchronous image task is polled (DashScope). */
  pollIntervalMs: number;
}

export type ProviderSettings = Record<PresetLabel, ProviderLabelSettings>;

export interface JobOptions {
  /** Jobs one worker process runs at the same time (JOB_CONCURRENCY). */
  concurrency: number;
  /** Jobs of the `notify` lane (webhook deliveries) one worker process runs at the same time (JOB_NOTIFY_CONCURRENCY). */
  notifyConcurrency: number;
  /** Jobs of the `bulk` lane (the tasks and fissions of batches) one worker process runs at the same time (JOB_BULK_CONCURRENCY). */
  bulkConcurrency: number;
  /** Tasks of one batch queued or generating at once (BATCH_PARALLEL_TASKS), so batches that share the lane take turns. */
  batchParallelTasks: number;
  /** Attempts per job before it fails for good (JOB_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** Delay before the first retry; doubles with each further attempt (JOB_BACKOFF_MS). */
  backoffMs: number;
  /** How long a running job is held without a heartbeat before another worker may take it (JOB_LEASE_MS). */
  leaseMs: number;
  /** How often an idle in-process worker looks for jobs other processes enqueued (JOB_POLL_MS). */
  pollMs: number;
  /** How often worker processes look for stale work (JOB_SWEEP_MS). */
  sweepMs: number;
  /** Times stale work is resumed before it is failed (JOB_MAX_RESUMES). */
  maxResumes: number;
  /** How long shutdown waits for running jobs before releasing them (JOB_SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /** Redis key prefix of the BullMQ queue, so deployments can share a Redis (JOB_QUEUE_PREFIX). */
  prefix: string;
}

export interface FileSweepOptions {
  /** How often the deployment sweeps unused files (FILE_SWEEP_MS). */
  intervalMs: number;
  /** How long an unused file is kept after it was last written (FILE_SWEEP_GRACE_MS). */
  graceMs: number;
}

export interface GenerationOptions {
  /** Images of one task or fission generated at the same time (GENERATION_IMAGE_CONCURRENCY); the provider's own limit also applies. */
  imageConcurrency: number;
}

/** Delivery of team notifications (docs/webhooks.md). */
export interface WebhookSettings {
  /** One attempt's deadline: connect, send, answer (WEBHOOK_TIMEOUT_MS, 10 s). */
  timeoutMs: number;
  /** Delay after the first failed attempt, doubling after each further one (WEBHOOK_RETRY_BASE_MS, 10 s)… */
  retryBaseMs: number;
  /** …up to this much (WEBHOOK_RETRY_MAX_MS, 1 h)… */
  retryMaxMs: number;
  /** …for this long after the event, then the delivery is failed (WEBHOOK_RETRY_WINDOW_MS, 24 h). */
  retryWindowMs: number;
  /** How often a worker looks for deliveries that are due (WEBHOOK_POLL_MS, 1 s). */
  pollMs: number;
}

export class ConfigError extends Error {}

/**
 * Reads a secret from the environment, or from DATA_DIR where it was generated on the first
 * start, so a restart keeps tokens and encrypted keys valid. Production refuses generated
 * secrets: a secret that lives next to the data it protects is only fit for a single machine.
 */
function loadSecret(env: NodeJS.ProcessEnv, name: string, dataDir: string, production: boolean): string {
  const fromEnv = env[name];
  if (fromEnv) return fromEnv;
  if (production) {
    throw new ConfigError(`${name} must be set when NODE_ENV=production (refusing to generate one)`);
  }
  const file = path.join(dataDir, 'secrets', name.toLowerCase());
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const value = randomBytes(48).toString('base64url');
  writeFileSync(file, value, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return value;
}

function apiDocsFrom(env: NodeJS.ProcessEnv): Config['apiDocs'] {
  const value = env.API_DOCS || 'public';
  if (value !== 'public' && value !== 'off') throw new ConfigError(`API_DOCS must be public or off, not "${value}"`);
  return value;
}

/** An integer setting of at least `min`, or `fallback` when unset; anything else refuses to start. */
export function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return value;
}

/** At least 10 (a cheaper hash is cheap to guess offline); at most 17 (128 MiB and over half a second a login, OWASP's minimum). */
function passwordHashCostFrom(env: NodeJS.ProcessEnv): number {
  const cost = intFrom(env, 'PASSWORD_HASH_COST', 15, 10);
  if (cost > 17) throw new ConfigError(`PASSWORD_HASH_COST must be at most 17, got "${env.PASSWORD_HASH_COST}"`);
  return cost;
}

function localImageFailuresFrom(env: NodeJS.ProcessEnv): LocalImageFailures {
  const raw = (env.LOCAL_PROVIDER_IMAGE_FAILURES ?? '').trim();
  if (raw === '') return { count: 0, origin: undefined };
  const match = /^(?:(task|fission):)?(\d+)$/.exec(raw);
  if (!match) throw new ConfigError(`LOCAL_PROVIDER_IMAGE_FAILURES must be N, task:N or fission:N (N a non-negative integer), got "${raw}"`);
  return { count: Number(match[2]), origin: match[1] as LocalImageFailures['origin'] };
}

function publicUrlFrom(env: NodeJS.ProcessEnv): string | undefined {
  const raw = (env.PUBLIC_URL ?? '').trim();
  if (raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an http(s) URL such as https://content.example.com, got "${raw}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) {
    throw new ConfigError(`PUBLIC_URL must be an http(s) URL without credentials, query or fragment, got "${raw}"`);
  }
  return url.toString().replace(/\/+$/, '');
}

function webhookSettingsFrom(env: NodeJS.ProcessEnv): WebhookSettings {
  return {
    timeoutMs: intFrom(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100),
    retryBaseMs: intFrom(env, 'WEBHOOK_RETRY_BASE_MS', 10_000, 10),
    retryMaxMs: intFrom(env, 'WEBHOOK_RETRY_MAX_MS', 3_600_000, 10),
    retryWindowMs: intFrom(env, 'WEBHOOK_RETRY_WINDOW_MS', 24 * 3_600_000, 1_000),
    pollMs: intFrom(env, 'WEBHOOK_POLL_MS', 1_000, 10),
  };
}

export function jobOptionsFrom(env: NodeJS.ProcessEnv): JobOptions {
  const prefix = env.JOB_QUEUE_PREFIX || 'cps';
  if (!/^[\w.-]{1,64}$/.test(prefix)) throw new ConfigError('JOB_QUEUE_PREFIX may hold only letters, digits, "_", "." and "-"');
  return {
    concurrency: intFrom(env, 'JOB_CONCURRENCY', 2, 1),
    notifyConcurrency: intFrom(env, 'JOB_NOTIFY_CONCURRENCY', 8, 1),
    bulkConcurrency: intFrom(env, 'JOB_BULK_CONCURRENCY', 6, 1),
    batchParallelTasks: intFrom(env, 'BATCH_PARALLEL_TASKS', 6, 1),
    maxAttempts: intFrom(env, 'JOB_MAX_ATTEMPTS', 3, 1),
    backoffMs: intFrom(env, 'JOB_BACKOFF_MS', 2_000, 0),
    leaseMs: intFrom(env, 'JOB_LEASE_MS', 30_000, 200),
    pollMs: intFrom(env, 'JOB_POLL_MS', 1_000, 10),
    sweepMs: intFrom(env, 'JOB_SWEEP_MS', 30_000, 50),
    maxResumes: intFrom(env, 'JOB_MAX_RESUMES', 3, 0),
    shutdownGraceMs: intFrom(env, 'JOB_SHUTDOWN_GRACE_MS', 10_000, 0),
    prefix,
  };
}

/**
 * Every preset's settings, read now so a bad value stops the start, not a task later: each
 * PROVIDER_<LABEL>_NAME falls back to PROVIDER_NAME, then to the default.
 */
export function providerSettingsFrom(env: NodeJS.ProcessEnv): ProviderSettings {
  const settings = {} as ProviderSettings;
  for (const label of PRESET_PROVIDERS) {
    const prefix = envPrefix(label);
    const text = (name: string) => env[prefix + name]?.trim() || undefined;
    const number = (name: string, fallback: number) => {
      const raw = env[prefix + name] ?? env[`PROVIDER_${name}`];
      if (raw === undefined || raw.trim() === '') return fallback;
      const value = Number(raw);
      if (!Number.isFinite(value) || value < 0) throw new ConfigError(`${prefix}${name} / PROVIDER_${name} must be a non-negative number, got "${raw}"`);
      return value;
    };
    const pollIntervalMs = number('POLL_INTERVAL_MS', 2000);
    if (pollIntervalMs <= 0) throw new ConfigError(`${prefix}POLL_INTERVAL_MS / PROVIDER_POLL_INTERVAL_MS must be a positive number`);
    settings[label] = {
      overrides: { baseUrl: text('BASE_URL'), textModel: text('TEXT_MODEL'), visionModel: text('VISION_MODEL'), imageModel: text('IMAGE_MODEL'), imageSize: text('IMAGE_SIZE') },
      limits: {
        timeoutMs: number('TIMEOUT_MS', 120_000),
        maxRetries: Math.floor(number('MAX_RETRIES', 3)),
        retryBaseMs: number('RETRY_BASE_MS', 500),
        retryMaxWaitMs: number('RETRY_MAX_WAIT_MS', 60_000),
        rateLimitBaseMs: number('RATE_LIMIT_BASE_MS', 15_000),
      },
      concurrency: Math.floor(number('CONCURRENCY', 0)),
      rpm: Math.floor(number('RPM', 0)),
      tpm: Math.floor(number('TPM', 0)),
      pollIntervalMs,
    };
  }
  return settings;
}

const HOUR = 3_600_000;

/** Images of one task or fission made at a time unless GENERATION_IMAGE_CONCURRENCY says otherwise. */
export const DEFAULT_IMAGE_CONCURRENCY = 6;

export function fileSweepOptionsFrom(env: NodeJS.ProcessEnv): FileSweepOptions {
  return { intervalMs: intFrom(env, 'FILE_SWEEP_MS', HOUR, 50), graceMs: intFrom(env, 'FILE_SWEEP_GRACE_MS', HOUR, 0) };
}

/** STORAGE=s3 with S3_BUCKET, S3_REGION, S3_ENDPOINT, S3_FORCE_PATH_STYLE, S3_PREFIX, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY. */
export function s3OptionsFromEnv(env: NodeJS.ProcessEnv, dataDir: string): S3StorageOptions {
  const bucket = env.S3_BUCKET;
  if (!bucket) throw new ConfigError('STORAGE=s3 needs S3_BUCKET');
  const prefix = env.S3_PREFIX ?? '';
  if (!/^[\w./-]{0,200}$/.test(prefix)) throw new ConfigError('S3_PREFIX may hold only letters, digits, "_", ".", "/" and "-"');
  const accessKeyId = env.S3_ACCESS_KEY_ID;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) throw new ConfigError('set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (AWS default credentials)');
  return {
    bucket,
    prefix,
    region: env.S3_REGION || 'us-east-1',
    ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
    forcePathStyle: env.S3_FORCE_PATH_STYLE === '1' || Boolean(env.S3_ENDPOINT && env.S3_FORCE_PATH_STYLE !== '0'),
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
    spoolDir: path.join(dataDir, 'tmp', 's3-spool'),
  };
}

function storageFrom(env: NodeJS.ProcessEnv, dataDir: string): Config['storage'] {
  const kind = env.STORAGE || 'local';
  if (kind === 's3') return { kind, s3: s3OptionsFromEnv(env, dataDir) };
  if (kind !== 'local') throw new ConfigError(`STORAGE must be "local" or "s3", got "${kind}"`);
  return { kind };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const dataDir = path.resolve(env.DATA_DIR || './data');
  mkdirSync(dataDir, { recursive: true });
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (unset it to use SQLite in DATA_DIR)');
  }
  return {
    host: env.HOST || '127.0.0.1',
    port: intFrom(env, 'PORT', 8080),
    dataDir,
    databaseUrl,
    redisUrl: env.REDIS_URL || undefined,
    jwtSecret: loadSecret(env, 'JWT_SECRET', dataDir, production),
    secretKey: loadSecret(env, 'SECRET_KEY', dataDir, production),
    production,
    admin: {
      username: env.ADMIN_USERNAME || 'admin',
      password: env.ADMIN_PASSWORD || undefined,
      email: env.ADMIN_EMAIL || 'admin@example.com',
    },
    demoData: env.DEMO_DATA === '1',
    corsOrigins: (env.CORS_ORIGINS || '').split(',').map((s) => s.trim()).filter(Boolean),
    apiDocs: apiDocsFrom(env),
    bodyLimitBytes: intFrom(env, 'BODY_LIMIT_BYTES', 1024 * 1024),
    rateLimitPerMinute: intFrom(env, 'RATE_LIMIT_PER_MINUTE', 1200),
    sseHeartbeatMs: intFrom(env, 'SSE_HEARTBEAT_MS', 15_000, 10),
    loginHashing: { slots: intFrom(env, 'LOGIN_HASH_SLOTS', 2, 1), waiting: intFrom(env, 'LOGIN_HASH_QUEUE', 8, 0), perClient: intFrom(env, 'LOGIN_HASH_PER_CLIENT', 2, 1) },
    passwordHashCost: passwordHashCostFrom(env),
    taskListCacheBytes: intFrom(env, 'TASK_LIST_CACHE_BYTES', 8 * 1024 * 1024),
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    localImageFailures: localImageFailuresFrom(env),
    publicUrl: publicUrlFrom(env),
    allowPrivateUrls: env.ALLOW_PRIVATE_PROVIDER_URLS === '1',
    outbound: outboundOf({ allowPrivate: env.ALLOW_PRIVATE_PROVIDER_URLS === '1', privateHosts: parsePrivateHosts(env.ALLOW_PRIVATE_PROVIDER_HOSTS) }),
    providers: providerSettingsFrom(env),
    webhooks: webhookSettingsFrom(env),
    postSweepMs: intFrom(env, 'POST_SWEEP_MS', 5_000, 10),
    batchSweepMs: intFrom(env, 'BATCH_SWEEP_MS', 5_000, 10),
    webDistDir: path.resolve(env.WEB_DIST_DIR || path.join(import.meta.dirname, '..', '..', 'web', 'dist')),
    trustProxy: env.TRUST_PROXY === '1',
    metricsToken: env.METRICS_TOKEN || undefined,
    storage: storageFrom(env, dataDir),
    jobs: jobOptionsFrom(env),
    fileSweep: fileSweepOptionsFrom(env),
    generation: { imageConcurrency: intFrom(env, 'GENERATION_IMAGE_CONCURRENCY', DEFAULT_IMAGE_CONCURRENCY, 1) },
    secretSources: { JWT_SECRET: env.JWT_SECRET ? 'environment' : 'generated', SECRET_KEY: env.SECRET_KEY ? 'environment' : 'generated' },
  };
}
