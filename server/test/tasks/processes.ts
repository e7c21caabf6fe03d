import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { NewTaskEvent } from '../../src/events/types.js';
import type { TestServer } from '../helpers/server.js';
import { serviceEntry } from '../helpers/service-entry.js';

const serverDir = path.resolve(import.meta.dirname, '..', '..');
export const redisUrl = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/** Whether Redis answers; CI=true turns its absence into a failure instead of a skip. */
export async function redisAvailable(): Promise<boolean> {
  const client = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch (err) {
    if (process.env.CI === 'true') throw new Error(`Redis at ${redisUrl} is required under CI=true: ${String(err)}`);
    process.stdout.write(`[tasks] Redis at ${redisUrl} unreachable (${String(err)}): skipping the Redis modes\n`);
    return false;
  } finally {
    client.disconnect();
  }
}

/** The environment that makes a child process share the test server's database and files. */
export function sharedEnv(server: TestServer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATA_DIR: server.dataDir,
    ...(server.config.databaseUrl ? { DATABASE_URL: server.config.databaseUrl } : {}),
    ...(server.config.redisUrl ? { REDIS_URL: server.config.redisUrl } : {}),
    JOB_QUEUE_PREFIX: server.config.jobs.prefix,
    ...extra,
  };
}

export interface EventWriter {
  append(taskId: number, events: NewTaskEvent[]): Promise<void>;
  stop(): Promise<void>;
}

function spawnNode(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, args, { cwd: serverDir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += String(c)));
  child.stderr!.on('data', (c) => (out += String(c)));
  return { child, output: () => out };
}

async function waitForOutput(output: () => string, pattern: RegExp, child: ChildProcess, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(output())) {
    if (child.exitCode !== null) throw new Error(`child exited: ${output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}: ${output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A separate process appending events through its own runtime (see event-writer.ts). */
export async function startEventWriter(server: TestServer): Promise<EventWriter> {
  const { child, output } = spawnNode(['--import', 'tsx', 'test/tasks/event-writer.ts'], sharedEnv(server));
  await waitForOutput(output, /^ready$/m, child);
  const acks: Array<() => void> = [];
  let partial = '';
  child.stdout!.on('data', (chunk) => {
    partial += String(chunk);
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (line === 'ok') acks.shift()?.();
  });
  return {
    append(taskId, events) {
      return new Promise<void>((resolve, reject) => {
        if (child.exitCode !== null) return reject(new Error(`event writer exited: ${output()}`));
        acks.push(resolve);
        child.stdin!.write(`${JSON.stringify({ taskId, events })}\n`);
      });
    },
    async stop() {
      child.stdin!.end();
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}

/** `src/main.ts --role worker` sharing the server's database, files and Redis. */
export async function startWorkerProcess(server: TestServer, extra: Record<string, string> = {}) {
  const { child, output } = spawnNode([...serviceEntry(), '--role', 'worker'], sharedEnv(server, { LOG_LEVEL: 'info', ...extra }));
  await waitForOutput(output, /worker|started|listening/i, child);
  return {
    output,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
