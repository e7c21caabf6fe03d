import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { SsrfRefused } from '../security/ssrf.js';
import type { Logger } from 'pino';
import { readFailure, type RefusedParam } from './errors.js';
import type { ConnectionBudget, Pacer, PacerCaller } from './pacer.js';
import { ProviderError, type ProviderErrorKind, type ProviderSituation } from './types.js';

export interface ReliabilityOptions {
  /** Budget of one attempt, stream included. */
  timeoutMs: number;
  /** Further attempts after the first on 429, 5xx and network errors. */
  maxRetries: number;
  /** First backoff step; doubles per retry, with jitter. */
  retryBaseMs: number;
  /** Longest wait between attempts, whatever Retry-After asks for. */
  retryMaxWaitMs: number;
  /**
   * First wait after a 429 that names no Retry-After: small accounts are limited per minute, so
   * the wait is on that scale (doubling, capped by retryMaxWaitMs), not the 5xx backoff.
   */
  rateLimitBaseMs: number;
  /** Told of every attempt (`ok` or its ProviderErrorKind): the process wires its metrics here. */
  observe?: AttemptObserver;
}

export type AttemptObserver = (provider: string, operation: string, outcome: string, seconds: number) => void;

/**
 * A counting semaphore: at most `limit` calls of one provider in flight in this process. Waiters
 * marked `bulk` (batch work) are let in only when no interactive one waits.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly waitingBulk: Array<() => void> = [];

  constructor(readonly limit: number) {}

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal, opts: { bulk?: boolean } = {}): Promise<T> {
    await this.acquire(signal, opts.bulk === true);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  get inFlight() {
    return this.active;
  }

  private acquire(signal: AbortSignal | undefined, bulk: boolean): Promise<void> {
    const line = bulk ? this.waitingBulk : this.waiting;
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve();
      };
      const onAbort = () => {
        const i = line.indexOf(grant);
        if (i >= 0) line.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      line.push(grant);
    });
  }

  private release() {
    this.active--;
    (this.waiting.shift() ?? this.waitingBulk.shift())?.();
  }
}

/** An HTTP failure of a call made without the SDK (DashScope's native API, image downloads). */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    message: string,
    /** The parsed error body, read like the SDK's (errors.ts). */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** Our own per-attempt deadline fired (as opposed to the caller cancelling). */
class AttemptTimeout extends Error {}

interface Classified {
  kind: ProviderErrorKind;
  retryable: boolean;
  refusedResponseFormat?: boolean;
  refusedParam?: RefusedParam;
  status?: number;
  retryAfterMs?: number;
  detail: string;
  advice?: string;
  situation?: ProviderSituation;
}

function retryAfterMs(headers: Headers | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const raw = headers.get('retry-after');
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw.trim())) return Number(raw) * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A short reason from the provider's error body, never echoing request headers or the key. */
function providerDetail(error: unknown): string {
  if (error instanceof APIError) {
    const body = error.error as { message?: unknown } | undefined;
    const message = typeof body?.message === 'string' ? body.message : error.message;
    return message.slice(0, 300);
  }
  if (error instanceof Error) return error.message.slice(0, 300);
  return String(error).slice(0, 300);
}

function classify(error: unknown): Classified {
  // Refused by the outbound rule (a redirect, a private address): asking again changes nothing.
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof SsrfRefused) return { kind: 'unavailable', retryable: false, detail: e.message };
  }
  if (error instanceof AttemptTimeout || error instanceof APIConnectionTimeoutError) {
    return { kind: 'timeout', retryable: false, detail: 'no complete answer within the time limit' };
  }
  if (error instanceof APIConnectionError) return { kind: 'unavailable', retryable: true, detail: providerDetail(error.cause ?? error) };
  if (error instanceof APIError && typeof error.status === 'number') {
    // The SDK keeps the body's `error` object (or the whole body when it has none).
    return { ...readFailure(error.status, { error: error.error }), status: error.status, retryAfterMs: retryAfterMs(error.headers, Date.now()), detail: providerDetail(error) };
  }
  if (error instanceof HttpStatusError) {
    return { ...readFailure(error.status, error.body), status: error.status, retryAfterMs: retryAfterMs(error.headers, Date.now()), detail: error.message };
  }
  // fetch's network failures (refused, reset, DNS) surface as TypeError('fetch failed').
  return { kind: 'unavailable', retryable: true, detail: providerDetail(error) };
}

/** For the log and the stored reason; the console words each kind itself (web i18n). */
const advice: Record<ProviderErrorKind, string> = {
  auth: 'the key was refused',
  insufficient_balance: 'the account has no balance left',
  content_blocked: "the provider's moderation blocked the request or its result",
  model_not_found: 'the model does not exist or the account may not use it',
  rate_limited: "the provider's rate limit was hit",
  unsupported: 'the provider refused the request',
  timeout: 'no answer in time',
  unavailable: 'the provider is unreachable or failing',
  bad_output: 'the reply was not usable',
  truncated: 'the reply was cut off by its output budget',
};

