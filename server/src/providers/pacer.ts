import type { Logger } from 'pino';

/**
 * Rate-aware calling (docs/providers.md "Rate limits"): every provider connection (api_keys row)
 * has a requests-per-minute and a tokens-per-minute budget. A call first takes its share of both
 * from the connection's limiter, a GCRA (generic cell rate algorithm) meter per budget whose
 * check-and-update is atomic: in memory for one process, in one Redis Lua script when the
 * deployment has Redis, so every process spends the same budget. 429s halve the connection's
 * rate (down to a tenth) and block it until the provider's Retry-After; successes raise it back
 * step by step (AIMD). Within a process, the waiters of a connection queue per party:
 * interactive ones first, then the bulk parties in turn, and only the head asks the limiter.
 */

/** Who is calling: batch tasks are `bulk` under `batch:<id>`, interactive work under its workspace or `interactive`. */
export interface PacerCaller {
  party: string;
  bulk: boolean;
}

/** A connection's budget; both positive. A connection without one (the offline provider) is not paced. */
export interface ConnectionBudget {
  rpm: number;
  tpm: number;
}

export interface PaceRequest extends PacerCaller {
  /** The call's estimated tokens (input + output budget); 0 for calls that cost requests only. */
  tokens: number;
  signal?: AbortSignal;
}

/** A connection's pacing as a progress view shows it. */
export interface PacerState {
  rpm: number;
  tpm: number;
  /** The share of the budget in use now: 1 = all of it, down to 0.1 after repeated 429s. */
  factor: number;
  /** ISO time until which the connection is blocked after a 429, or null. */
  blocked_until: string | null;
}

export type TakeAnswer = { ok: true } | { ok: false; waitMs: number };

/** The atomic part of a limiter, per connection key: in memory, or shared through Redis (pacer-redis.ts). */
export interface RateStore {
  /** One request and `tokens` tokens now, or how long to wait before asking again. */
  take(key: string, budget: ConnectionBudget, tokens: number, bulk: boolean): Promise<TakeAnswer>;
  /** A 429: the rate factor halves (floor 0.1) and the connection is blocked for `blockMs` (default: two emission intervals at the new rate). */
  penalize(key: string, budget: ConnectionBudget, blockMs: number | undefined): Promise<void>;
  /** A success: the rate factor rises by one step (at most 1). */
  reward(key: string): Promise<void>;
  /** The connection's state; `blockedUntil` null unless the block lasts beyond now. */
  read(key: string): Promise<{ rpm: number; tpm: number; factor: number; blockedUntil: number | null } | null>;
  close(): Promise<void>;
}

export interface Pacer {
  /** Resolves when the call may go to the provider; rejects with the signal's reason when aborted while waiting. */
  acquire(account: string, budget: ConnectionBudget | null, request: PaceRequest): Promise<void>;
  /** The provider answered 429 (`rate_limited`), with its Retry-After in ms when it named one. */
  rateLimited(account: string, budget: ConnectionBudget | null, retryAfterMs?: number): Promise<void>;
  /** The provider answered. */
  succeeded(account: string, budget: ConnectionBudget | null): Promise<void>;
  /** The account's pacing now; null when it has none (never paced, or idle long enough to be forgotten). */
  state(account: string): Promise<PacerState | null>;
  close(): Promise<void>;
}

/** AIMD: a 429 halves the factor (never below the floor); each success adds a step. */
export const PACING = {
  decrease: 0.5,
  floor: 0.1,
  increase: 0.05,
  /**
   * How far ahead of now the meters may run for a call, in emission intervals of the request
   * meter: interactive calls may overtake a saturated bulk stream by two intervals (so one is
   * granted next), bulk calls take only what has accrued. A burst stays within three requests,
   * well inside any provider's per-minute (or per-second: RPM/60) window.
   */
  interactiveTolerance: 2,
  bulkTolerance: 0,
  /** A 429 without Retry-After blocks the connection for this many intervals at the new rate. */
  defaultBlockIntervals: 2,
  /** The state of an idle connection is forgotten after this long (the Redis hash's TTL). */
  idleMs: 10 * 60_000,
  /** A refused head re-asks at least this often, so a raised budget is seen soon. */
  maxSleepMs: 5_000,
} as const;

export function budgetOf(rpm: number | null | undefined, tpm: number | null | undefined): ConnectionBudget | null {
  return rpm && tpm && rpm > 0 && tpm > 0 ? { rpm, tpm } : null;
}

/**
 * The GCRA decision shared by both stores (the Lua script in pacer-redis.ts is the same steps):
 * `tr`/`tt` are the theoretical arrival times of the request and token meters. A call is granted
 * when neither runs further ahead of now than its tolerance, and then pushes them by its cost.
 */
