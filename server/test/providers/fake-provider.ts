import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  at: number;
}

export type FakeHandler = (req: RecordedRequest, res: ServerResponse, n: number) => unknown;

export interface FakeProvider {
  /** http://127.0.0.1:PORT */
  origin: string;
  requests: RecordedRequest[];
  /** Highest number of requests the server was handling at the same time. */
  maxInFlight: number;
  handle(handler: FakeHandler): void;
  close(): Promise<void>;
}

/**
 * A real HTTP server standing in for a provider: it records every request (method, path,
 * headers, parsed body) and answers through the handler the test installs.
 */
export async function startFakeProvider(): Promise<FakeProvider> {
  let handler: FakeHandler = (_req, res) => json(res, 500, { error: { message: 'no handler' } });
  let inFlight = 0;
  const fake: FakeProvider = {
    origin: '',
    requests: [],
    maxInFlight: 0,
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // not JSON: keep the text
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now() };
      fake.requests.push(recorded);
      inFlight++;
      fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
      res.on('close', () => inFlight--);
      Promise.resolve(handler(recorded, res, fake.requests.length)).catch((err: unknown) => {
        if (!res.headersSent) json(res, 500, { error: { message: String(err) } });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function chatReply(content: string) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  };
}

/** An OpenAI-style server-sent event stream of the given content pieces. */
export function streamChat(res: ServerResponse, pieces: string[]) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const piece of pieces) {
    const chunk = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'fake', choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] };
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'fake', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
  res.end('data: [DONE]\n\n');
}
