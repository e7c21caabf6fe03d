import { buildApp } from './app.js';
import { bootstrap } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { closeImageThreads } from './images/threads.js';
import { newThreadChannel, startJobThread } from './job-thread.js';
import { runCli } from './cli.js';
import { createRuntime } from './runtime.js';

type Role = 'all' | 'api' | 'worker' | 'migrate' | 'cli';

const SHUTDOWN_TIMEOUT_MS = 15_000;

function parseRole(argv: string[]): { role: Role; rest: string[] } {
  const index = argv.indexOf('--role');
  const role = (index >= 0 ? argv[index + 1] : 'all') as Role;
  if (!['all', 'api', 'worker', 'migrate', 'cli'].includes(role)) throw new ConfigError(`unknown role "${role}"`);
  const rest = index >= 0 ? [...argv.slice(0, index), ...argv.slice(index + 2)] : argv;
  return { role, rest };
}

async function main() {
  const { role, rest } = parseRole(process.argv.slice(2));
  const config = loadConfig();
  if (role === 'cli') {
    process.exitCode = await runCli(config, rest);
    return;
  }
  // Role `worker` runs jobs on its event loop, `all` in a thread of its own (job-thread.ts), and
  // `api` only enqueues them (for worker processes).
  const threadChannel = role === 'all' ? newThreadChannel() : undefined;
  const runtime = await createRuntime(config, { worker: role === 'worker', threadChannel });
  const { ctx } = runtime;
  if (role === 'migrate') {
    ctx.log.info('database migrated');
    await runtime.close();
    return;
  }

  const boot = await bootstrap(ctx);
  if (boot.generatedPassword) {
    // Printed once, on the console only (never into the log stream): it is a credential.
    process.stdout.write(
      `\n  First start: created admin "${config.admin.username}" with password ${boot.generatedPassword}\n` +
        '  You must change it at first login.\n\n',
    );
  }

  const app = role === 'worker' ? undefined : await buildApp(ctx);
  if (app) await app.listen({ host: config.host, port: config.port });
  // Started, not awaited: the signal handlers below must be in place as soon as the API listens.
  const jobThread = threadChannel
    ? startJobThread(threadChannel, ctx.log, (err) => {
        process.stderr.write(`fatal: the job thread stopped: ${err.stack ?? err.message}\n`);
        process.exit(1);
      })
    : undefined;

  // SIGTERM: stop accepting connections, let in-flight requests finish (new ones get 503),
  // then run the runtime's closers (workers, queues), close the database and end the image threads. Long-lived
  // responses (event streams) end themselves in an app `preClose` hook.
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    ctx.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      ctx.log.error(`shutdown did not finish within ${SHUTDOWN_TIMEOUT_MS / 1000} s; exiting`);
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    force.unref();
    try {
      await app?.close();
      await jobThread?.close();
      await runtime.close();
      await closeImageThreads();
      process.exit(0);
    } catch (err) {
      ctx.log.error({ err }, 'error while shutting down');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
  } else {
    process.stderr.write(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
});
