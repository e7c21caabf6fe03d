import { sql } from 'kysely';
import { Redis } from 'ioredis';
import type { AppContext } from '../context.js';

const CHECK_TIMEOUT_MS = 2_000;

export type CheckResult = 'ok' | 'failed';

export interface Readiness {
  /** Every dependency this process needs, each checked within CHECK_TIMEOUT_MS. */
  check(): Promise<{ ready: boolean; checks: Record<string, CheckResult> }>;
  close(): Promise<void>;
}

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Readiness of one process: the database answers a query, Redis (when configured) answers a
 * PING, the file store is reachable. The reasons of a failure go to the log, not the response:
 * the endpoint is unauthenticated and connection errors name internal hosts.
 */
export function createReadiness(ctx: AppContext): Readiness {
  // A client of its own: the queue's and the event bus's connections retry for ever, so a PING
  // through them would wait rather than tell. This one fails fast and reconnects in the background.
  const redis = ctx.config.redisUrl
    ? new Redis(ctx.config.redisUrl, { lazyConnect: true, connectTimeout: CHECK_TIMEOUT_MS, maxRetriesPerRequest: 0 })
    : undefined;
  redis?.on('error', () => undefined);

  const checks: Record<string, () => Promise<unknown>> = {
    database: () => sql`select 1`.execute(ctx.db),
    storage: () => ctx.storage.ping(),
    ...(redis
      ? {
          redis: async () => {
            if (redis.status === 'wait' || redis.status === 'end') await redis.connect();
            const pong = await redis.ping();
            if (pong !== 'PONG') throw new Error(`unexpected PING reply ${pong}`);
          },
        }
      : {}),
  };

  return {
    async check() {
      const results: Record<string, CheckResult> = {};
      await Promise.all(
        Object.entries(checks).map(async ([name, run]) => {
          try {
            await withTimeout(run(), name);
            results[name] = 'ok';
          } catch (err) {
            results[name] = 'failed';
            ctx.log.warn({ check: name, err: err instanceof Error ? err.message : String(err) }, 'readiness check failed');
          }
        }),
      );
      return { ready: Object.values(results).every((r) => r === 'ok'), checks: results };
    },
    async close() {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
