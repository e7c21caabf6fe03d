import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { chatCompletion, startFakeHost, type FakeHost } from './fake-host.js';

/**
 * Issue 28, findings 3 and 4, and ALLOW_PRIVATE_PROVIDER_HOSTS (issue 27), through the HTTP API.
 * Everything listens on 127.0.0.1; the service's outbound name lookups are answered by this
 * test's resolver, so names stand for hosts:
 *
 * - `relay.example` → 127.0.0.1, listed in ALLOW_PRIVATE_PROVIDER_HOSTS with the relay's port
 *   only: the intranet relay a deployment allows;
 * - `cdn.example` → 127.0.0.1, listed nowhere: an internal service reached by a redirect;
 * - `rebind.example` → a public address on its first lookup, 127.0.0.1 on every later one.
 *
 * `internal` is the service nobody may reach: every request it records is a successful attack.
 */
let server: TestServer;
let relay: FakeHost;
let internal: FakeHost;
let admin: string;
let lookups: Record<string, number>;
let png: Buffer;

const PUBLIC = '93.184.215.14';
async function resolve(hostname: string): Promise<string[]> {
  lookups[hostname] = (lookups[hostname] ?? 0) + 1;
  if (hostname === 'relay.example' || hostname === 'cdn.example') return ['127.0.0.1'];
  if (hostname === 'rebind.example') return lookups[hostname] === 1 ? [PUBLIC] : ['127.0.0.1'];
  throw new Error(`ENOTFOUND ${hostname}`);
}

beforeAll(async () => {
  [relay, internal] = await Promise.all([startFakeHost(), startFakeHost()]);
  png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#88aacc' } }).png().toBuffer();
  server = await startTestServer({ worker: false, resolve, env: { ALLOW_PRIVATE_PROVIDER_HOSTS: `relay.example:${relay.port}`, PROVIDER_MAX_RETRIES: '0' } });
  admin = await server.adminToken();
});
afterAll(async () => {
  await server?.close();
  await Promise.all([relay?.close(), internal?.close()]);
});
beforeEach(() => {
  lookups = {};
  relay.seen.length = 0;
  internal.seen.length = 0;
  relay.route = (_req, res) => chatCompletion(res);
});

async function connection(baseUrl: string, extra: Record<string, unknown> = {}) {
  return server.request('POST', '/api/v1/api-keys', { token: admin, body: { provider: 'openai-compatible', api_key: 'sk-relay-key-0001', base_url: baseUrl, text_model: 'm', ...extra } });
}

async function test(id: number, body: Record<string, unknown> = {}) {
  const res = await server.request('POST', `/api/v1/api-keys/${id}/test`, { token: admin, body });
  expect(res.status, res.text).toBe(200);
  return res.body.data as { ok: boolean; results: Array<{ capability: string; ok: boolean; error_kind: string | null; message: string | null }> };
}

describe('private addresses: only the hosts the deployment lists', () => {
  it('the listed host:port is reachable; the same host on another port, loopback and mapped loopback are not', async () => {
    const listed = await connection(`http://relay.example:${relay.port}/v1`);
    expect(listed.status, listed.text).toBe(200);
    expect((await test(listed.body.data.id)).ok).toBe(true);
    for (const url of [`http://relay.example:${internal.port}/v1`, `http://127.0.0.1:${internal.port}/v1`, `http://[::ffff:7f00:1]:${internal.port}/v1`, `http://[::ffff:127.0.0.1]:${relay.port}/v1`, `http://cdn.example:${internal.port}/v1`]) {
      const refused = await connection(url);
      expect({ url, status: refused.status, code: refused.body.code }).toEqual({ url, status: 400, code: 40000 });
      expect(refused.body.message).toMatch(/^base_url must point to a public address/);
    }
    expect(internal.seen).toEqual([]);
  });
});

