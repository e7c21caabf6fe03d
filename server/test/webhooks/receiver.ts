import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface Received {
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** The body exactly as sent (signatures are over these bytes). */
  raw: string;
  body: any;
  at: number;
}

/** What to answer: a status and a JSON body, or `hang` (never answer). */
export type Answer = { status: number; body?: unknown } | 'hang';

/**
 * A local HTTP receiver standing in for a team's webhook endpoint or a group bot: records every
 * request and answers as `answer` decides (per path, per request count).
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (req: Received, countOnPath: number) => Answer = () => ({ status: 200, body: { ok: true } });
  private readonly server: Server;
  private readonly hanging = new Set<ServerResponse>();
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const u = new URL(req.url ?? '/', 'http://receiver');
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          body = undefined;
        }
        const entry: Received = { path: u.pathname, query: u.searchParams, headers: req.headers, raw, body, at: Date.now() };
        this.received.push(entry);
        const answer = this.answer(entry, this.on(u.pathname).length);
        if (answer === 'hang') {
          this.hanging.add(res);
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body ?? {}));
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';
    return this;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

export async function waitUntil<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
