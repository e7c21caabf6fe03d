import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

/**
 * A local HTTP host for the attack tests: records every request it receives (method, path,
 * Authorization, body) and answers with whatever `route` says. By default it answers an
 * OpenAI-compatible chat completion, so a provider connection's test passes against it.
 */
export interface FakeHost {
  url: string;
  port: number;
  seen: SeenRequest[];
  route: (req: IncomingMessage, res: ServerResponse, body: string) => void;
  close(): Promise<void>;
}

export function chatCompletion(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
}

export async function startFakeHost(host = '127.0.0.1'): Promise<FakeHost> {
  const fake: FakeHost = {
    url: '',
    port: 0,
    seen: [],
    route: (_req, res) => chatCompletion(res),
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
      const body = Buffer.concat(chunks).toString('utf8');
      fake.seen.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body });
      fake.route(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  fake.port = (server.address() as AddressInfo).port;
  fake.url = `http://${host.includes(':') ? `[${host}]` : host}:${fake.port}`;
  return fake;
}