export function gcra(
  state: { tr: number; tt: number; factor: number; blockedUntil: number },
  now: number,
  budget: ConnectionBudget,
  tokens: number,
  bulk: boolean,
): { ok: true; tr: number; tt: number } | { ok: false; waitMs: number } {
  if (state.blockedUntil > now) return { ok: false, waitMs: state.blockedUntil - now };
  const requestInterval = 60_000 / (budget.rpm * state.factor);
  const tokenInterval = 60_000 / (budget.tpm * state.factor);
  const tolerance = (bulk ? PACING.bulkTolerance : PACING.interactiveTolerance) * requestInterval;
  const tr = Math.max(state.tr, now);
  const tt = Math.max(state.tt, now);
  const wait = Math.max(tr - tolerance - now, tt - tolerance - now);
  if (wait > 0) return { ok: false, waitMs: Math.ceil(wait) };
  return { ok: true, tr: tr + requestInterval, tt: tt + Math.min(Math.max(0, tokens), budget.tpm) * tokenInterval };
}

interface MemoryState {
  tr: number;
  tt: number;
  factor: number;
  blockedUntil: number;
  rpm: number;
  tpm: number;
  touched: number;
}

/** One process's limiter state, in a Map. */
export class MemoryRateStore implements RateStore {
  private readonly states = new Map<string, MemoryState>();

  constructor(private readonly now: () => number = Date.now) {}

  private get(key: string, budget?: ConnectionBudget): MemoryState | undefined {
    const now = this.now();
    let state = this.states.get(key);
    if (state && now - state.touched > PACING.idleMs && state.tr < now && state.tt < now && state.blockedUntil < now) {
      this.states.delete(key);
      state = undefined;
    }
    if (!state && budget) this.states.set(key, (state = { tr: now, tt: now, factor: 1, blockedUntil: 0, rpm: budget.rpm, tpm: budget.tpm, touched: now }));
    if (state) state.touched = now;
    return state;
  }

  async take(key: string, budget: ConnectionBudget, tokens: number, bulk: boolean): Promise<TakeAnswer> {
    const state = this.get(key, budget)!;
    state.rpm = budget.rpm;
    state.tpm = budget.tpm;
    const answer = gcra(state, this.now(), budget, tokens, bulk);
    if (!answer.ok) return answer;
    state.tr = answer.tr;
    state.tt = answer.tt;
    return { ok: true };
  }

  async penalize(key: string, budget: ConnectionBudget, blockMs: number | undefined): Promise<void> {
    const state = this.get(key, budget)!;
    state.factor = Math.max(PACING.floor, state.factor * PACING.decrease);
    const block = blockMs ?? (PACING.defaultBlockIntervals * 60_000) / (budget.rpm * state.factor);
    state.blockedUntil = Math.max(state.blockedUntil, this.now() + block);
  }

  async reward(key: string): Promise<void> {
    const state = this.get(key);
    if (state) state.factor = Math.min(1, state.factor + PACING.increase);
  }

  async read(key: string) {
    const state = this.get(key);
    return state ? { rpm: state.rpm, tpm: state.tpm, factor: state.factor, blockedUntil: state.blockedUntil > this.now() ? state.blockedUntil : null } : null;
  }

  async close(): Promise<void> {
    this.states.clear();
  }
}

interface Waiter {
  request: PaceRequest;
  budget: ConnectionBudget;
  resolve: () => void;
  reject: (reason: unknown) => void;
  onAbort?: () => void;
}

/**
 * One connection's waiters in this process: interactive ones first (in arrival order), then the
 * bulk parties in turn, one call each. Only the head asks the limiter; refused, it sleeps the
 * answered wait, woken early when an interactive call arrives behind a bulk head.
 */
class ConnectionQueue {
  private readonly interactive: Waiter[] = [];
  private readonly bulk = new Map<string, Waiter[]>();
  /** The bulk party whose turn it is; advances after each grant. */
  private turn = 0;
  private pumping = false;
  private wake?: () => void;

  constructor(
    private readonly key: string,
    private readonly store: RateStore,
    private readonly log?: Logger,
  ) {}

