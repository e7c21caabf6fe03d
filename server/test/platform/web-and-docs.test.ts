import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Routes Fastify actually serves, read from its route tree (`printRoutes`). */
function servedRoutes(tree: string): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  const prefixes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const full = (prefixes[depth - 1] ?? '') + match[2];
    prefixes[depth] = full;
    prefixes.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, path: full.replace(/\/\/+/g, '/') });
  }
  return routes;
}

describe('web client, API reference, logs', () => {
  let server: TestServer;
  let webDir: string;
  beforeAll(async () => {
    webDir = mkdtempSync(path.join(tmpdir(), 'cps-web-'));
    mkdirSync(path.join(webDir, 'assets'));
    writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><html><body><div id="root">CPS-TEST-CLIENT</div></body></html>');
    writeFileSync(path.join(webDir, 'assets', 'app.js'), 'console.log("cps-test-asset");');
    server = await startTestServer({ env: { WEB_DIST_DIR: webDir } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(webDir, { recursive: true, force: true });
  });

  describe('web client', () => {
    it('serves index.html at / and for client-side routes', async () => {
      for (const p of ['/', '/login', '/tasks/12', '/review/queue?tab=2']) {
        const res = await server.request('GET', p);
        expect(res.status, p).toBe(200);
        expect(res.headers.get('content-type'), p).toMatch(/^text\/html/);
        expect(res.text, p).toContain('CPS-TEST-CLIENT');
      }
    });

    it('serves built assets, and a missing asset is a 404', async () => {
      const asset = await server.request('GET', '/assets/app.js');
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(/javascript/);
      expect(asset.text).toContain('cps-test-asset');
      const missing = await server.request('GET', '/assets/missing.js');
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe(40400);
    });

    it('keeps unknown /api paths JSON 404s', async () => {
      for (const p of ['/api/v1/unknown', '/api/v1/users/1/nothing', '/api/elsewhere', '/api']) {
        const res = await server.request('GET', p);
        expect(res.status, p).toBe(404);
        expect(res.headers.get('content-type'), p).toMatch(/^application\/json/);
        expect(res.body, p).toEqual({ code: 40400, message: expect.any(String), reason: 'route.not_found', params: expect.objectContaining({ method: 'GET' }) });
      }
    });

    it('sends security headers and no CORS headers by default', async () => {
      const res = await server.request('GET', '/', { headers: { origin: 'https://evil.example' } });
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      // Plain HTTP on a LAN address must keep working: no forced upgrade of asset requests.
      const docs = await server.request('GET', '/api/docs/static/index.html');
      for (const csp of [res.headers.get('content-security-policy'), docs.headers.get('content-security-policy')]) {
        expect(csp).toMatch(/script-src 'self'/);
        expect(csp).not.toMatch(/upgrade-insecure-requests/);
      }
    });
  });

  describe('API reference', () => {
    it('the OpenAPI document lists every API route', async () => {
      const res = await server.request('GET', '/api/v1/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.1.0');
      const documented = new Set<string>();
      for (const [p, item] of Object.entries<Record<string, unknown>>(res.body.paths)) {
        for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${p}`);
      }
      const served = servedRoutes(server.app.printRoutes({ commonPrefix: false }))
        .filter((r) => r.path.startsWith('/api/v1/') && r.path !== '/api/v1/openapi.json' && r.method !== 'HEAD')
        .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
      expect(served.length).toBeGreaterThanOrEqual(14);
      expect(served).toContain('POST /api/v1/auth/login');
      expect(served).toContain('DELETE /api/v1/workspaces/{id}/members/{user_id}');
      expect(served.filter((r) => !documented.has(r))).toEqual([]);
      // Every documented route is served too.
      for (const route of documented) {
        const [method, p] = route.split(' ') as [string, string];
        expect(server.app.hasRoute({ method: method as 'GET', url: p.replace(/\{([^}]+)\}/g, ':$1') }), route).toBe(true);
      }
    });

    it('documents the error envelope and the bearer scheme', async () => {
      const doc = (await server.request('GET', '/api/v1/openapi.json')).body;
      expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(doc.paths['/api/v1/auth/login'].post.security).toEqual([]);
      expect(JSON.stringify(doc.paths['/api/v1/users'].get.responses['403'])).toMatch(/ErrorEnvelope|message/);
    });

    it('serves the browsable reference at /api/docs with its assets', async () => {
      const page = await server.request('GET', '/api/docs');
      expect(page.status).toBe(200);
      expect(page.text).toContain('swagger-ui');
      const init = await server.request('GET', '/api/docs/static/swagger-initializer.js');
      expect(init.status).toBe(200);
      const bundle = await server.request('GET', '/api/docs/static/swagger-ui-bundle.js');
      expect(bundle.status).toBe(200);
      const spec = await server.request('GET', '/api/docs/json');
      expect(spec.status).toBe(200);
      expect(Object.keys(spec.body.paths)).toContain('/api/v1/auth/login');
    });
  });

  describe('logs', () => {
    it('mask ticket, token and sig query parameters, bearer tokens and passwords', async () => {
      const secrets = ['TICKETSECRET123', 'TOKENSECRET456', 'SIGSECRET789'];
      await server.request('GET', `/api/v1/tasks/1/stream?ticket=${secrets[0]}&last_seq=2`);
      await server.request('GET', `/api/v1/delivery-packages/1/download-file?x=1&token=${secrets[1]}`);
      await server.request('GET', `/api/v1/files/abc?exp=1&SIG=${secrets[2]}`);
      const bearer = await server.adminToken();
      await server.request('GET', '/api/v1/auth/me', { token: bearer });
      await server.request('POST', '/api/v1/auth/login', { body: { username: 'admin', password: 'LOGGED-PASSWORD-X' } });
      const logs = server.logs.join('');
      expect(logs).toContain('/api/v1/tasks/1/stream?ticket=[redacted]&last_seq=2');
      expect(logs).toContain('download-file?x=1&token=[redacted]');
      for (const secret of [...secrets, bearer, 'LOGGED-PASSWORD-X']) expect(logs).not.toContain(secret);
      // Each request is logged with its request id.
      expect(logs).toMatch(/"reqId":"[^"]+".*"url":"\/api\/v1\/auth\/me"/);
    });

    it('takes a well-formed X-Request-Id from the caller and ignores a malformed one', async () => {
      await server.request('GET', '/api/v1/auth/me', { headers: { 'x-request-id': 'trace-abc.123' } });
      await server.request('GET', '/api/v1/auth/me', { headers: { 'x-request-id': 'bad id\twith spaces' } });
      const logs = server.logs.join('');
      expect(logs).toContain('"reqId":"trace-abc.123"');
      expect(logs).not.toContain('bad id');
    });
  });
});

describe('without a built web client', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { WEB_DIST_DIR: path.join(tmpdir(), 'cps-no-such-web-dir') } });
  });
  afterAll(async () => server?.close());

  it('still serves the API, and / is a JSON 404', async () => {
    expect((await server.request('GET', '/api/v1/openapi.json')).status).toBe(200);
    const root = await server.request('GET', '/');
    expect(root.status).toBe(404);
    expect(root.body.code).toBe(40400);
  });
});

describe('CORS_ORIGINS', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { CORS_ORIGINS: 'https://app.example.com' } });
  });
  afterAll(async () => server?.close());

  it('allows only the configured origins', async () => {
    const allowed = await server.request('GET', '/api/v1/openapi.json', { headers: { origin: 'https://app.example.com' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const other = await server.request('GET', '/api/v1/openapi.json', { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('API_DOCS=off (issue 17, finding 7)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { API_DOCS: 'off' } });
  });
  afterAll(async () => server?.close());

  it('serves neither the browsable reference nor the OpenAPI document; the API itself is unchanged', async () => {
    for (const path of ['/api/docs', '/api/docs/', '/api/docs/static/index.html', '/api/v1/openapi.json']) {
      const res = await server.request('GET', path);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 404, code: 40400 });
    }
    expect((await server.request('GET', '/api/v1/auth/me', { token: await server.adminToken() })).status).toBe(200);
  });

  it('any other value refuses to start', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', DATA_DIR: server.dataDir, API_DOCS: 'private' })).toThrow(ConfigError);
    expect(loadConfig({ NODE_ENV: 'test', DATA_DIR: server.dataDir }).apiDocs).toBe('public');
  });
});
