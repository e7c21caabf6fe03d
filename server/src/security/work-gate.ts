/**
 * Admission for expensive work of unauthenticated requests (password hashing at login, issue 28
 * finding 7): at most `slots` run at once, at most `waiting` wait, and one client holds at most
 * `perClient` of either, so a single source cannot fill the line. Beyond that the caller is
 * refused at once (the route answers 429) instead of queueing without bound, and a waiting
 * request whose client went away leaves the line before its work starts.
 */
export class GateFull extends Error {
  constructor() {
    super('too many logins in progress');
    this.name = 'GateFull';
  }
}

interface Waiter {
  client: string;
  start: () => void;
}

export class WorkGate {
  private running = 0;
  private readonly line: Waiter[] = [];
  private readonly held = new Map<string, number>();

  constructor(
    private readonly limits: { slots: number; waiting: number; perClient: number },
    /** Told the length of the line whenever it changes (a gauge of /metrics). */
    private readonly onLine: (waiting: number) => void = () => {},
  ) {}

  async run<T>(client: string, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    signal?.throwIfAborted();
    if ((this.held.get(client) ?? 0) >= this.limits.perClient) throw new GateFull();
    if (this.running >= this.limits.slots && this.line.length >= this.limits.waiting) throw new GateFull();
    this.hold(client, 1);
    try {
      if (this.running >= this.limits.slots) await this.wait(client, signal);
      else this.running++;
      try {
        return await work();
      } finally {
        this.release();
      }
    } finally {
      this.hold(client, -1);
    }
  }

  private wait(client: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        client,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.line.splice(this.line.indexOf(waiter), 1);
        this.onLine(this.line.length);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.line.push(waiter);
      this.onLine(this.line.length);
    });
  }

  /** The slot passes straight to the first in line, if any. */
  private release(): void {
    const next = this.line.shift();
    if (next) {
      this.onLine(this.line.length);
      next.start();
    } else this.running--;
  }

  private hold(client: string, delta: number): void {
    const n = (this.held.get(client) ?? 0) + delta;
    if (n === 0) this.held.delete(client);
    else this.held.set(client, n);
  }
}
