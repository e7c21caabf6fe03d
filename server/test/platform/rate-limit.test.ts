import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase, startTestServer, userWithRole, usingPostgres, type TestServer } from '../helpers/server.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

describe('personal access tokens under the general rate limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '6' } });
  });
  afterAll(async () => server?.close());

  it("a personal access token spends its user's budget, shared with the user's session (contract-decisions §13)", async () => {
    // carol's change-password and the token's creation count; four more fit the budget of six.
    const carol = await userWithRole(server, 'carol', 'operator');
    const made = await server.request('POST', '/api/v1/auth/tokens', { token: carol.token, body: { name: '脚本', scopes: ['read'] } });
    expect(made.status, made.text).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await server.request('GET', '/api/v1/auth/me', { token: made.body.data.token })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect((await server.request('GET', '/api/v1/auth/me', { token: carol.token })).status).toBe(429);
  });
});

describe('general rate limit (RATE_LIMIT_PER_MINUTE per user)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '6' } });
  });
  afterAll(async () => server?.close());

  it('answers 429 / 42900 with Retry-After once a user spent the budget; others keep theirs', async () => {
    // userWithRole spends requests of its own (admin: login + change-password + create; user: login + change-password).
    const alice = await userWithRole(server, 'alice', 'operator');
    const bob = await userWithRole(server, 'bob', 'operator');
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 8; i++) {
      const res = await server.request('GET', '/api/v1/auth/me', { token: alice.token });
      statuses.push(res.status);
      if (res.status === 429) {
        limited = res;
        break;
      }
    }
    // alice's change-password counted once; five more fit the budget of six.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(limited!.body).toEqual({ code: 42900, message: expect.stringMatching(/retry in \d+ s/), reason: 'rate.limited', params: { max: 6, seconds: expect.any(Number) } });
    const retryAfter = Number(limited!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Malformed requests count too (the limit runs before body parsing).
    const bad = await server.request('POST', '/api/v1/workspaces/switch', {
      token: alice.token,
      headers: { 'content-type': 'application/json' },
      raw: '{not json',
    });
    expect(bad.status).toBe(429);
    expect((await server.request('GET', '/api/v1/auth/me', { token: bob.token })).status).toBe(200);
  });

  it('requests with a forged, expired or missing token count per address (finding 3 of issue 17)', async () => {
    const carol = await userWithRole(server, 'carol', 'operator');
    const statuses: number[] = [];
    for (let i = 0; i < 10 && !statuses.includes(429); i++) {
      const token = i % 3 === 0 ? 'forged.token.value' : i % 3 === 1 ? `${carol.token.slice(0, -2)}xx` : undefined;
      const res = await server.request('GET', '/api/v1/auth/me', token ? { token } : {});
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body.code).toBe(42900);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }
    // The logins above spent part of 127.0.0.1's budget of six; the rest goes to refused tokens.
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // The address is limited, a valid token is not: its budget is the user's own.
    expect((await server.request('GET', '/api/v1/auth/me', { token: carol.token })).status).toBe(200);
    // A known user's refusals (role too low) count against that user.
    const refused: number[] = [];
    for (let i = 0; i < 8 && !refused.includes(429); i++) refused.push((await server.request('GET', '/api/v1/users', { token: carol.token })).status);
    expect(refused).toEqual([403, 403, 403, 403, 429]);
  });
});

describe('with REDIS_URL the budget is shared by every API process', () => {
  let available = false;
  let a: TestServer | undefined;
  let b: TestServer | undefined;
  let dataDir: string;
  let dropDb: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    available = await redisReachable(REDIS_URL);
    if (!available) {
      if (process.env.CI === 'true') throw new Error(`Redis is required in CI but ${REDIS_URL} is not reachable`);
      console.warn(`skipping the shared rate-limit test: Redis not reachable at ${REDIS_URL}`);
      return;
    }
    // Two API servers of one deployment: same database, same secrets, same Redis.
    dataDir = mkdtempSync(path.join(tmpdir(), 'cps-rl-'));
    const env: Record<string, string> = { RATE_LIMIT_PER_MINUTE: '5', REDIS_URL };
    if (usingPostgres) {
      const db = await freshPostgresDatabase(process.env.DATABASE_URL!);
      env.DATABASE_URL = db.url;
      dropDb = db.drop;
    }
    a = await startTestServer({ env, dataDir });
    b = await startTestServer({ env, dataDir });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await dropDb?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts requests to either process against one budget', async (ctx) => {
    if (!available) return ctx.skip();
    const token = await a!.adminToken(); // change-password counts 1 for the admin
    const statuses = [
      (await a!.request('GET', '/api/v1/auth/me', { token })).status,
      (await a!.request('GET', '/api/v1/auth/me', { token })).status,
      (await b!.request('GET', '/api/v1/auth/me', { token })).status,
      (await b!.request('GET', '/api/v1/auth/me', { token })).status,
    ];
    expect(statuses).toEqual([200, 200, 200, 200]);
    // Each process alone has seen at most 3 requests; together 5 — the sixth is over.
    const over = await b!.request('GET', '/api/v1/auth/me', { token });
    expect(over.status).toBe(429);
    expect(over.body.code).toBe(42900);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await a!.request('GET', '/api/v1/auth/me', { token })).status).toBe(429);
  });
});
