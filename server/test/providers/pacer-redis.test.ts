import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { redisPacer } from '../../src/providers/pacer-redis.js';
import type { ConnectionBudget, RatePacer } from '../../src/providers/pacer.js';

/**
 * Two pacers with their own Redis connections, as two processes of one deployment, sharing one
 * connection's budget. Redis on 127.0.0.1:6379 (REDIS_URL to point elsewhere); every test has its
 * own key prefix and deletes its keys.
 */
const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
let available = false;
beforeAll(async () => {
  const probe = new Redis(url, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0 });
  probe.on('error', () => {});
  available = await probe
    .ping()
    .then(() => true)
    .catch(() => false);
  probe.disconnect();
});

let opened: RatePacer[] = [];
let prefix = '';
afterEach(async () => {
  const admin = new Redis(url);
  const keys = await admin.keys(`${prefix}:*`);
  if (keys.length) await admin.del(...keys);
  await admin.quit();
  await Promise.all(opened.map((p) => p.close()));
  opened = [];
});

function twoProcesses() {
  prefix = `test-pace-${randomUUID()}`;
  const a = redisPacer(url, prefix);
  const b = redisPacer(url, prefix);
  opened.push(a, b);
  return [a, b] as const;
}

describe('pacer shared through Redis', () => {
  it('two processes together never exceed the connection’s rpm', async (t) => {
    if (!available) t.skip();
    const [a, b] = twoProcesses();
    // 1200 rpm: 20 a second. Each process pushes as fast as it is let through for 1.5 s.
    const budget: ConnectionBudget = { rpm: 1200, tpm: 100_000_000 };
    const started = Date.now();
    const grants: number[] = [];
    const run = async (pacer: RatePacer, party: string, bulk: boolean) => {
      while (Date.now() - started < 1_500) {
        await pacer.acquire('1', budget, { party, bulk, tokens: 0 });
        grants.push(Date.now());
      }
    };
    await Promise.all([run(a, 'batch:1', true), run(a, 'batch:2', true), run(b, 'batch:3', true), run(b, 'ws:1', false)]);
    const inWindow = grants.filter((g) => g - started < 1_500);
    // 1.5 s at 20 a second is 30, plus the burst an interactive call may take (two intervals) and the first grant.
    expect(inWindow.length).toBeLessThanOrEqual(30 + 3);
    expect(inWindow.length).toBeGreaterThanOrEqual(24);
    // Any one second of it holds at most a second's worth (20) plus the burst.
    for (const g of inWindow) expect(inWindow.filter((x) => x >= g && x < g + 1_000).length).toBeLessThanOrEqual(20 + 3);
    const state = await b.state('1');
    expect(state).toMatchObject({ rpm: 1200, tpm: 100_000_000, factor: 1, blocked_until: null });
  });

  it('a 429 seen by one process slows the other', async (t) => {
    if (!available) t.skip();
    const [a, b] = twoProcesses();
    const budget: ConnectionBudget = { rpm: 6000, tpm: 100_000_000 };
    await b.acquire('2', budget, { party: 'ws:1', bulk: false, tokens: 0 });
    await a.rateLimited('2', budget, 400);
    const seen = await b.state('2');
    expect(seen).toMatchObject({ factor: 0.5 });
    expect(seen!.blocked_until).not.toBeNull();
    const started = performance.now();
    await b.acquire('2', budget, { party: 'ws:1', bulk: false, tokens: 0 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
    // At half the rate (3000 rpm: 20 ms apart) b's bulk calls now come slower than before.
    const t0 = performance.now();
    for (let i = 0; i < 6; i++) await b.acquire('2', budget, { party: 'batch:1', bulk: true, tokens: 0 });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(90);
    // Successes in either process raise the shared factor.
    for (let i = 0; i < 10; i++) await a.succeeded('2', budget);
    expect((await b.state('2'))!.factor).toBe(1);
  });

  it('the token meter is shared too', async (t) => {
    if (!available) t.skip();
    const [a, b] = twoProcesses();
    const budget: ConnectionBudget = { rpm: 6000, tpm: 60_000 };
    await a.acquire('3', budget, { party: 'batch:1', bulk: true, tokens: 400 });
    const started = performance.now();
    await b.acquire('3', budget, { party: 'batch:2', bulk: true, tokens: 1 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
  });

  it('keys expire when the connection is idle', async (t) => {
    if (!available) t.skip();
    const [a] = twoProcesses();
    await a.acquire('4', { rpm: 60, tpm: 100_000 }, { party: 'x', bulk: false, tokens: 10 });
    const admin = new Redis(url);
    const ttl = await admin.pttl(`${prefix}:pace:4`);
    await admin.quit();
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 2_000);
  });
});
