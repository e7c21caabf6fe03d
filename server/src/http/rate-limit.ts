import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { fail } from './errors.js';

/**
 * The general limit of contract-decisions §3 (RATE_LIMIT_PER_MINUTE per user, per address before
 * login). With REDIS_URL the counters live in Redis so every API process shares one budget.
 */
export async function registerRateLimit(app: FastifyInstance, ctx: AppContext) {
  const redis = ctx.config.redisUrl
    ? // Fail fast rather than queue requests behind a dead Redis (the plugin then lets them through).
      new Redis(ctx.config.redisUrl, { connectTimeout: 1000, maxRetriesPerRequest: 1, enableOfflineQueue: true })
    : undefined;
  if (redis) {
    redis.on('error', (err) => ctx.log.warn({ err: err.message }, 'rate-limit redis error'));
    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
  }
  await app.register(rateLimit, {
    global: true,
    max: ctx.config.rateLimitPerMinute,
    timeWindow: 60_000,
    // After authentication (onRequest) so the budget is per user, and before body parsing and
    // validation so that malformed requests count too.
    hook: 'preParsing',
    keyGenerator: (request) => (request.authUser ? `u:${request.authUser.userId}` : `ip:${request.ip}`),
    ...(redis
      ? {
          redis,
          // Processes of one deployment share JWT_SECRET (their tokens verify everywhere), so it
          // names the deployment without leaking it; other deployments on the same Redis stay apart.
          nameSpace: `cps:rl:${createHash('sha256').update(ctx.config.jwtSecret).digest('hex').slice(0, 16)}:`,
          // A Redis outage must not take the API down: requests pass unlimited until it is back.
          skipOnError: true,
        }
      : {}),
    errorResponseBuilder: (_req, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return fail('rate.limited', { max: context.max, seconds }, {
        'retry-after': String(seconds),
      });
    },
  });
}