describe('provider calls never follow a redirect (finding 3)', () => {
  for (const [status, where, location] of [
    [307, 'loopback', (port: number) => `http://127.0.0.1:${port}/steal`],
    [308, 'IPv4-mapped loopback', (port: number) => `http://[::ffff:7f00:1]:${port}/steal`],
    [303, 'an internal name (as a GET)', (port: number) => `http://cdn.example:${port}/admin/delete`],
    [302, 'the same relay', () => `http://relay.example:${relay.port}/elsewhere`],
  ] as const) {
    it(`a ${status} to ${where} is a provider error, and nothing follows it`, async () => {
      relay.route = (_req, res) => {
        res.writeHead(status, { location: location(internal.port) });
        res.end();
      };
      const id = (await connection(`http://relay.example:${relay.port}/v1`)).body.data.id;
      const result = await test(id);
      expect(result.ok).toBe(false);
      expect(result.results[0]).toMatchObject({ capability: 'text', ok: false, error_kind: 'unavailable' });
      expect(result.results[0]!.message).toMatch(/answered a redirect \(HTTP \d{3}\); provider calls do not follow redirects/);
      expect(internal.seen).toEqual([]);
      // One request, the one sent: no hop, not even to the same host.
      expect(relay.seen.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    });
  }
});

describe('image downloads follow redirects, each hop checked where it connects (finding 3)', () => {
  /** The relay draws: its answer links to `first`, which answers with what `hops` says. */
  function drawing(hops: Record<string, (port: number) => { status: number; location?: string } | 'png'>) {
    relay.route = (req, res) => {
      const path = req.url ?? '';
      if (path.endsWith('/images/generations')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ created: 1, data: [{ url: `http://relay.example:${relay.port}/img/first.png` }] }));
        return;
      }
      const hop = hops[path];
      const answer = hop ? hop(internal.port) : 'png';
      if (answer === 'png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(png);
        return;
      }
      res.writeHead(answer.status, answer.location ? { location: answer.location } : {});
      res.end();
    };
    internal.route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(png);
    };
  }

  async function drawTest() {
    const id = (await connection(`http://relay.example:${relay.port}/v1`, { image_model: 'img' })).body.data.id;
    const result = await test(id, { image: true });
    return result.results.find((r) => r.capability === 'image')!;
  }

  it('a redirect to another path of the listed relay is followed, and the image arrives', async () => {
    drawing({ '/img/first.png': () => ({ status: 302, location: '/img/final.png' }) });
    const drawn = await drawTest();
    expect(drawn, drawn.message ?? "").toMatchObject({ ok: true, error_kind: null });
    expect(relay.seen.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/images/generations', '/img/first.png', '/img/final.png']);
  });

  for (const [what, location] of [
    ['loopback', (port: number) => `http://127.0.0.1:${port}/secret.png`],
    ['IPv4-mapped loopback', (port: number) => `http://[::ffff:7f00:1]:${port}/secret.png`],
    ['a name of a private address', (port: number) => `http://cdn.example:${port}/secret.png`],
    ['the relay host on a port not listed', (port: number) => `http://relay.example:${port}/secret.png`],
  ] as const) {
    it(`a redirect to ${what} is refused before connecting`, async () => {
      drawing({ '/img/first.png': (port) => ({ status: 307, location: location(port) }) });
      const image = await drawTest();
      expect(image).toMatchObject({ ok: false, error_kind: 'bad_output' });
      expect(image.message).toMatch(/image download refused: .*(not public|non-public)/);
      expect(internal.seen).toEqual([]);
    });
  }
});

describe('DNS rebinding (finding 4): the address checked is the address connected to', () => {
  it('a base_url whose name was public when saved and resolves to 127.0.0.1 when called is refused at connection', async () => {
    const saved = await connection(`http://rebind.example:${internal.port}/v1`);
    expect(saved.status, saved.text).toBe(200);
    expect(lookups['rebind.example']).toBe(1);
    const result = await test(saved.body.data.id);
    expect(result.results[0]).toMatchObject({ ok: false, error_kind: 'unavailable' });
    expect(result.results[0]!.message).toMatch(/rebind\.example resolves to a non-public address \(127\.0\.0\.1\)/);
    expect(lookups['rebind.example']).toBe(2);
    expect(internal.seen).toEqual([]);
  });

  it('an image link on the provider\'s own origin that re-resolves to 127.0.0.1 is refused (same-origin links are checked too)', async () => {
    lookups['rebind.example'] = 1; // its public answer was given at save time
    const id = (await connection(`http://relay.example:${relay.port}/v1`, { image_model: 'img' })).body.data.id;
    relay.route = (req, res) => {
      if ((req.url ?? '').endsWith('/images/generations')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ created: 1, data: [{ url: `http://rebind.example:${internal.port}/secret.png` }] }));
        return;
      }
      chatCompletion(res);
    };
    const image = (await test(id, { image: true })).results.find((r) => r.capability === 'image')!;
    expect(image).toMatchObject({ ok: false, error_kind: 'bad_output' });
    expect(image.message).toMatch(/rebind\.example resolves to a non-public address/);
    expect(internal.seen).toEqual([]);
  });
});
