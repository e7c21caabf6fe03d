import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { AppContext } from '../context.js';
import type { JobDefinition, JobHandlers, JobKind } from '../jobs/types.js';

/**
 * One registry per process, as Prometheus scrapes processes: every API and worker process
 * exposes its own figures and the server sums them. Module-level on purpose, so the code that
 * measures (the provider call wrapper, the event streams) needs no context to reach it.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LONG_SECONDS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export const httpDuration = new Histogram({
  name: 'cps_http_request_duration_seconds',
  help: 'HTTP request latency by route template (event streams excluded: they last as long as the task)',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: SECONDS,
  registers: [metricsRegistry],
});

export const jobDuration = new Histogram({
  name: 'cps_job_duration_seconds',
  help: 'Background job run time by kind and outcome (ok, error)',
  labelNames: ['kind', 'outcome'] as const,
  buckets: LONG_SECONDS,
  registers: [metricsRegistry],
});

export const queueJobs = new Gauge({
  name: 'cps_queue_jobs',
  help: 'Jobs in the queue by state (waiting, delayed, running, failed), read at scrape time',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
});

export const providerCallDuration = new Histogram({
  name: 'cps_provider_call_duration_seconds',
  help: 'Provider call attempts by provider, operation and outcome (ok or the error kind)',
  labelNames: ['provider', 'operation', 'outcome'] as const,
  buckets: LONG_SECONDS,
  registers: [metricsRegistry],
});

export const providerErrors = new Counter({
  name: 'cps_provider_errors_total',
  help: 'Failed provider call attempts by provider and error kind (retried ones included)',
  labelNames: ['provider', 'kind'] as const,
  registers: [metricsRegistry],
});

export const webhookAttempts = new Counter({
  name: 'cps_webhook_attempts_total',
  help: 'Webhook delivery attempts by receiver kind and outcome (ok or the error kind)',
  labelNames: ['kind', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const passwordHashes = new Counter({
  name: 'cps_password_hashes_total',
  help: 'Password hashes computed (scrypt runs: logins, password changes, new users)',
  registers: [metricsRegistry],
});

export const loginChecksWaiting = new Gauge({
  name: 'cps_login_checks_waiting',
  help: 'Login password checks waiting for a hashing slot in this process',
  registers: [metricsRegistry],
});

export const sseConnections = new Gauge({
  name: 'cps_sse_connections',
  help: 'Task event streams open in this process',
  registers: [metricsRegistry],
});

/** A registry's figures as one thread sends them to another (prom-client's JSON form). */
export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/** What the job thread records (the process-wide defaults, the HTTP figures and the gauges read at scrape time are the main thread's). */
const RECORDED_BY_JOBS = new Set([jobDuration, providerCallDuration, providerErrors, webhookAttempts].map((metric) => (metric as unknown as { name: string }).name));

/** The job thread's share of this thread's registry, sent to the main thread at each scrape. */
export async function jobThreadMetrics(): Promise<MetricsJson> {
  return (await metricsRegistry.getMetricsAsJSON()).filter((metric) => RECORDED_BY_JOBS.has(metric.name)) as MetricsJson;
}

/** Figures of the process's other threads (npm start's job thread), asked for at each scrape. */
const otherThreads = new Set<() => Promise<MetricsJson>>();

/** Adds a thread's figures to the process's `/metrics`; the returned function removes them. */
export function addThreadMetrics(source: () => Promise<MetricsJson>): () => void {
  otherThreads.add(source);
  return () => otherThreads.delete(source);
}

/** The process's figures in Prometheus' text format: this registry's, with the other threads' counts added to its own. */
export async function processMetrics(): Promise<string> {
  const others = await Promise.all([...otherThreads].map((source) => source()));
  if (others.length === 0) return metricsRegistry.metrics();
  const own = (await metricsRegistry.getMetricsAsJSON()) as MetricsJson;
  const summed = AggregatorRegistry.aggregate([own.filter((metric) => RECORDED_BY_JOBS.has(metric.name)), ...others]);
  const parts = await Promise.all(own.map((metric) => (RECORDED_BY_JOBS.has(metric.name) ? summed : metricsRegistry).getSingleMetricAsString(metric.name)));
  return `${parts.join('\n\n')}\n`;
}

/** Records one provider attempt; `outcome` is `ok` or a ProviderErrorKind. */
export function observeProviderAttempt(provider: string, operation: string, outcome: string, seconds: number): void {
  providerCallDuration.observe({ provider, operation, outcome }, seconds);
  if (outcome !== 'ok') providerErrors.inc({ provider, kind: outcome });
}

function instrument(kind: JobKind, handler: JobDefinition): JobDefinition {
  return {
    ...handler,
    async run(ctx, refId, job) {
      // Every line logged while the job runs names the job and its record (the task id for
      // task.generate), so one task's story can be read from the logs of any worker.
      const jobCtx: AppContext = { ...ctx, log: ctx.log.child({ job: kind, refId, attempt: job.attempt }) };
      const end = jobDuration.startTimer({ kind });
      try {
        await handler.run(jobCtx, refId, job);
        jobCtx.log.info({ seconds: end({ outcome: 'ok' }) }, 'job run finished');
      } catch (err) {
        // The runner logs the failure and decides on a retry; here only the time is recorded.
        end({ outcome: 'error' });
        throw err;
      }
    },
    onFailed: (ctx, refId, reason) => handler.onFailed(ctx, refId, reason),
  };
}

/** The handlers with run times measured and a per-job logger. */
export function instrumentJobHandlers(handlers: JobHandlers): JobHandlers {
  return Object.fromEntries(Object.entries(handlers).map(([kind, handler]) => [kind, instrument(kind, handler)]));
}
