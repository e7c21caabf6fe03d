import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskQuerySecrets } from '../../src/logging.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 28, finding 8: a secret sent under a percent-encoded parameter name (`?%74oken=`,
 * `?t%69cket=`) is read by the query parser as `token` / `ticket`, so it must be masked in the
 * log like the plain spelling.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ worker: false });
});
afterAll(async () => server?.close());

describe('secrets in query strings never reach the log', () => {
  const spellings = ['token', '%74oken', 'TOKEN', 't%6Fk%65n', 'ticket', 't%69cket', '%74%69%63%6b%65%74', 'sig', '%73ig'];

  it.each(spellings)('?%s=… is masked in the request log line', async (name) => {
    const secret = `secret-${Math.random().toString(36).slice(2)}-value`;
    await server.request('GET', `/api/v1/tasks/1/stream?${name}=${secret}&last_seq=0`);
    await server.request('GET', `/api/v1/delivery-packages/1/download-file?${name}=${secret}`);
    await server.request('GET', `/api/v1/files/some-key?${name}=${secret}&exp=1`);
    const logged = server.logs.join('');
    expect(logged).toContain('[redacted]');
    expect(logged).not.toContain(secret);
  });

  it('masks by the decoded name only, and an undecodable name too', () => {
    expect(maskQuerySecrets('/x?page=2&%74oken=abc&name=tok%65n')).toBe('/x?page=2&%74oken=[redacted]&name=tok%65n');
    expect(maskQuerySecrets('/x?t%69cket=abc&t%zzicket=def')).toBe('/x?t%69cket=[redacted]&t%zzicket=[redacted]');
    expect(maskQuerySecrets('/x?tokens=abc')).toBe('/x?tokens=abc');
  });
});
