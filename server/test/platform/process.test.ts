import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOncePerCi, freshPostgresDatabase, usingPostgres } from '../helpers/server.js';
import { call, runCli, spawnService, startService, type ServiceProcess } from './process.js';

/** The real process: first start, restart, CLI, production checks and SIGTERM. */
// Each spawn loads TypeScript through tsx and migrates: seconds apiece on a busy two-core machine.
describeOncePerCi('service process', { timeout: 120_000 }, () => {
  let dataDir: string;
  let env: Record<string, string>;
  let dropDb: (() => Promise<void>) | undefined;
  let running: ServiceProcess | undefined;
  let generated: string;
  let token: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'cps-proc-'));
    env = { DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'info' };
    if (usingPostgres) {
      const db = await freshPostgresDatabase(process.env.DATABASE_URL!);
      env.DATABASE_URL = db.url;
      dropDb = db.drop;
    }
  });
  afterAll(async () => {
    await running?.stop();
    await dropDb?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts on an empty DATA_DIR: generates secrets (0600) and prints the admin password once', async () => {
    const { proc, url } = await startService(env);
    running = proc;
    const match = /created admin "admin" with password (\S+)/.exec(proc.stdout());
    expect(match, proc.stdout()).not.toBeNull();
    generated = match![1]!;
    expect(proc.stdout().split(generated)).toHaveLength(2);
    for (const name of ['jwt_secret', 'secret_key']) {
      const file = path.join(dataDir, 'secrets', name);
      expect(statSync(file).mode & 0o777, name).toBe(0o600);
    }

    const login = await call(url, 'POST', '/api/v1/auth/login', { body: { username: 'admin', password: generated } });
    expect(login.status).toBe(200);
    expect(login.body.data.user.must_change_password).toBe(true);
    const changed = await call(url, 'POST', '/api/v1/auth/change-password', {
      token: login.body.data.token,
      body: { current_password: generated, new_password: 'my-own-password-1' },
    });
    expect(changed.status).toBe(200);
    token = changed.body.data.token;
    expect(await proc.stop()).toBe(0);
    running = undefined;
  });

  it('restarts on the existing DATA_DIR: secrets reused, tokens still valid, no second admin, no password printed', async () => {
    const { proc, url } = await startService(env);
    running = proc;
    expect(proc.stdout()).not.toMatch(/created admin|First start/);
    expect((await call(url, 'GET', '/api/v1/auth/me', { token })).status).toBe(200);
    const users = await call(url, 'GET', '/api/v1/users', { token });
    expect(users.body.data.total).toBe(1);
    expect((await call(url, 'POST', '/api/v1/auth/login', { body: { username: 'admin', password: generated } })).status).toBe(401);
    expect((await call(url, 'POST', '/api/v1/auth/login', { body: { username: 'admin', password: 'my-own-password-1' } })).status).toBe(200);
  });

  it('on SIGTERM stops accepting connections, finishes the request in flight, then exits 0', async () => {
    const proc = running!;
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(proc.stdout())![1]);
    const body = JSON.stringify({ username: 'admin', password: 'in-flight-wrong-password' });
    const socket = connect(port, '127.0.0.1');
    let response = '';
    socket.on('data', (chunk) => (response += String(chunk)));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 300));

    proc.child.kill('SIGTERM');
    await proc.waitFor(/shutting down/);
    await new Promise((r) => setTimeout(r, 300));
    // Still draining: the process is alive, but new connections are refused.
    expect(proc.child.exitCode).toBeNull();
    const refused = await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`).then(
      () => false,
      () => true,
    );
    expect(refused).toBe(true);

    // The rest of the body, and a second request pipelined on the same kept-alive connection.
    socket.write(`${body.slice(10)}GET /api/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await closed;
    const [first, second] = response.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 401/);
    expect(first).toContain('"code":40102');
    // Accepted during the drain: turned away in the envelope, with the connection closed.
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second).toMatch(/connection: close/i);
    expect(second).toContain('"code":50300');
    expect(await proc.exited).toBe(0);
    running = undefined;
  });

  it('CLI create-user and reset-password work against the same database', async () => {
    const created = await runCli(['create-user', '--username', 'carol', '--email', 'carol@example.com', '--role', 'supervisor'], env);
    expect(created.code, created.stderr).toBe(0);
    const carolPassword = /password: (\S+)/.exec(created.stdout)![1]!;
    const reset = await runCli(['reset-password', '--username', 'admin'], env);
    expect(reset.code, reset.stderr).toBe(0);
    const adminPassword = /password: (\S+)/.exec(reset.stdout)![1]!;

    const duplicate = await runCli(['create-user', '--username', 'carol', '--email', 'c2@example.com'], env);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/not available/);
    // Bad arguments are refused before the database is touched.
    const short = await runCli(['reset-password', '--username', 'carol', '--password', 'short'], env);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/10 characters/);
    const badOption = await runCli(['create-user', '--username', 'dave', '--emial', 'd@example.com'], env);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toMatch(/emial[\s\S]*usage/);
    expect((await runCli(['drop-everything'], env)).code).toBe(2);

    const { proc, url } = await startService(env);
    running = proc;
    const carol = await call(url, 'POST', '/api/v1/auth/login', { body: { username: 'carol', password: carolPassword } });
    expect(carol.status).toBe(200);
    expect(carol.body.data.user).toMatchObject({ role: 'supervisor', must_change_password: true });
    // The reset bumped the admin's token version and forces a new change.
    expect((await call(url, 'GET', '/api/v1/auth/me', { token })).body.code).toBe(40101);
    const admin = await call(url, 'POST', '/api/v1/auth/login', { body: { username: 'admin', password: adminPassword } });
    expect(admin.body.data.user.must_change_password).toBe(true);
    expect(await proc.stop()).toBe(0);
    running = undefined;
  });
});

describeOncePerCi('NODE_ENV=production', { timeout: 60_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'cps-prod-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses to start without JWT_SECRET or SECRET_KEY, with a clear message, generating nothing', async () => {
    const noJwt = spawnService([], { DATA_DIR: dataDir, NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(40) });
    expect(await noJwt.exited).toBe(1);
    expect(noJwt.stderr()).toMatch(/JWT_SECRET must be set when NODE_ENV=production/);
    const noKey = spawnService([], { DATA_DIR: dataDir, NODE_ENV: 'production', JWT_SECRET: 'j'.repeat(40) });
    expect(await noKey.exited).toBe(1);
    expect(noKey.stderr()).toMatch(/SECRET_KEY must be set when NODE_ENV=production/);
    expect(existsSync(path.join(dataDir, 'secrets'))).toBe(false);
  });
});
