import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Regressions for what the hostile-input fuzzer of `npm run prove` found (docs/reliability.md). */
describe('fuzzer findings', () => {
  let server: TestServer;
  let token: string;
  let productId: number;
  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    token = await server.adminToken();
    productId = (await server.request('POST', '/api/v1/products', { token, body: { name: 'p', category: 'c', source: 'custom' } })).body.data.id;
  });
  afterAll(async () => server?.close());

  it('a multipart content type without a boundary is a 400, not a 500', async () => {
    const res = await server.request('POST', `/api/v1/products/${productId}/images`, {
      token,
      headers: { 'content-type': 'multipart/form-data' },
      raw: '--x\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\nabc',
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(40000);
    const cut = await server.request('POST', `/api/v1/products/${productId}/images`, {
      token,
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      raw: '--x\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nabc',
    });
    expect(cut.status).toBe(400);
    expect(cut.body.code).toBe(40000);
  });

  it('a refused upload is answered, not reset, however much of the body is still unread', async () => {
    const form = new FormData();
    // The second file breaks the one-file limit while 3 MB of it are still on the way.
    form.append('image', new Blob([randomBytes(1024)]), 'a.png');
    form.append('screenshot', new Blob([randomBytes(3 * 1024 * 1024)]), 'b.png');
    const res = await fetch(`${server.url}/api/v1/products/${productId}/images`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: number }).code).toBe(41300);
    const wrongField = new FormData();
    wrongField.append('screenshot', new Blob([randomBytes(2 * 1024 * 1024)]), 'b.png');
    const res2 = await fetch(`${server.url}/api/v1/products/${productId}/images`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: wrongField });
    expect(res2.status).toBe(400);
    // Refused before the handler read anything: a path id that fails validation, a foreign product.
    for (const id of ['-1', '999999']) {
      const early = new FormData();
      early.append('image', new Blob([randomBytes(2 * 1024 * 1024)]), 'b.png');
      const res3 = await fetch(`${server.url}/api/v1/products/${id}/images`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: early });
      expect(res3.status).toBe(id === '-1' ? 400 : 404);
    }
    // The same keep-alive connection pool keeps working.
    expect((await server.request('GET', '/api/v1/products', { token })).status).toBe(200);
  });
});
