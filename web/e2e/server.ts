/**
 * Starts the real server (the same entry as `npm start`, from source through tsx) on a random
 * port with a temporary DATA_DIR, the demo workspace (offline `local` provider, whose first
 * fission image fails) and a known admin password. On PostgreSQL (DATABASE_URL) it gets a
 * fresh database of its own.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshPostgresDatabase } from '../../server/test/helpers/postgres';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ADMIN_PASSWORD = 'e2e-initial-admin-pass';

export interface RunningServer {
  url: string;
  dataDir: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Newest modification time of a file under `dir` (or of `dir` itself when it is a file). */
function newest(dir: string): number {
  const stat = statSync(dir);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(dir).reduce((max, name) => Math.max(max, newest(path.join(dir, name))), stat.mtimeMs);
}

/**
 * A production build of the client (Vitest sets NODE_ENV=test, which would give React's
 * development build), made only when a source is newer than the last one: the browser suites
 * share it instead of building once each.
 */
export function ensureWebBuild(): void {
  const web = path.join(ROOT, 'web');
  const built = (() => {
    try {
      return statSync(path.join(web, 'dist', 'index.html')).mtimeMs;
    } catch {
      return 0;
    }
  })();
  const sources = Math.max(newest(path.join(web, 'src')), newest(path.join(web, 'index.html')), newest(path.join(web, 'vite.config.ts')), newest(path.join(web, 'package.json')));
  if (built > sources) return;
  execFileSync('npx', ['vite', 'build', '--logLevel', 'error'], { cwd: web, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** `env`: settings a suite needs on top of these (a local webhook receiver, say). */
export async function startServer(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-e2e-'));
  const port = await freePort();
  const database = /^postgres/.test(process.env.DATABASE_URL ?? '') ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    DEMO_DATA: '1',
    ADMIN_PASSWORD,
    LOG_LEVEL: 'warn',
    // The offline provider never fails by itself: the first fission image does, so the browser
    // test sees a failed image and retries it. Task images are not counted, so the earlier
    // flows get every image.
    LOCAL_PROVIDER_IMAGE_FAILURES: 'fission:1',
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...extraEnv,
  };
  let output = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (output += b.toString()));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${url}/api/v1/openapi.json`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start within 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }

  return {
    url,
    dataDir,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const forced = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(forced);
      }
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
