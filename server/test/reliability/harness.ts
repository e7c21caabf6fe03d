import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freshPostgresDatabase } from '../helpers/server.js';
import { spawnService, type ServiceProcess } from '../platform/process.js';
import { openSse, type SseEvent } from '../tasks/sse-client.js';

/**
 * The pieces every proof scenario is built from: real service processes (src/main.ts, the code
 * `npm run api|worker|start` runs) sharing one database, a client that speaks the API and follows
 * event streams across reconnects, a fault-injecting proxy, and figures. Only 127.0.0.1.
 */

export const ADMIN_PASSWORD = 'prove-admin-pass-0';
export const ADMIN_NEW_PASSWORD = 'prove-admin-pass-1';
export const API = '/api/v1';
export const PG_BASE = process.env.TEST_POSTGRES_URL || (/^postgres/.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : 'postgres://postgres@127.0.0.1:5432/postgres');
export const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function postgresReachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_BASE, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return undefined;
  } catch (err) {
    return `PostgreSQL at ${PG_BASE} unreachable: ${String(err)}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function redisReachable(): Promise<string | undefined> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (err) {
    return `Redis at ${REDIS_URL} unreachable: ${String(err)}`;
  } finally {
    client.disconnect();
  }
}

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  ms: number;
}

export async function call<T = any>(
  base: string,
  method: string,
  p: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: RequestInit['body'] } = {},
): Promise<Response<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body = opts.raw;
  if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(opts.body);
  }
  const started = performance.now();
  const res = await fetch(`${base}${p}`, { method, headers, body: body ?? null });
  const text = await res.text();
  const ms = performance.now() - started;
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the caller looks at `text`
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text, ms };
}

/** `data` of a 200 answer; anything else throws with the answer. */
export async function must<T = any>(base: string, method: string, p: string, token?: string, body?: unknown): Promise<T> {
  const res = await call(base, method, `${API}${p}`, { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) });
  if (res.status !== 200) throw new Error(`${method} ${p} → ${res.status} ${res.text.slice(0, 300)}`);
  return res.body.data as T;
}

export type Role = 'all' | 'api' | 'worker';

export interface Proc {
  role: Role;
  url?: string;
  service: ServiceProcess;
}

/**
 * One deployment: a database (SQLite in a temp DATA_DIR, or a fresh PostgreSQL database), maybe
 * Redis under its own prefix, and any number of processes of each role with the same secrets.
 */
export class Deployment {
  readonly dataDir = mkdtempSync(path.join(tmpdir(), 'cps-prove-'));
  readonly env: Record<string, string>;
  readonly procs: Proc[] = [];
  private dropDb: (() => Promise<void>) | undefined;
  private readonly prefix = `prove-${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly jwtSecret = randomBytes(32).toString('base64url');

  private constructor(
    env: Record<string, string>,
    readonly postgres: boolean,
    readonly redis: boolean,
  ) {
    this.env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATA_DIR: this.dataDir,
      ADMIN_PASSWORD,
      DEMO_DATA: '0',
      JWT_SECRET: this.jwtSecret,
      SECRET_KEY: randomBytes(32).toString('base64url'),
      JOB_QUEUE_PREFIX: this.prefix,
      // The fake providers enforce no per-minute limit and answer at local speed: the scenarios
      // measure the service, not the presets' budgets (pacing has its own tests and bench/batch).
      PROVIDER_RPM: '100000',
      PROVIDER_TPM: '100000000',
      ...env,
    };
  }

  static async create(opts: { postgres?: boolean; redis?: boolean; env?: Record<string, string> } = {}): Promise<Deployment> {
    const d = new Deployment(opts.env ?? {}, Boolean(opts.postgres), Boolean(opts.redis));
    if (opts.postgres) {
      const db = await freshPostgresDatabase(PG_BASE);
      d.env.DATABASE_URL = db.url;
      d.dropDb = db.drop;
    }
    if (opts.redis) d.env.REDIS_URL = REDIS_URL;
    // Migrations once, before the processes start side by side.
    const migrate = spawnService(['--role', 'migrate'], d.env);
    const code = await migrate.exited;
    if (code !== 0) throw new Error(`migrate failed (${code}): ${migrate.stderr()}${migrate.stdout()}`);
    return d;
  }

  async start(role: Role, extraEnv: Record<string, string> = {}, opts: { asShipped?: boolean } = {}): Promise<Proc> {
    const service = spawnService(role === 'all' ? [] : ['--role', role], { ...this.env, ...extraEnv }, opts);
    const proc: Proc = { role, service };
    if (role === 'worker') await service.waitFor(/job worker started/, 60_000);
    else proc.url = (await service.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/, 60_000))[1]!;
    this.procs.push(proc);
    return proc;
  }

  /** kill -9: no shutdown hook runs, exactly as when a machine dies. */
  async kill(proc: Proc): Promise<void> {
    proc.service.child.kill('SIGKILL');
    await proc.service.exited;
    this.procs.splice(this.procs.indexOf(proc), 1);
  }

  async stop(proc: Proc): Promise<void> {
    await proc.service.stop();
    this.procs.splice(this.procs.indexOf(proc), 1);
  }

  /** Lines logged at error level or worse (pino level ≥ 50) by every process so far. */
  errorLines(): string[] {
    return this.procs.flatMap((p) => p.service.stdout().split('\n').filter((l) => /"level":(50|60)/.test(l)));
  }

  async close(): Promise<void> {
    await Promise.all([...this.procs].map((p) => this.stop(p)));
    if (this.redis) {
      const client = new Redis(REDIS_URL);
      const keys = await client.keys(`${this.prefix}:*`);
      if (keys.length) await client.del(...keys);
      client.disconnect();
    }
    await this.dropDb?.();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/**
 * A login as a browser client makes it: a 429 of the login gate (all simulated users share one
 * address, and the gate lets one address hold two password checks) is retried after its
 * Retry-After.
 */
export async function login(base: string, username: string, password: string): Promise<{ token: string }> {
  for (let attempt = 0; ; attempt++) {
    const res = await call(base, 'POST', `${API}/auth/login`, { body: { username, password } });
    if (res.status === 200) return res.body.data as { token: string };
    if (res.status !== 429 || attempt >= 50) throw new Error(`POST /auth/login → ${res.status} ${res.text.slice(0, 300)}`);
    await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
  }
}

/** Logs the bootstrapped admin in (changing the forced password) and returns the token. */
export async function adminToken(base: string): Promise<string> {
  const login_ = await login(base, 'admin', ADMIN_PASSWORD);
  const changed = await must(base, 'POST', '/auth/change-password', login_.token, { current_password: ADMIN_PASSWORD, new_password: ADMIN_NEW_PASSWORD });
  return changed.token as string;
}

/** A user of the admin's workspace with a role, password already changed. */
export async function userWithRole(base: string, admin: string, username: string, role: string): Promise<{ id: number; token: string }> {
  const user = await must(base, 'POST', '/users', admin, { username, email: `${username}@example.com`, password: 'first-password-1', role });
  const first = await login(base, username, 'first-password-1');
  const changed = await must(base, 'POST', '/auth/change-password', first.token, { current_password: 'first-password-1', new_password: 'second-password-2' });
  return { id: user.id, token: changed.token };
}

export const TERMINAL = new Set(['pending_selection', 'failed', 'pending_review', 'approved', 'rejected', 'archived']);

/**
 * Follows one task's events to `done` like a browser would: a fresh ticket per connection,
 * reconnecting with Last-Event-ID after any cut. Records what arrived, in order.
 */
export class TaskFollower {
  readonly events: SseEvent[] = [];
  reconnects = 0;
  private current: { close(): void } | undefined;
  private stopped = false;

  constructor(
    private readonly bases: () => string,
    private readonly token: string,
    readonly taskId: number,
  ) {}

  get lastSeq(): number {
    return this.events.at(-1)?.id ?? 0;
  }

  /** Resolves when `done` arrived (or `stop()` was called); never rejects, retries instead. */
  async run(deadline: number): Promise<boolean> {
    while (!this.stopped && Date.now() < deadline) {
      try {
        const base = this.bases();
        const ticket = await must(base, 'POST', `/tasks/${this.taskId}/sse-ticket`, this.token);
        const stream = await openSse(`${base}${API}/tasks/${this.taskId}/stream?ticket=${ticket.ticket}`, { 'last-event-id': String(this.lastSeq) });
        if (stream.status !== 200) throw new Error(`stream ${stream.status}`);
        this.current = stream;
        let done = false;
        const seen = stream.events;
        let read = 0;
        const drain = () => {
          for (; read < seen.length; read++) {
            this.events.push(seen[read]!);
            if (seen[read]!.event === 'done') done = true;
          }
        };
        await Promise.race([stream.ended, stream.waitFor(() => (drain(), done), Math.max(1, deadline - Date.now())).catch(() => undefined)]);
        drain();
        stream.close();
        if (done) return true;
      } catch {
        // The API is restarting or the connection broke: wait and reconnect where we left off.
      }
      if (this.stopped) break;
      this.reconnects++;
      await sleep(200);
    }
    return false;
  }

  stop(): void {
    this.stopped = true;
    this.current?.close();
  }

  /** Gaps, duplicates and disorder against the stored sequence (1..n, exactly once each). */
  problems(stored: Array<{ seq: number; name: string }>): string[] {
    const out: string[] = [];
    const ids = this.events.map((e) => e.id);
    for (let i = 0; i < ids.length; i++) if (ids[i] !== i + 1) {
      out.push(`task ${this.taskId}: event #${i + 1} has seq ${ids[i]}`);
      break;
    }
    const upTo = this.lastSeq;
    const expected = stored.filter((e) => e.seq <= upTo);
    if (expected.length !== ids.length) out.push(`task ${this.taskId}: saw ${ids.length} events, ${expected.length} stored up to seq ${upTo}`);
    for (const [i, e] of this.events.entries()) {
      if (expected[i] && expected[i]!.name !== e.event) {
        out.push(`task ${this.taskId}: seq ${e.id} is ${e.event}, stored ${expected[i]!.name}`);
        break;
      }
    }
    return out;
  }
}

/** Stored events of a task straight from the database, the reference a client is checked against. */
export async function storedEvents(d: Deployment, taskId: number): Promise<Array<{ seq: number; name: string }>> {
  if (d.postgres) {
    const client = new pg.Client({ connectionString: d.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT seq, name FROM task_events WHERE task_id = $1 ORDER BY seq', [taskId]);
      return rows;
    } finally {
      await client.end();
    }
  }
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Sqlite(path.join(d.dataDir, 'app.sqlite'), { fileMustExist: true });
  try {
    return db.prepare('SELECT seq, name FROM task_events WHERE task_id = ? ORDER BY seq').all(taskId) as Array<{ seq: number; name: string }>;
  } finally {
    db.close();
  }
}

/** Runs one SQL query against the deployment's database (counts for the checks). */
export async function query<T = any>(d: Deployment, sqlText: string, params: unknown[] = []): Promise<T[]> {
  if (d.postgres) {
    const client = new pg.Client({ connectionString: d.env.DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(sqlText, params)).rows as T[];
    } finally {
      await client.end();
    }
  }
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Sqlite(path.join(d.dataDir, 'app.sqlite'), { fileMustExist: true });
  try {
    return db.prepare(sqlText.replace(/\$\d+/g, '?')).all(...(params as unknown[])) as T[];
  } finally {
    db.close();
  }
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export interface ChaosProxy {
  url: string;
  /** Share of requests that get a fault (0..1). */
  faultRate: number;
  injected: { '429': number; '500': number; timeout: number };
  passed: number;
  inFlight: number;
  /** Requests received so far, answered or not. */
  started: number;
  /** Each answered request: when (ms since the epoch) and its path. */
  answered: Array<{ at: number; path: string }>;
  close(): Promise<void>;
}

/**
 * Sits in front of the fake provider and answers a share of requests with 429, 500 or silence
 * (the client's timeout fires), chosen at random per request; the rest are forwarded as they are.
 */
export async function startChaosProxy(target: string, faultRate: number): Promise<ChaosProxy> {
  const upstream = new URL(target);
  const hanging = new Set<IncomingMessage>();
  const proxy: ChaosProxy = {
    url: '',
    faultRate,
    injected: { '429': 0, '500': 0, timeout: 0 },
    passed: 0,
    inFlight: 0,
    started: 0,
    answered: [],
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    proxy.inFlight++;
    proxy.started++;
    res.on('close', () => {
      proxy.inFlight--;
      proxy.answered.push({ at: Date.now(), path: req.url ?? '' });
    });
    if (Math.random() < proxy.faultRate) {
      const fault = (['429', '500', 'timeout'] as const)[Math.floor(Math.random() * 3)]!;
      proxy.injected[fault]++;
      req.resume();
      if (fault === 'timeout') {
        hanging.add(req);
        res.on('close', () => hanging.delete(req));
        return;
      }
      res.writeHead(Number(fault), { 'content-type': 'application/json', ...(fault === '429' ? { 'retry-after-ms': '50' } : {}) });
      res.end(JSON.stringify({ error: { message: `injected ${fault}` } }));
      return;
    }
    proxy.passed++;
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: `${upstream.pathname.replace(/\/$/, '')}${req.url!.replace(/^\/v1/, '')}`, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  proxy.close = () =>
    new Promise<void>((r) => {
      for (const req of hanging) req.socket.destroy();
      server.closeAllConnections();
      server.close(() => r());
    });
  return proxy;
}

export interface ScenarioResult {
  scenario: string;
  load: string;
  faults: string;
  badInputs: string;
  lostData: string;
  failures: number;
  notes: string[];
  skipped?: string;
}
