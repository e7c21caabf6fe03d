import type { DestinationStream } from 'pino';
import { WorkGate } from './security/work-gate.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { DbTaskEventBus } from './events/bus.js';
import { UnusedFileSweeper } from './modules/files/sweeper.js';
import { jobHandlers } from './modules/jobs.js';
import { PostSweeper } from './modules/posts/sweeper.js';
import { BatchSweeper } from './modules/batches/jobs.js';
import { WebhookDispatcher, webhookDeliverJob } from './modules/webhooks/delivery.js';
import { createJobBackend, startJobWorker } from './jobs/index.js';
import { kindLanes, type JobHandlers } from './jobs/types.js';
import { threadPacer } from './providers/pacer-thread.js';
import { ThreadEventTransport } from './events/thread-transport.js';
import { createLogger } from './logging.js';
import { instrumentJobHandlers, loginChecksWaiting, observeProviderAttempt } from './ops/metrics.js';
import { createProviderFactory } from './providers/factory.js';
import { rememberStructuredMode } from './modules/api-keys/service.js';
import { SecretBox } from './security/secret-box.js';
import { AccessTokens } from './security/tokens.js';
import { createFileStorage } from './storage/index.js';

export interface Runtime {
  ctx: AppContext;
  /**
   * The shutdown hook point of a process (workers, queues, connections): `close()` runs the
   * closers last-registered first, each after the HTTP server has drained, then closes the
   * shared services and the database. A failing closer is logged and does not stop the others.
   */
  onClose(closer: () => Promise<void> | void): void;
  close(): Promise<void>;
}

/** Opens the database (migrated) and builds the shared services of one process. */
export async function createRuntime(
  config: Config,
  opts: {
    clock?: Clock;
    logDestination?: DestinationStream;
    migrate?: boolean;
    /** Run the job worker and the stale-work sweeper in this process (roles `all`, `worker`). */
    worker?: boolean;
    /** Tests replace the job handlers. */
    jobHandlers?: JobHandlers;
    /**
     * Names the channels between the threads of this process (npm start's job thread and its
     * event loop): task events and job wake-ups cross at once instead of by polling the database.
     */
    threadChannel?: string;
    /** Names the thread in every line it logs (`"thread":"jobs"`). */
    thread?: string;
  } = {},
): Promise<Runtime> {
  const clock = opts.clock ?? systemClock;
  const processLog = createLogger(config.logLevel, opts.logDestination);
  const log = opts.thread ? processLog.child({ thread: opts.thread }) : processLog;
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  // Every process spends a connection's rpm/tpm from one budget in Redis where there is one
  // (its client loaded only then); else this process paces its own calls, and npm start's
  // threads tell each other their accounts' pace (the API thread shows the job thread's).
  const pacer = config.redisUrl
    ? (await import('./providers/pacer-redis.js')).redisPacer(config.redisUrl, config.jobs.prefix, log)
    : opts.threadChannel
      ? threadPacer(opts.threadChannel, log)
      : undefined;
  const providers = createProviderFactory(config.providers, log, {
    pacer,
    outbound: config.outbound,
    imageFailures: config.localImageFailures,
    observeAttempt: observeProviderAttempt,
    rememberStructuredMode: (keyId, mode) => {
      rememberStructuredMode(database, keyId, mode).catch((err: unknown) => log.warn({ err, keyId }, 'structured-output downgrade not stored'));
    },
  });
  if (opts.migrate !== false) await migrateToLatest(database.db);
  // Redis carries events between processes and threads alike; without it, a channel between
  // threads. Its client is loaded only when it is used (as are BullMQ and the S3 SDK).
  const transport = config.redisUrl
    ? new (await import('./events/redis-transport.js')).RedisEventTransport(config.redisUrl, config.jobs.prefix, log)
    : opts.threadChannel
      ? new ThreadEventTransport(opts.threadChannel)
      : undefined;
  const events = new DbTaskEventBus(database.db, clock, log, transport);
  await events.start().catch(async (err: unknown) => {
    await database.close();
    throw err;
  });
  const handlers = instrumentJobHandlers(opts.jobHandlers ?? jobHandlers);
  const jobs = await createJobBackend(config, database, undefined, kindLanes(handlers), opts.threadChannel);
  const ctx: AppContext = {
    config,
    db: database.db,
    dialect: database.dialect,
    clock,
    log,
    tokens: new AccessTokens(config.jwtSecret, () => clock.now()),
    secrets: new SecretBox(config.secretKey),
    storage: await createFileStorage(config),
    events,
    queue: jobs,
    providers,
    logins: new WorkGate(config.loginHashing, (waiting) => loginChecksWaiting.set(waiting)),
  };
  // Closed in reverse: the worker stops taking jobs (and lets running ones finish) before the
  // queue's connections close. The image threads belong to the process, not to one runtime
  // (main.ts ends them): a test or bench process starting many runtimes keeps them warm.
  const closers: Array<() => Promise<void> | void> = [() => jobs.close()];
  if (opts.worker) {
    const worker = startJobWorker(ctx, jobs, handlers, [
      new UnusedFileSweeper(ctx, config.fileSweep),
      new PostSweeper(ctx),
      new BatchSweeper(ctx),
      // The outbox relay only where deliveries can run (tests may bring their own handlers).
      ...(handlers[webhookDeliverJob.kind] ? [new WebhookDispatcher(ctx)] : []),
    ]);
    closers.push(() => worker.close());
  }
  return {
    ctx,
    onClose: (closer) => {
      closers.push(closer);
    },
    close: async () => {
      for (const closer of closers.splice(0).reverse()) {
        await Promise.resolve()
          .then(closer)
          .catch((err: unknown) => log.error({ err }, 'error while shutting down'));
      }
      await events.close();
      await providers.pacer.close();
      await database.close();
    },
  };
}
