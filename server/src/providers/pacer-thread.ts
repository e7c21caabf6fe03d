import { BroadcastChannel } from 'node:worker_threads';
import type { Logger } from 'pino';
import { MemoryRateStore, PACING, RatePacer, type ConnectionBudget, type RateStore, type TakeAnswer } from './pacer.js';

type AccountState = NonNullable<Awaited<ReturnType<RateStore['read']>>>;
type Told = { key: string; state: AccountState | null };

/**
 * `npm start` without Redis: the job thread makes the provider calls and so holds their pacing,
 * while the API thread answers the progress views (a batch's `pace`). Each thread paces its own
 * calls in memory, as before, and tells the other threads of the process run the state of every
 * account it paced, on a BroadcastChannel; a view reads what it was told, else its own state.
 */
export class ThreadToldRateStore implements RateStore {
  private readonly own: MemoryRateStore;
  private readonly told = new Map<string, { state: AccountState; at: number }>();
  private readonly channel: BroadcastChannel;

  constructor(
    name: string,
    private readonly now: () => number = Date.now,
  ) {
    this.own = new MemoryRateStore(now);
    this.channel = new BroadcastChannel(`${name}:pace`);
    this.channel.unref();
    this.channel.onmessage = (message) => {
      const { key, state } = (message as { data: Told }).data;
      if (state) this.told.set(key, { state, at: this.now() });
      else this.told.delete(key);
    };
  }

  async take(key: string, budget: ConnectionBudget, tokens: number, bulk: boolean): Promise<TakeAnswer> {
    const answer = await this.own.take(key, budget, tokens, bulk);
    await this.tell(key);
    return answer;
  }

  async penalize(key: string, budget: ConnectionBudget, blockMs: number | undefined): Promise<void> {
    await this.own.penalize(key, budget, blockMs);
    await this.tell(key);
  }

  async reward(key: string): Promise<void> {
    await this.own.reward(key);
    await this.tell(key);
  }

  async read(key: string): Promise<AccountState | null> {
    const told = this.told.get(key);
    // Forgotten as the teller forgets an idle account; a block is shown only while it lasts.
    if (told && this.now() - told.at <= PACING.idleMs) {
      const blockedUntil = told.state.blockedUntil !== null && told.state.blockedUntil > this.now() ? told.state.blockedUntil : null;
      return { ...told.state, blockedUntil };
    }
    if (told) this.told.delete(key);
    return this.own.read(key);
  }

  async close(): Promise<void> {
    this.channel.close();
    await this.own.close();
  }

  private async tell(key: string): Promise<void> {
    this.channel.postMessage({ key, state: await this.own.read(key) } satisfies Told);
  }
}

/** The pacer of one thread of an `npm start` process without Redis, telling the others its accounts' state. */
export function threadPacer(name: string, log?: Logger, now?: () => number): RatePacer {
  return new RatePacer(new ThreadToldRateStore(name, now), log);
}
