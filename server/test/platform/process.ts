import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { serviceEntry } from '../helpers/service-entry.js';

const serverDir = path.resolve(import.meta.dirname, '..', '..');

/**
 * The real entry point (src/main.ts through tsx, or as `npm start` runs it) in a child process,
 * with only the environment given here (no inherited DATABASE_URL, secrets or admin settings).
 */
export interface ServiceProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** Waits until stdout matches, or fails when the process exits or the time runs out. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  stop(): Promise<number | null>;
}

export function spawnService(args: string[], env: Record<string, string>, opts: { asShipped?: boolean } = {}): ServiceProcess {
  // As shipped: `npm start`'s entry, which builds what is stale and runs the compiled server.
  const entry = opts.asShipped ? [path.join(serverDir, '..', 'scripts', 'start.mjs')] : serviceEntry();
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: serverDir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += String(chunk)));
  child.stderr!.on('data', (chunk) => (err += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitFor(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(out);
        if (match) return match;
        if (done) throw new Error(`process exited before ${pattern}: ${out}\n${err}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}: ${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      if (!done) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Starts the service and resolves with its base URL once it listens. */
export async function startService(env: Record<string, string>, args: string[] = []) {
  const proc = spawnService(args, env);
  // A first start migrates, hashes at the production cost and compiles the API: on a busy machine that is tens of seconds.
  const match = await proc.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
  return { proc, url: match[1]! };
}

export async function runCli(args: string[], env: Record<string, string>) {
  const proc = spawnService(['--role', 'cli', ...args], env);
  const code = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

export async function call(url: string, method: string, p: string, opts: { token?: string; body?: unknown } = {}) {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: opts.body !== undefined ? JSON.stringify(opts.body) : null,
  });
  return { status: res.status, body: (await res.json()) as any };
}
