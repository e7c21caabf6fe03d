import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config.js';
import { BullJobBackend } from '../../src/jobs/bullmq.js';
import { InProcessJobBackend } from '../../src/jobs/in-process.js';
import { jobOptionsFrom, type JobOptions } from '../../src/config.js';
import type { JobBackend } from '../../src/jobs/types.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { freshPostgresDatabase, usingPostgres } from '../helpers/server.js';

export const redisUrl = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/** Why BullMQ tests cannot run here, or undefined when Redis answers. Under CI a missing Redis is a failure. */
export async function redisUnavailable(): Promise<string | undefined> {
  const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: () => null });
  try {
    await probe.connect();
    await probe.ping();
    return undefined;
  } catch (err) {
    const reason = `Redis not reachable at ${redisUrl} (${err instanceof Error ? err.message : String(err)})`;
    if (process.env.CI === 'true') throw new Error(`${reason}; CI requires it`);
    process.stdout.write(`skipping BullMQ job tests: ${reason}\n`);
    return reason;
  } finally {
    probe.disconnect();
  }
}

/**
 * A database of its own (SQLite in a temp DATA_DIR, or a fresh PostgreSQL database when
 * DATABASE_URL says so) that can be opened, closed and opened again, as a restart would.
 */
export interface JobsDb {
  env: Record<string, string>;
  logs: string[];
  open(): Promise<Runtime>;
  dispose(): Promise<void>;
}

export async function freshJobsDb(): Promise<JobsDb> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-jobs-'));
  const pgDb = usingPostgres ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...(pgDb ? { DATABASE_URL: pgDb.url } : {}),
  };
  const logs: string[] = [];
  const runtimes: Runtime[] = [];
  return {
    env,
    logs,
    async open() {
      const logDestination = new Writable({
        write(chunk, _enc, cb) {
          logs.push(String(chunk));
          cb();
        },
      });
      // No worker of the runtime's own: each test starts the workers it wants with its handlers.
      const runtime = await createRuntime(loadConfig(env), { logDestination, worker: false });
      runtimes.push(runtime);
      return runtime;
    },
    async dispose() {
      for (const r of runtimes.splice(0)) await r.close().catch(() => undefined);
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Short leases and backoff so retries and crash recovery happen within a test. */
export function testJobOptions(overrides: Partial<JobOptions> = {}): JobOptions {
  return {
    ...jobOptionsFrom({}),
    backoffMs: 20,
    leaseMs: 600,
    pollMs: 50,
    sweepMs: 60_000,
    shutdownGraceMs: 2_000,
    prefix: `cps-t-${process.pid}-${Math.random().toString(36).slice(2, 10)}`,
    ...overrides,
  };
}

export type BackendName = 'in-process' | 'bullmq';

export function makeBackend(name: BackendName, runtime: Runtime, options: JobOptions): JobBackend {
  return name === 'bullmq'
    ? new BullJobBackend(redisUrl, options)
    : new InProcessJobBackend(runtime.ctx.db, runtime.ctx.dialect, options);
}

/** Closes a backend; a BullMQ one also deletes its test prefix from Redis. */
export async function disposeBackend(backend: JobBackend): Promise<void> {
  if (backend instanceof BullJobBackend) await backend.obliterate().catch(() => undefined);
  await backend.close();
}

/** Polls until `check` holds; fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
