import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { AdjustableClock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { authenticate, type AuthUser } from '../../src/http/auth.js';
import { issueToken } from '../../src/modules/auth/service.js';
import { listMembershipsOfUser } from '../../src/modules/memberships/service.js';
import { findUserByUsername } from '../../src/modules/users/service.js';
import { openDatabase, sqliteFile } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createRuntime } from '../../src/runtime.js';
import { bootstrap } from '../../src/bootstrap.js';
import { freshPostgresDatabase } from './postgres.js';

export { freshPostgresDatabase };

export const ADMIN_PASSWORD = 'initial-admin-pass';
export const ADMIN_NEW_PASSWORD = 'changed-admin-pass-1';

/** PostgreSQL when DATABASE_URL says so (CI runs the whole suite a second time that way). */
export const usingPostgres = /^postgres/.test(process.env.DATABASE_URL ?? '');

/**
 * For tests whose subject is a process, a thread, the CLI or a database they choose themselves,
 * not the SQL of the configured one: they run once, in the SQLite pass. The PostgreSQL pass
 * repeats what talks to the configured database; real processes on PostgreSQL + Redis (kill -9,
 * several APIs and workers, restarts) are what `npm run prove` runs in CI.
 */
export const describeOncePerCi = describe.skipIf(usingPostgres);

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * What a service-level test needs: the services of one process (ctx) on a database of its own
 * with the bootstrapped admin, and no HTTP server. For tests whose subject is not HTTP.
 */
export interface TestWorld {
  ctx: AppContext;
  clock: AdjustableClock;
  config: Config;
  dataDir: string;
  logs: string[];
  /** The bootstrapped admin in the Default workspace, as a route would see them. */
  admin(): Promise<AuthUser>;
  close(): Promise<void>;
}

export interface TestWorldOptions {
  env?: Record<string, string>;
  dataDir?: string;
  keepData?: boolean;
  // `worker: false`: enqueued jobs stay queued (nothing runs them in this process).
  worker?: boolean;
  /** Answers the service's name lookups for outbound connections (a resolver the test controls). */
  resolve?: (hostname: string) => Promise<string[]>;
}

export interface TestServer extends TestWorld {
  url: string;
  app: App;
  request<T = any>(method: string, path: string, opts?: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: RequestInit['body'] }): Promise<Response<T>>;
  /** Logs in as the bootstrapped admin (changing the forced password on first use). */
  adminToken(): Promise<string>;
}

let migratedTemplate: Promise<string> | undefined;

/**
 * An empty SQLite database with every migration applied, made once per process: a test server
 * starts from a copy (a file copy, not 27 migrations). The migrations themselves are tested on
 * their own (helpers/migration.ts).
 */
function migratedSqlite(): Promise<string> {
  migratedTemplate ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cps-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const database = openDatabase({ dataDir: dir });
    await migrateToLatest(database.db);
    // Closing the only connection checkpoints the WAL into the file, so the file alone is whole.
    await database.close();
    return sqliteFile(dir);
  })();
  return migratedTemplate;
}

export async function startTestWorld(opts: TestWorldOptions = {}): Promise<TestWorld> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'cps-test-'));
  const pgDb = usingPostgres && !opts.env?.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'info',
    // Every server bootstraps an admin and most tests log in and make users: at the production
    // cost each of those hashes takes 180 ms of a core. Tests of hashing itself set 15 again.
    PASSWORD_HASH_COST: '10',
    // Tests poll the API while jobs run (every 25 ms), which on a busy machine spends a minute's
    // budget; the limit itself is tested with its own figure (platform/rate-limit).
    RATE_LIMIT_PER_MINUTE: '100000',
    // Fake providers answer at local speed: connections without their own rpm/tpm are not held
    // to the presets' per-minute budgets; pacing is tested with its own figures (providers/pacer).
    PROVIDER_RPM: '100000',
    PROVIDER_TPM: '100000000',
    ...(pgDb ? { DATABASE_URL: pgDb.url } : {}),
    ...opts.env,
  });
  if (opts.resolve) config.outbound.resolve = opts.resolve;
  if (!opts.dataDir && !config.databaseUrl) copyFileSync(await migratedSqlite(), sqliteFile(dataDir));
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
  return {
    ctx: runtime.ctx,
    clock,
    config,
    dataDir,
    logs,
    async admin() {
      // The session a token of the admin's carries, read the way every request reads it.
      const user = (await findUserByUsername(runtime.ctx.db, config.admin.username))!;
      const [workspace] = await listMembershipsOfUser(runtime.ctx.db, user.id);
      const token = await issueToken(runtime.ctx, user, { workspaceId: workspace!.id, role: workspace!.role, sessionVersion: workspace!.session_version });
      return authenticate(runtime.ctx, token);
    },
    async close() {
      await runtime.close();
      await pgDb?.drop();
      if (!opts.keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A world with the HTTP API listening on a free port. */
export async function startTestServer(opts: TestWorldOptions = {}): Promise<TestServer> {
  const world = await startTestWorld(opts);
  const app = await buildApp(world.ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';

  let adminToken: string | undefined;
  const server: TestServer = {
    ...world,
    url,
    app,
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
      await world.close();
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
