import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { countUsers } from '../../src/modules/users/repository.js';
import { freshPostgresDatabase, startTestServer, usingPostgres, type TestServer } from '../helpers/server.js';

describe('bootstrap with ADMIN_USERNAME, ADMIN_EMAIL and DEMO_DATA=1', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { DEMO_DATA: '1', ADMIN_USERNAME: 'chief', ADMIN_EMAIL: 'chief@example.com' } });
    const login = await server.request('POST', '/api/v1/auth/login', { body: { username: 'chief', password: 'initial-admin-pass' } });
    expect(login.status, login.text).toBe(200);
    expect(login.body.data.user).toMatchObject({ username: 'chief', email: 'chief@example.com', role: 'admin', must_change_password: true });
    const changed = await server.request('POST', '/api/v1/auth/change-password', {
      token: login.body.data.token,
      body: { current_password: 'initial-admin-pass', new_password: 'chief-password-1' },
    });
    token = changed.body.data.token;
  });
  afterAll(async () => server?.close());

  it('creates the admin in Default and a Demo workspace with a local key and two products', async () => {
    const workspaces = await server.request('GET', '/api/v1/workspaces', { token });
    expect(workspaces.body.data.items.map((w: { slug: string; role: string }) => [w.slug, w.role])).toEqual([
      ['default', 'admin'],
      ['demo', 'admin'],
    ]);
    const demoId = workspaces.body.data.items[1].id;
    const demo = (await server.request('POST', '/api/v1/workspaces/switch', { token, body: { workspace_id: demoId } })).body.data.token;
    const keys = await server.request('GET', '/api/v1/api-keys', { token: demo });
    expect(keys.body.data.items.map((k: { provider: string }) => k.provider)).toEqual(['local']);
    const products = await server.request('GET', '/api/v1/products', { token: demo });
    expect(products.status, products.text).toBe(200);
    expect(products.body.data.total).toBe(2);
    // The default workspace starts empty.
    expect((await server.request('GET', '/api/v1/api-keys', { token })).body.data.total).toBe(0);
  });

  it('does nothing on a database that has users', async () => {
    expect(await bootstrap(server.ctx)).toEqual({ created: false });
    expect(await countUsers(server.ctx.db)).toBe(1);
  });
});

describe('two processes bootstrapping one empty database at the same moment', () => {
  let dataDir: string;
  let dropDb: (() => Promise<void>) | undefined;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'cps-boot-'));
  });
  afterAll(async () => {
    await dropDb?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('create exactly one admin', async () => {
    const env: Record<string, string> = { NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    if (usingPostgres) {
      const db = await freshPostgresDatabase(process.env.DATABASE_URL!);
      env.DATABASE_URL = db.url;
      dropDb = db.drop;
    }
    const first = await createRuntime(loadConfig(env));
    const second = await createRuntime(loadConfig(env), { migrate: false });
    try {
      const results = await Promise.all([bootstrap(first.ctx), bootstrap(second.ctx)]);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      // The one that created it reports the generated password; the other reports nothing.
      expect(results.filter((r) => r.generatedPassword)).toHaveLength(1);
      expect(await countUsers(first.ctx.db)).toBe(1);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
