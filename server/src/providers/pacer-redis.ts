import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { PACING, RatePacer, type ConnectionBudget, type RateStore, type TakeAnswer } from './pacer.js';

/**
 * The limiter state shared by every process of the deployment: one hash per connection
 * (`<prefix>:pace:<account>`, the account a digest of endpoint and key: the meters' theoretical arrival times `tr`/`tt`, the rate factor `f`,
 * the block `b`, the budget last used `rpm`/`tpm`), read and written by one Lua script per
 * decision on Redis's own clock (TIME), so processes on different machines agree on "now" and two
 * processes can never both take the last share. The hash expires after PACING.idleMs idle.
 * The steps are pacer.ts `gcra()`'s.
 */
const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
local s = redis.call('HMGET', KEYS[1], 'tr', 'tt', 'f', 'b')
local tr = tonumber(s[1]) or now
local tt = tonumber(s[2]) or now
local f = tonumber(s[3]) or 1
local b = tonumber(s[4]) or 0
`;

/** ARGV: ttl, rpm, tpm, tokens, bulk (1/0), interactive tolerance, bulk tolerance → {1, 0} or {0, wait ms}. */
const TAKE = `${PRELUDE}
local rpm = tonumber(ARGV[2])
local tpm = tonumber(ARGV[3])
local tokens = tonumber(ARGV[4])
if b > now then return {0, b - now} end
local ir = 60000 / (rpm * f)
local it = 60000 / (tpm * f)
local tau = tonumber(ARGV[7]) * ir
if ARGV[5] == '1' then tau = tonumber(ARGV[6]) * ir end
if tr < now then tr = now end
if tt < now then tt = now end
local wait = math.max(tr - tau - now, tt - tau - now)
if wait > 0 then return {0, math.ceil(wait)} end
if tokens > tpm then tokens = tpm end
if tokens < 0 then tokens = 0 end
tr = tr + ir
tt = tt + tokens * it
redis.call('HSET', KEYS[1], 'tr', string.format('%.3f', tr), 'tt', string.format('%.3f', tt), 'f', tostring(f), 'rpm', rpm, 'tpm', tpm)
redis.call('PEXPIRE', KEYS[1], ttl + math.ceil(math.max(tr, tt) - now))
return {1, 0}
`;

/** ARGV: ttl, rpm, decrease, floor, block ms (-1: default intervals), default intervals, tpm. */
const PENALIZE = `${PRELUDE}
local rpm = tonumber(ARGV[2])
f = math.max(tonumber(ARGV[4]), f * tonumber(ARGV[3]))
local block = tonumber(ARGV[5])
if block < 0 then block = tonumber(ARGV[6]) * 60000 / (rpm * f) end
if now + block > b then b = now + block end
redis.call('HSET', KEYS[1], 'f', tostring(f), 'b', string.format('%.0f', b))
if redis.call('HEXISTS', KEYS[1], 'rpm') == 0 then redis.call('HSET', KEYS[1], 'tr', now, 'tt', now, 'rpm', rpm, 'tpm', ARGV[7]) end
redis.call('PEXPIRE', KEYS[1], ttl + math.ceil(b - now))
return 1
`;

/** ARGV: ttl, increase. */
const REWARD = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local f = tonumber(redis.call('HGET', KEYS[1], 'f')) or 1
f = math.min(1, f + tonumber(ARGV[2]))
redis.call('HSET', KEYS[1], 'f', tostring(f))
return 1
`;

/** → {rpm, tpm, factor as text, blocked ms left} or nil. */
const READ = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = redis.call('HMGET', KEYS[1], 'rpm', 'tpm', 'f', 'b')
local b = tonumber(s[4]) or 0
local left = 0
if b > now then left = b - now end
return {tonumber(s[1]) or 0, tonumber(s[2]) or 0, s[3] or '1', left}
`;

type Scripted = Redis & {
  paceTake(key: string, ...args: Array<string | number>): Promise<[number, number]>;
  pacePenalize(key: string, ...args: Array<string | number>): Promise<number>;
  paceReward(key: string, ...args: Array<string | number>): Promise<number>;
  paceRead(key: string): Promise<[number, number, string, number] | null>;
};

export class RedisRateStore implements RateStore {
  private readonly redis: Scripted;

  /** `prefix` namespaces the keys (the deployment's job prefix; tests use one per test). */
  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    const redis = new Redis(url, { lazyConnect: true, connectTimeout: 5_000, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    redis.defineCommand('paceTake', { numberOfKeys: 1, lua: TAKE });
    redis.defineCommand('pacePenalize', { numberOfKeys: 1, lua: PENALIZE });
    redis.defineCommand('paceReward', { numberOfKeys: 1, lua: REWARD });
    redis.defineCommand('paceRead', { numberOfKeys: 1, lua: READ });
    // Errors surface on the commands (the pacer lets calls go unpaced); an idle client's errors are not ours to crash on.
    redis.on('error', () => {});
    this.redis = redis as Scripted;
  }

  private k(key: string) {
    return `${this.prefix}:pace:${key}`;
  }

  async take(key: string, budget: ConnectionBudget, tokens: number, bulk: boolean): Promise<TakeAnswer> {
    const [ok, wait] = await this.redis.paceTake(this.k(key), PACING.idleMs, budget.rpm, budget.tpm, Math.max(0, Math.round(tokens)), bulk ? 1 : 0, PACING.bulkTolerance, PACING.interactiveTolerance);
    return ok === 1 ? { ok: true } : { ok: false, waitMs: Math.max(1, wait) };
  }

  async penalize(key: string, budget: ConnectionBudget, blockMs: number | undefined): Promise<void> {
    await this.redis.pacePenalize(this.k(key), PACING.idleMs, budget.rpm, PACING.decrease, PACING.floor, blockMs === undefined ? -1 : Math.max(0, Math.round(blockMs)), PACING.defaultBlockIntervals, budget.tpm);
  }

  async reward(key: string): Promise<void> {
    await this.redis.paceReward(this.k(key), PACING.idleMs, PACING.increase);
  }

  async read(key: string) {
    const reply = await this.redis.paceRead(this.k(key));
    if (!reply) return null;
    const [rpm, tpm, factor, left] = reply;
    return { rpm: Number(rpm), tpm: Number(tpm), factor: Number(factor), blockedUntil: left > 0 ? Date.now() + Number(left) : null };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** The pacer of a deployment with Redis: one client per process, state shared by all of them. */
export function redisPacer(url: string, prefix: string, log?: Logger): RatePacer {
  return new RatePacer(new RedisRateStore(url, prefix), log);
}
