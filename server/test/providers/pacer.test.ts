import { afterEach, describe, expect, it } from 'vitest';
import { providerSettingsFrom } from '../../src/config.js';
import { createProviderFactory, paceAccount, paceOf } from '../../src/providers/factory.js';
import { memoryPacer, PACING, type ConnectionBudget, type RatePacer } from '../../src/providers/pacer.js';
import { Semaphore } from '../../src/providers/reliability.js';
import { startFakeOpenAI, type FakeOpenAI } from '../generation/fake-openai.js';

/**
 * The in-memory pacer on short real intervals (rpm of 600-1200: one request every 50-100 ms), so
 * every test is about what order and spacing the grants come in, not about a minute going by.
 */
const bulk = (party: string, tokens = 0, signal?: AbortSignal) => ({ party, bulk: true, tokens, signal });
const interactive = (tokens = 0, signal?: AbortSignal) => ({ party: 'interactive', bulk: false, tokens, signal });

let pacer: RatePacer;
afterEach(async () => {
  await pacer?.close();
});

describe('in-memory pacer', () => {
  it('paces a connection to its rpm', async () => {
    pacer = memoryPacer();
    const budget: ConnectionBudget = { rpm: 1200, tpm: 100_000_000 };
    const started = performance.now();
    const at: number[] = [];
    await Promise.all(Array.from({ length: 10 }, () => pacer.acquire('1', budget, bulk('batch:1')).then(() => at.push(performance.now() - started))));
    // 50 ms per request: the first at once, the tenth 450 ms later; never two closer than the interval allows.
    expect(at[0]).toBeLessThan(30);
    expect(at[9]).toBeGreaterThanOrEqual(430);
    expect(at[9]).toBeLessThan(900);
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(40);
  });

  it('a connection without a budget (the offline provider) is not paced', async () => {
    pacer = memoryPacer();
    const started = performance.now();
    await Promise.all(Array.from({ length: 50 }, () => pacer.acquire('2', null, bulk('batch:1'))));
    expect(performance.now() - started).toBeLessThan(50);
    expect(await pacer.state('2')).toBeNull();
  });

  it('tpm stops the call after a big one until its tokens have accrued', async () => {
    pacer = memoryPacer();
    // 60 000 tokens a minute: one token a millisecond.
    const budget: ConnectionBudget = { rpm: 6000, tpm: 60_000 };
    const started = performance.now();
    await pacer.acquire('3', budget, bulk('batch:1', 500));
    expect(performance.now() - started).toBeLessThan(30);
    await pacer.acquire('3', budget, bulk('batch:1', 10));
    expect(performance.now() - started).toBeGreaterThanOrEqual(470);
    // A call bigger than the whole budget is counted as the budget: it waits a minute at most, never forever.
    const huge = memoryPacer(undefined, () => 0);
    const answer = await huge.store.take('x', budget, 10_000_000, true);
    expect(answer).toEqual({ ok: true });
    expect(await huge.store.take('x', budget, 1, true)).toEqual({ ok: false, waitMs: 60_000 });
  });

  it('an interactive call is granted before bulk calls queued ahead of it', async () => {
    pacer = memoryPacer();
    const budget: ConnectionBudget = { rpm: 600, tpm: 100_000_000 };
    const order: string[] = [];
    const started = performance.now();
    const bulks = Array.from({ length: 5 }, (_, i) => pacer.acquire('4', budget, bulk('batch:7')).then(() => order.push(`bulk${i}`)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    let interactiveAt = 0;
    const first = pacer.acquire('4', budget, interactive()).then(() => {
      interactiveAt = performance.now() - started;
      order.push('interactive');
    });
    await Promise.all([...bulks, first]);
    // The bulk stream saturates the meter (one every 100 ms); the interactive call overtakes it at once.
    expect(order.indexOf('interactive')).toBe(1);
    expect(interactiveAt).toBeLessThan(60);
  });

  it('bulk parties sharing a connection take turns', async () => {
    pacer = memoryPacer();
    const budget: ConnectionBudget = { rpm: 1200, tpm: 100_000_000 };
    const order: string[] = [];
    // Party a queues all its calls before b queues any: b still gets every other grant.
    const a = Array.from({ length: 8 }, () => pacer.acquire('5', budget, bulk('batch:a')).then(() => order.push('a')));
    const b = Array.from({ length: 8 }, () => pacer.acquire('5', budget, bulk('batch:b')).then(() => order.push('b')));
    await Promise.all([...a, ...b]);
    for (let n = 2; n <= order.length; n += 2) {
      const head = order.slice(0, n);
      const as = head.filter((p) => p === 'a').length;
      expect(Math.abs(as - (n - as)), head.join('')).toBeLessThanOrEqual(1);
    }
  });

  it('a 429 halves the rate and blocks the connection until Retry-After; successes raise it back', async () => {
    pacer = memoryPacer();
    const budget: ConnectionBudget = { rpm: 6000, tpm: 100_000_000 };
    await pacer.acquire('6', budget, interactive());
    const before = Date.now();
    await pacer.rateLimited('6', budget, 300);
    const state = await pacer.state('6');
    expect(state).toMatchObject({ rpm: 6000, tpm: 100_000_000, factor: 0.5 });
    expect(Date.parse(state!.blocked_until!) - before).toBeGreaterThanOrEqual(290);
    const started = performance.now();
    await pacer.acquire('6', budget, interactive());
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    expect((await pacer.state('6'))!.blocked_until).toBeNull();

    // Again and again: never below the floor.
    for (let i = 0; i < 10; i++) await pacer.rateLimited('6', budget, 0);
    expect((await pacer.state('6'))!.factor).toBe(PACING.floor);
    // A 429 without Retry-After blocks for two intervals at the new rate: 6000 × 0.1 = 600 rpm, 200 ms.
    const t0 = Date.now();
    await pacer.rateLimited('6', budget);
    expect(Date.parse((await pacer.state('6'))!.blocked_until!) - t0).toBeGreaterThanOrEqual(190);

    for (let i = 0; i < 10; i++) await pacer.succeeded('6', budget);
    expect((await pacer.state('6'))!.factor).toBeCloseTo(0.6, 5);
    for (let i = 0; i < 20; i++) await pacer.succeeded('6', budget);
    expect((await pacer.state('6'))!.factor).toBe(1);
  });

  it('a halved factor halves the pace', async () => {
    pacer = memoryPacer();
    const budget: ConnectionBudget = { rpm: 1200, tpm: 100_000_000 };
    await pacer.rateLimited('7', budget, 0);
    const started = performance.now();
    for (let i = 0; i < 4; i++) await pacer.acquire('7', budget, bulk('batch:1'));
    // 600 rpm now: 100 ms per request, the first at once.
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('aborting a waiting call rejects it with the reason, and the queue moves on', async () => {
    pacer = memoryPacer();
    const budget: ConnectionBudget = { rpm: 600, tpm: 100_000_000 };
    await pacer.acquire('8', budget, bulk('batch:1'));
    const controller = new AbortController();
    const waiting = pacer.acquire('8', budget, bulk('batch:1', 0, controller.signal));
    const behind = pacer.acquire('8', budget, bulk('batch:2'));
    setTimeout(() => controller.abort(new Error('cancelled by the user')), 20);
    await expect(waiting).rejects.toThrow('cancelled by the user');
    const started = performance.now();
    await behind;
    expect(performance.now() - started).toBeLessThan(150);
    // Already aborted: refused at once.
    await expect(pacer.acquire('8', budget, interactive(0, AbortSignal.abort(new Error('gone'))))).rejects.toThrow('gone');
  });
});

describe('Semaphore priority', () => {
  it('lets interactive waiters in before bulk ones', async () => {
    const semaphore = new Semaphore(1);
    const order: string[] = [];
    let release!: () => void;
    const holder = semaphore.run(() => new Promise<void>((resolve) => (release = resolve)));
    const jobs = [
      semaphore.run(async () => void order.push('bulk1'), undefined, { bulk: true }),
      semaphore.run(async () => void order.push('bulk2'), undefined, { bulk: true }),
      semaphore.run(async () => void order.push('interactive')),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all([holder, ...jobs]);
    expect(order).toEqual(['interactive', 'bulk1', 'bulk2']);
  });
});

describe('pacing a connection through reliably() against a provider that limits', () => {
  let fake: FakeOpenAI;
  afterEach(async () => {
    await fake?.close();
  });

  it('a 429 slows the connection and waits out Retry-After; the call still succeeds', async () => {
    fake = await startFakeOpenAI({ rateLimit: { perMinute: 3, windowMs: 400 } });
    const factory = createProviderFactory(providerSettingsFrom({ PROVIDER_OPENAI_BASE_URL: fake.url, PROVIDER_MAX_RETRIES: '2', PROVIDER_RETRY_MAX_WAIT_MS: '2000' }));
    pacer = factory.pacer as RatePacer;
    // The connection claims more than the account allows: the provider's 429s teach it otherwise.
    const provider = factory.forCredentials({ keyId: 9, provider: 'openai', apiKey: 'sk-test-pace-0000', rpm: 6000, tpm: 10_000_000 }, { caller: { party: 'batch:1', bulk: true } });
    const replies = await Promise.all(Array.from({ length: 5 }, () => provider.generateText({ system: 's', prompt: '写一句话', intent: { kind: 'free' }, maxTokens: 16 })));
    expect(replies).toHaveLength(5);
    const limited = fake.calls.filter((c) => c.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    const state = await paceOf(factory, { keyId: 9, provider: 'openai', apiKey: 'sk-test-pace-0000' });
    expect(state).toMatchObject({ rpm: 6000, tpm: 10_000_000 });
    // Halved per 429, raised 0.05 per success since.
    expect(state!.factor).toBeLessThan(1);
  });

  it('paces two connections that hold one key at one endpoint as one account (two workspaces, one provider account)', async () => {
    fake = await startFakeOpenAI();
    const factory = createProviderFactory(providerSettingsFrom({ PROVIDER_OPENAI_BASE_URL: fake.url, PROVIDER_MAX_RETRIES: '0' }));
    pacer = factory.pacer as RatePacer;
    // Two workspaces' batches (bulk calls take no burst): 60 a minute is one a second.
    const call = (keyId: number, apiKey: string) =>
      factory
        .forCredentials({ keyId, provider: 'openai', apiKey, rpm: 60, tpm: 10_000_000 }, { caller: { party: `ws:${keyId}`, bulk: true } })
        .generateText({ system: 's', prompt: '写一句话', intent: { kind: 'free' }, maxTokens: 16 });
    // The first call spends the account's budget for a second.
    await call(21, 'sk-shared-account-0000');
    // Another workspace's connection with the same key waits its turn; one with another key does not.
    let started = performance.now();
    await call(22, 'sk-other-account-0000');
    expect(performance.now() - started).toBeLessThan(500);
    started = performance.now();
    await call(23, 'sk-shared-account-0000');
    expect(performance.now() - started).toBeGreaterThan(700);
    expect(await paceOf(factory, { keyId: 23, provider: 'openai', apiKey: 'sk-shared-account-0000' })).toMatchObject({ rpm: 60 });
  });

  it('a chat call counts its text, ~1000 tokens an image and its output budget', async () => {
    fake = await startFakeOpenAI();
    const factory = createProviderFactory(providerSettingsFrom({ PROVIDER_OPENAI_BASE_URL: fake.url, PROVIDER_MAX_RETRIES: '0' }));
    pacer = factory.pacer as RatePacer;
    // 6 000 tokens a minute: a call of ~1 000 tokens (16 out + 1 000 for the image + its text) makes the next wait ~10 s.
    const provider = factory.forCredentials({ keyId: 10, provider: 'openai', apiKey: 'sk-test-pace-0000', rpm: 6000, tpm: 6000 });
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    await provider.analyzeImage({ system: 's', prompt: 'colour?', intent: { kind: 'free' }, maxTokens: 16, images: [{ data: png, mime: 'image/png' }] });
    const answer = await pacer.store.take(paceAccount(fake.url, 'sk-test-pace-0000'), { rpm: 6000, tpm: 6000 }, 0, true);
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.waitMs).toBeGreaterThan(9_000);
  });
});
