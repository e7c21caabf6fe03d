import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { fail } from '../http/errors.js';
import type { JobBackend } from '../jobs/types.js';
import { bearerToken } from '../http/auth.js';
import { httpDuration, metricsRegistry, processMetrics, queueJobs } from './metrics.js';
import { createReadiness } from './readiness.js';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Operations endpoints outside the API prefix: `/healthz` (the process serves), `/readyz` (its
 * dependencies answer) and `/metrics` (Prometheus text). None carries user data. Metrics ask
 * for `Authorization: Bearer $METRICS_TOKEN` when that is set; the proxy of docs/deploy.md also
 * keeps all three off the public side.
 */
export async function opsRoutes(app: FastifyInstance, ctx: AppContext) {
  const readiness = createReadiness(ctx);
  app.addHook('onClose', () => readiness.close());

  app.addHook('onRequest', (request, reply, done) => {
    // The id a log line carries goes back to the client, so a bug report can quote it.
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    // The route template, never the raw URL: ids in paths would make one series per record.
    const route = request.routeOptions.url ?? 'unmatched';
    httpDuration.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });

  const ops = { rateLimit: false, access: { auth: 'public' as const } };
  const hidden = { hide: true };

  app.get('/healthz', { config: ops, schema: hidden }, async () => ({ status: 'ok' }));

  app.get('/readyz', { config: ops, schema: hidden }, async (_request, reply) => {
    const { ready, checks } = await readiness.check();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks });
  });

  const { metricsToken } = ctx.config;
  app.get('/metrics', { config: ops, schema: hidden }, async (request, reply) => {
    if (metricsToken) {
      const token = bearerToken(request);
      if (token === undefined) throw fail('metrics.credentials_missing');
      if (!sameSecret(token, metricsToken)) throw fail('metrics.token_invalid');
    }
    // ctx.queue is the process's JobBackend; only a test's stand-in lacks counts().
    const queue = ctx.queue as Partial<Pick<JobBackend, 'counts'>>;
    const counts = await queue.counts?.().catch((err: unknown) => {
      request.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'queue depth unavailable');
      return undefined;
    });
    queueJobs.reset();
    for (const [state, n] of Object.entries(counts ?? {})) queueJobs.set({ state }, n);
    return reply.header('content-type', metricsRegistry.contentType).send(await processMetrics());
  });
}
