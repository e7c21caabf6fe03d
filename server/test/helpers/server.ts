import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { buildApp, type App } from '../../src/app.js';
import { AdjustableClock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { createRuntime } from '../../src/runtime.js';
import { bootstrap } from '../../src/bootstrap.js';

export const ADMIN_PASSWORD = 'initial-admin-pass';
export const ADMIN_NEW_PASSWORD = 'changed-admin-pass-1';

/** PostgreSQL when DATABASE_URL says so (CI runs the whole suite a second time that way). */
export const usingPostgres = /^postgres/.test(process.env.DATABASE_URL ?? '');

/** A fresh PostgreSQL database per test server, created on the server DATABASE_URL names. */
export async function freshPostgresDatabase(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `cps_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      // pg's pool.end() resolves before its sockets have closed; FORCE at once would kill
      // them mid-goodbye and surface as an unhandled 57P01 error. Give them a moment first.
      for (let i = 0; i < 40; i++) {
        const { rows } = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestServer {
  url: string;
  app: App;
  ctx: AppContext;
  clock: AdjustableClock;
  config: Config;
  dataDir: string;
  logs: string[];
  request<T = any>(method: string, path: string, opts?: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: RequestInit['body'] }): Promise<Response<T>>;
  /** Logs in as the bootstrapped admin (changing the forced password on first use). */
  adminToken(): Promise<string>;
  close(): Promise<void>;
}

export async function startTestServer(
  // `worker: false`: enqueued jobs stay queued (nothing runs them in this server).
  opts: { env?: Record<string, string>; dataDir?: string; keepData?: boolean; worker?: boolean } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'cps-test-'));
  const pgDb = usingPostgres && !opts.env?.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'info',
    ...(pgDb ? { DATABASE_URL: pgDb.url } : {}),
    ...opts.env,
  });
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const clock = new AdjustableClock();
  const runtime = await createRuntime(config, { clock, logDestination, worker: opts.worker ?? true });
  await bootstrap(runtime.ctx);
  const app = await buildApp(runtime.ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';

  let adminToken: string | undefined;
  const server: TestServer = {
    url,
    app,
    ctx: runtime.ctx,
    clock,
    config,
    dataDir,
    logs,
    async request(method, p, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: RequestInit['body'] = o.raw;
      if (o.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = JSON.stringify(o.body);
      }
      const res = await fetch(`${url}${p}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: leave the text
      }
      return { status: res.status, headers: res.headers, body: parsed as any, text };
    },
    async adminToken() {
      if (adminToken) return adminToken;
      const login = await server.request('POST', '/api/v1/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
      if (login.status !== 200) throw new Error(`admin login failed: ${login.text}`);
      const changed = await server.request('POST', '/api/v1/auth/change-password', {
        token: login.body.data.token,
        body: { current_password: ADMIN_PASSWORD, new_password: ADMIN_NEW_PASSWORD },
      });
      if (changed.status !== 200) throw new Error(`admin password change failed: ${changed.text}`);
      adminToken = changed.body.data.token as string;
      return adminToken;
    },
    async close() {
      await app.close();
      await runtime.close();
      await pgDb?.drop();
      if (!opts.keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/**
 * Creates a user with a role in the admin's current workspace and returns a ready token
 * (password already changed).
 */
export async function userWithRole(server: TestServer, username: string, role: 'admin' | 'supervisor' | 'operator'): Promise<{ token: string; id: number }> {
  const admin = await server.adminToken();
  const created = await server.request('POST', '/api/v1/users', {
    token: admin,
    body: { username, email: `${username}@example.com`, password: 'first-password-1', role },
  });
  if (created.status !== 200) throw new Error(`create ${username} failed: ${created.text}`);
  const login = await server.request('POST', '/api/v1/auth/login', { body: { username, password: 'first-password-1' } });
  const changed = await server.request('POST', '/api/v1/auth/change-password', {
    token: login.body.data.token,
    body: { current_password: 'first-password-1', new_password: 'second-password-2' },
  });
  if (changed.status !== 200) throw new Error(`password change of ${username} failed: ${changed.text}`);
  return { token: changed.body.data.token, id: created.body.data.id };
}
