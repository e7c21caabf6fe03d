import { buildApp } from './app.js';
import { bootstrap } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { runCli } from './cli.js';
import { createRuntime } from './runtime.js';

type Role = 'all' | 'api' | 'worker' | 'migrate' | 'cli';

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
  const runtime = await createRuntime(config);
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

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    ctx.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await app?.close();
    await runtime.close();
    process.exit(0);
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
