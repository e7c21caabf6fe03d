import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The security headers (helmet, built once in app.ts) on every kind of response. */
describe('security headers', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    token = await server.adminToken();
  });
  afterAll(async () => server?.close());

  const expected = {
    'content-security-policy':
      "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data: blob:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline'",
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'referrer-policy': 'no-referrer',
    'strict-transport-security': 'max-age=31536000; includeSubDomains',
    'x-content-type-options': 'nosniff',
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-frame-options': 'SAMEORIGIN',
    'x-permitted-cross-domain-policies': 'none',
    'x-xss-protection': '0',
  };

  it('are set on API answers, errors, unknown routes and the operations endpoints', async () => {
    const cases: [string, string | undefined, number][] = [
      ['/api/v1/tasks', token, 200],
      ['/api/v1/auth/me', undefined, 401],
      ['/api/v1/no-such-route', token, 404],
      ['/healthz', undefined, 200],
    ];
    for (const [path, bearer, status] of cases) {
      const res = await server.request('GET', path, bearer ? { token: bearer } : {});
      expect(res.status, path).toBe(status);
      const headers = Object.fromEntries(Object.keys(expected).map((name) => [name, res.headers.get(name)]));
      expect(headers, path).toEqual(expected);
    }
  });
});