function redact(text: string, secret: string): string {
  if (secret.length < 4) return text;
  return text.split(secret).join('[redacted]');
}

/** How a connection's calls are paced to its budget (pacer.ts); absent: not paced. */
export interface Pacing {
  pacer: Pacer;
  /** The provider account the budget belongs to (factory.ts paceAccount): connections holding one key share it. */
  account: string;
  /** Null: the connection has no budget (not paced). */
  budget: ConnectionBudget | null;
  caller: PacerCaller;
}

export interface CallContext {
  provider: string;
  what: string;
  apiKey: string;
  options: ReliabilityOptions;
  semaphore: Semaphore;
  pace?: Pacing;
  /**
   * What one attempt costs the connection's budget: its estimated tokens (0: requests only), or
   * `unpaced` for calls the provider's API rate limit does not count (task-status polls, image
   * downloads from storage links).
   */
  cost?: { tokens: number } | 'unpaced';
  signal?: AbortSignal;
  /** Retries are logged (never the key) so operators see a struggling provider before it fails. */
  log?: Logger;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Exponential backoff with equal jitter, or the provider's Retry-After, both capped. A rate
 * limit without Retry-After starts from rateLimitBaseMs (per-minute limits), other failures
 * from retryBaseMs.
 */
export function backoffMs(attempt: number, options: ReliabilityOptions, retryAfter?: number, kind?: ProviderErrorKind): number {
  if (retryAfter !== undefined) return Math.min(retryAfter, options.retryMaxWaitMs);
  const base = kind === 'rate_limited' ? options.rateLimitBaseMs : options.retryBaseMs;
  const step = base * 2 ** attempt;
  return Math.min(options.retryMaxWaitMs, step / 2 + Math.random() * (step / 2));
}

/**
 * Runs one provider call with a per-attempt timeout, a concurrency slot held only while the
 * attempt runs (not while backing off), retries on 429/5xx/network errors, and a classified
 * ProviderError at the end whose message names the provider, the operation and what to do.
 */
export async function reliably<T>(call: CallContext, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { options } = call;
  const wait = call.sleep ?? sleep;
  for (let n = 0; ; n++) {
    let outcome: Classified;
    // Measured from the moment the slot is held: waiting for a slot is our queue, not the provider.
    let started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const pace = call.cost === 'unpaced' ? undefined : call.pace;
    try {
      // The connection's budget first (the wait may be long), then a slot, held only while the attempt runs.
      if (pace) await pace.pacer.acquire(pace.account, pace.budget, { ...pace.caller, tokens: call.cost === 'unpaced' ? 0 : (call.cost?.tokens ?? 0), signal: call.signal });
      const result = await call.semaphore.run(async () => {
        started = performance.now();
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(new AttemptTimeout()), options.timeoutMs);
        const onCallerAbort = () => controller.abort(call.signal!.reason);
        call.signal?.addEventListener('abort', onCallerAbort, { once: true });
        try {
          return await attempt(controller.signal);
        } catch (error) {
          // The SDK reports our abort as a user abort; tell our deadline from the caller's cancel.
          if (controller.signal.reason instanceof AttemptTimeout && (error instanceof APIUserAbortError || controller.signal.aborted)) {
            throw controller.signal.reason;
          }
          throw error;
        } finally {
          clearTimeout(timer);
          call.signal?.removeEventListener('abort', onCallerAbort);
        }
      }, call.signal, { bulk: pace?.caller.bulk ?? call.pace?.caller.bulk });
      options.observe?.(call.provider, call.what, 'ok', seconds());
      if (pace) void pace.pacer.succeeded(pace.account, pace.budget);
      return result;
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      if (error instanceof ProviderError) {
        options.observe?.(call.provider, call.what, error.kind, seconds());
        throw error;
      }
      outcome = classify(error);
      options.observe?.(call.provider, call.what, outcome.kind, seconds());
      // Every process slows down on this connection, and waits out the provider's Retry-After.
      if (pace && outcome.kind === 'rate_limited') await pace.pacer.rateLimited(pace.account, pace.budget, outcome.retryAfterMs);
    }
    if (!outcome.retryable || n >= options.maxRetries) {
      const tries = n + 1;
      const status = outcome.status ? ` (HTTP ${outcome.status})` : '';
      const message = `${call.provider} ${call.what} failed after ${tries} attempt${tries > 1 ? 's' : ''}${status}: ${outcome.advice ?? advice[outcome.kind]}. Provider said: ${outcome.detail}`;
      throw new ProviderError(outcome.kind, redact(message, call.apiKey), call.provider, outcome.status, outcome.refusedResponseFormat ?? false, outcome.refusedParam, outcome.situation);
    }
    const waitMs = Math.round(backoffMs(n, options, outcome.retryAfterMs, outcome.kind));
    call.log?.warn(
      { provider: call.provider, operation: call.what, attempt: n + 1, kind: outcome.kind, status: outcome.status, waitMs },
      `provider call failed, retrying: ${redact(outcome.detail, call.apiKey)}`,
    );
    await wait(waitMs, call.signal);
  }
}