  enqueue(waiter: Waiter) {
    const { signal, bulk, party } = waiter.request;
    if (signal?.aborted) return waiter.reject(signal.reason);
    if (bulk) {
      const line = this.bulk.get(party);
      if (line) line.push(waiter);
      else this.bulk.set(party, [waiter]);
    } else {
      this.interactive.push(waiter);
      // A bulk head asleep on its wait gives way to this one at once.
      this.wake?.();
    }
    if (signal) {
      waiter.onAbort = () => {
        if (this.remove(waiter)) {
          waiter.reject(signal.reason);
          this.wake?.();
        }
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
    }
    if (!this.pumping) void this.pump();
  }

  private remove(waiter: Waiter): boolean {
    const i = this.interactive.indexOf(waiter);
    if (i >= 0) {
      this.interactive.splice(i, 1);
      return true;
    }
    const line = this.bulk.get(waiter.request.party);
    const j = line?.indexOf(waiter) ?? -1;
    if (!line || j < 0) return false;
    line.splice(j, 1);
    if (line.length === 0) this.dropParty(waiter.request.party);
    return true;
  }

  private dropParty(party: string) {
    const index = [...this.bulk.keys()].indexOf(party);
    this.bulk.delete(party);
    // The parties after it move up one place: the turn stays with the party that had it.
    if (index >= 0 && index < this.turn) this.turn--;
    if (this.turn >= this.bulk.size) this.turn = 0;
  }

  private head(): Waiter | undefined {
    if (this.interactive.length > 0) return this.interactive[0];
    const parties = [...this.bulk.keys()];
    if (parties.length === 0) return undefined;
    if (this.turn >= parties.length) this.turn = 0;
    return this.bulk.get(parties[this.turn]!)![0];
  }

  private granted(waiter: Waiter) {
    if (!this.remove(waiter)) return;
    if (waiter.request.bulk && this.bulk.size > 0) {
      // Next bulk party's turn (remove() already moved the turn when the party's line emptied).
      const parties = [...this.bulk.keys()];
      if (parties[this.turn] === waiter.request.party) this.turn = (this.turn + 1) % parties.length;
    }
    if (waiter.onAbort) waiter.request.signal?.removeEventListener('abort', waiter.onAbort);
    waiter.resolve();
  }

  private async pump() {
    this.pumping = true;
    try {
      for (let waiter = this.head(); waiter; waiter = this.head()) {
        let answer: TakeAnswer;
        try {
          answer = await this.store.take(this.key, waiter.budget, waiter.request.tokens, waiter.request.bulk);
        } catch (err) {
          // Pacing is a courtesy to the provider: a limiter that cannot answer (Redis down) lets the call go.
          this.log?.warn({ err, key: this.key }, 'rate limiter unavailable: the call goes unpaced');
          answer = { ok: true };
        }
        if (answer.ok) {
          this.granted(waiter);
          continue;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.max(1, Math.min(answer.waitMs, PACING.maxSleepMs)));
          function done() {
            clearTimeout(timer);
            resolve();
          }
          this.wake = done;
        });
        this.wake = undefined;
      }
    } finally {
      this.pumping = false;
    }
  }
}

/** The pacer of one process over a store: its queues per connection, the store's state shared or not. */
export class RatePacer implements Pacer {
  private readonly queues = new Map<string, ConnectionQueue>();

  constructor(
    readonly store: RateStore,
    private readonly log?: Logger,
  ) {}

  acquire(key: string, budget: ConnectionBudget | null, request: PaceRequest): Promise<void> {
    if (!budget) return Promise.resolve();
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = new ConnectionQueue(key, this.store, this.log)));
    // One queue per connection for the life of the process (a deployment has a handful of connections).
    return new Promise<void>((resolve, reject) => queue.enqueue({ request, budget, resolve, reject }));
  }

  async rateLimited(account: string, budget: ConnectionBudget | null, retryAfterMs?: number): Promise<void> {
    if (!budget) return;
    await this.store.penalize(account, budget, retryAfterMs).catch((err: unknown) => this.log?.warn({ err, account }, 'rate limiter unavailable: 429 not recorded'));
  }

  async succeeded(account: string, budget: ConnectionBudget | null): Promise<void> {
    if (!budget) return;
    await this.store.reward(account).catch((err: unknown) => this.log?.warn({ err, account }, 'rate limiter unavailable: success not recorded'));
  }

  async state(account: string): Promise<PacerState | null> {
    const state = await this.store.read(account);
    if (!state) return null;
    return {
      rpm: state.rpm,
      tpm: state.tpm,
      factor: Math.round(state.factor * 1000) / 1000,
      blocked_until: state.blockedUntil === null ? null : new Date(state.blockedUntil).toISOString(),
    };
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}

/** A pacer whose state lives in this process only (no Redis configured; tests). */
export function memoryPacer(log?: Logger, now?: () => number): RatePacer {
  return new RatePacer(new MemoryRateStore(now), log);
}
