import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadToldRateStore } from '../../src/providers/pacer-thread.js';

// A worker thread loads the server's modules as npm start's job thread does (threads/background.mjs).
const LOADER = new URL('../../src/threads/background.mjs', import.meta.url).href;
const STORE = new URL('../../src/providers/pacer-thread.js', import.meta.url).href;

/**
 * npm start without Redis: the job thread paces the calls, the API thread shows the pace. A
 * real second thread paces an account here; this thread's store, on the same channel, reads it.
 */
describe('pacing told between the threads of one process', () => {
  const stores: ThreadToldRateStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  /** A thread that takes one call for `account`, answers a 429 for it, and ends. */
  async function jobThread(channel: string, account: string): Promise<void> {
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(workerData.loader).then((loader) => loader.loadServerModule(workerData.store)).then(async ({ ThreadToldRateStore }) => {
        const store = new ThreadToldRateStore(workerData.channel);
        const budget = { rpm: 600, tpm: 1000000 };
        await store.take(workerData.account, budget, 1000, true);
        await store.penalize(workerData.account, budget, 30000);
        parentPort.postMessage('done');
        await store.close();
      });`;
    const worker = new Worker(code, { eval: true, workerData: { channel, account, store: STORE, loader: LOADER } });
    const [message] = await once(worker, 'message');
    expect(message).toBe('done');
    await once(worker, 'exit');
  }

  it("shows the other thread's pace: its budget, the halved rate after a 429 and the block", async () => {
    const channel = `cps-test-${process.pid}-${Date.now()}`;
    const api = new ThreadToldRateStore(channel);
    stores.push(api);
    expect(await api.read('account-a')).toBeNull();
    await jobThread(channel, 'account-a');
    // The message may still be on its way when the thread has ended.
    for (let i = 0; i < 50 && !(await api.read('account-a')); i++) await new Promise((r) => setTimeout(r, 20));
    const state = await api.read('account-a');
    expect(state).toMatchObject({ rpm: 600, tpm: 1_000_000, factor: 0.5 });
    expect(state!.blockedUntil! - Date.now()).toBeGreaterThan(20_000);
    expect(await api.read('account-b')).toBeNull();
  });

  it('hears nothing from the threads of another process run', async () => {
    const api = new ThreadToldRateStore(`cps-test-other-${process.pid}-${Date.now()}`);
    stores.push(api);
    await jobThread(`cps-test-${process.pid}-${Date.now()}-elsewhere`, 'account-a');
    await new Promise((r) => setTimeout(r, 200));
    expect(await api.read('account-a')).toBeNull();
  });

  it('forgets a told account once it has been idle as long as the teller forgets it', async () => {
    let now = 1_000_000;
    const channel = `cps-test-idle-${process.pid}-${Date.now()}`;
    const teller = new ThreadToldRateStore(channel, () => now);
    const listener = new ThreadToldRateStore(channel, () => now);
    stores.push(teller, listener);
    await teller.take('account-c', { rpm: 60, tpm: 100_000 }, 10, false);
    for (let i = 0; i < 50 && !(await listener.read('account-c')); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await listener.read('account-c')).toMatchObject({ rpm: 60, factor: 1, blockedUntil: null });
    now += 60 * 60_000;
    expect(await listener.read('account-c')).toBeNull();
  });
});
