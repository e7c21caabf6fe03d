import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GateFull, WorkGate } from '../../src/security/work-gate.js';
import { describeOncePerCi, startTestServer, userWithRole, type TestServer } from '../helpers/server.js';

/**
 * Issue 28, finding 7: logins under load. Password hashing is admitted through a small gate
 * (LOGIN_HASH_SLOTS running, LOGIN_HASH_QUEUE waiting, LOGIN_HASH_PER_CLIENT per address); the
 * service's own counter `cps_password_hashes_total` (GET /metrics) says how many hashes ran.
 */
describe('the gate itself', () => {
  /** Work that finishes when the test says so. */
  const held = () => {
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    return { work: () => done, finish };
  };

  it('runs `slots` at once, queues `waiting`, refuses beyond, and hands the slot on in order', async () => {
    const gate = new WorkGate({ slots: 1, waiting: 1, perClient: 5 });
    const order: string[] = [];
    const first = held();
    const a = gate.run('a', undefined, async () => (order.push('a'), first.work()));
    const b = gate.run('b', undefined, async () => void order.push('b'));
    await expect(gate.run('c', undefined, async () => void order.push('c'))).rejects.toBeInstanceOf(GateFull);
    expect(order).toEqual(['a']);
    first.finish();
    await Promise.all([a, b]);
    expect(order).toEqual(['a', 'b']);
  });

  it('one client holds at most perClient places; a waiter whose client left never runs', async () => {
    const gate = new WorkGate({ slots: 1, waiting: 10, perClient: 2 });
    const first = held();
    const ran: string[] = [];
    const a = gate.run('same', undefined, first.work);
    const leaving = new AbortController();
    const b = gate.run('same', leaving.signal, async () => void ran.push('b'));
    await expect(gate.run('same', undefined, async () => void ran.push('c'))).rejects.toBeInstanceOf(GateFull);
    const other = gate.run('other', undefined, async () => void ran.push('other'));
    leaving.abort();
    await expect(b).rejects.toBeDefined();
    first.finish();
    await Promise.all([a, other]);
    expect(ran).toEqual(['other']);
  });
});

// Production hash cost: six users made at 180 ms a hash, seconds apiece on a busy machine.
describeOncePerCi('logins through the HTTP API', { timeout: 90_000 }, () => {
  let server: TestServer;
  let user: { token: string; id: number };

  beforeAll(async () => {
    // The production hash cost: a login must take long enough to hold its slot while others queue.
    server = await startTestServer({
      worker: false,
      env: { LOGIN_HASH_SLOTS: '1', LOGIN_HASH_QUEUE: '1', LOGIN_HASH_PER_CLIENT: '2', RATE_LIMIT_PER_MINUTE: '100000', PASSWORD_HASH_COST: '15' },
    });
    user = await userWithRole(server, 'real-user', 'operator');
  });
  afterAll(async () => server?.close());

  const hashes = async () => {
    const text = (await server.request('GET', '/metrics')).text;
    return Number(/^cps_password_hashes_total (\d+)/m.exec(text)?.[1] ?? NaN);
  };
  const login = (username: string, password: string) => server.request('POST', '/api/v1/auth/login', { body: { username, password } });

  it('a flood of unknown usernames runs no hash and leaves the real user a slot', async () => {
    const before = await hashes();
    const flood = Array.from({ length: 40 }, (_, i) => login(`nobody-${i}`, 'wrong-password-1'));
    const real = await login('real-user', 'second-password-2');
    expect(real.status, real.text).toBe(200);
    const answers = await Promise.all(flood);
    expect(new Set(answers.map((r) => `${r.status}/${r.body.code}`))).toEqual(new Set(['401/40102']));
    expect((await hashes()) - before).toBe(1);
  });

  it('beyond the line a login is refused at once with 429 / 42900 and Retry-After, never queued without bound', async () => {
    const names = ['flood-a', 'flood-b', 'flood-c', 'flood-d', 'flood-e', 'flood-f'];
    for (const n of names) await userWithRole(server, n, 'operator');
    const answers = await Promise.all(names.map((n) => login(n, 'wrong-password-1')));
    const statuses = answers.map((r) => `${r.status}/${r.body.code}`);
    // One slot, one place in line, two per client: of six at once, at most two are checked.
    expect(statuses.filter((s) => s === '401/40102').length).toBeLessThanOrEqual(2);
    expect(statuses.filter((s) => s === '429/42900').length).toBeGreaterThanOrEqual(4);
    for (const r of answers.filter((a) => a.status === 429)) {
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body.message).toMatch(/too many logins in progress/);
    }
    expect((await login('real-user', 'second-password-2')).status).toBe(200);
  });

  it('a login whose client went away while waiting is never hashed', async () => {
    const before = await hashes();
    // The first takes the slot; the second waits, and its client leaves.
    const first = login('flood-a', 'wrong-password-1');
    const leaving = http.request(`${server.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    leaving.on('error', () => undefined);
    leaving.end(JSON.stringify({ username: 'flood-b', password: 'wrong-password-1' }));
    // Once it waits behind the first (the service's own gauge says so), its client gives up.
    while (!/^cps_login_checks_waiting 1$/m.test((await server.request('GET', '/metrics')).text)) await new Promise((r) => setImmediate(r));
    leaving.destroy();
    expect((await first).status).toBe(401);
    expect(await hashes()).toBe(before + 1);
    expect((await server.request('GET', '/metrics')).text).toMatch(/^cps_login_checks_waiting 0$/m);
  });

  it('a hash made with other parameters is replaced at login', async () => {
    // A hash of the same password at half today's cost, as an older release stored it.
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.alloc(16, 7);
    const key = scryptSync('second-password-2', salt, 32, { N: 16384, r: 8, p: 1 });
    const old = ['scrypt', 16384, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
    await server.ctx.db.updateTable('users').set({ password_hash: old }).where('id', '=', user.id).execute();
    expect((await login('real-user', 'second-password-2')).status).toBe(200);
    const stored = (await server.ctx.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow()).password_hash;
    expect(stored.split('$').slice(0, 4)).toEqual(['scrypt', '32768', '8', '1']);
    expect((await login('real-user', 'second-password-2')).status).toBe(200);
  });
});
