import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../src/security/tokens.js';
import { ADMIN_PASSWORD, startTestServer, userWithRole, type Response, type TestServer } from '../helpers/server.js';

/** Every error of the platform endpoints is the contract's envelope with the exact status and code, plus its reason and params. */
function expectError(res: Response, status: number, code: number, messagePart?: string | RegExp) {
  expect({ status: res.status, code: res.body?.code }, res.text).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(['code', 'message', 'params', 'reason']);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.reason).toMatch(/^[a-z_]+\.[a-z_]+$/);
  expect(typeof res.body.params).toBe('object');
  if (messagePart) expect(res.body.message).toMatch(messagePart);
}

describe('error envelope of the platform endpoints', () => {
  let server: TestServer;
  let admin: string;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.adminToken();
  });
  afterAll(async () => server?.close());

  describe('400 / 40000 request validation', () => {
    it('names the field and the rule in one sentence', async () => {
      const missing = await server.request('POST', '/api/v1/auth/login', { body: { username: 'admin' } });
      expectError(missing, 400, 40000);
      expect(missing.body.message).toBe('body.password is required');
      const role = await server.request('POST', '/api/v1/users', {
        token: admin,
        body: { username: 'roleless', email: 'r@example.com', password: 'long-enough-pw', role: 'owner' },
      });
      expect(role.body.message).toBe('body.role must be one of admin, supervisor, operator');
      const page = await server.request('GET', '/api/v1/users?page_size=0', { token: admin });
      expect(page.body.message).toBe('querystring.page_size must be >= 1');
    });

    it('refuses wrong body types instead of coercing them', async () => {
      const cases: Array<[string, string, unknown, RegExp]> = [
        ['POST', '/api/v1/auth/login', { username: 123, password: ADMIN_PASSWORD }, /username/],
        ['POST', '/api/v1/auth/login', { username: ['admin'], password: ADMIN_PASSWORD }, /username/],
        ['POST', '/api/v1/workspaces/switch', { workspace_id: '1' }, /workspace_id/],
        ['POST', '/api/v1/api-keys', { provider: 'local', api_key: { value: 'abcd' } }, /api_key/],
        ['POST', '/api/v1/users', { username: 'newbie', email: 'not-an-email', password: 'long-enough-pw', role: 'operator' }, /email/],
        ['POST', '/api/v1/users', { username: 'newbie', email: 'n@example.com', password: 'long-enough-pw', role: 'owner' }, /role/],
      ];
      for (const [method, path, body, field] of cases) {
        expectError(await server.request(method, path, { token: admin, body }), 400, 40000, field);
      }
    });

    it('does not turn null into false: {"is_active": null} leaves the user active', async () => {
      const op = await userWithRole(server, 'nulled', 'operator');
      const res = await server.request('PATCH', `/api/v1/users/${op.id}`, { token: admin, body: { is_active: null } });
      expectError(res, 400, 40000, /is_active/);
      const me = await server.request('GET', '/api/v1/auth/me', { token: op.token });
      expect(me.status).toBe(200);
    });

    it('answers malformed and empty JSON with the envelope', async () => {
      const headers = { 'content-type': 'application/json' };
      expectError(await server.request('POST', '/api/v1/auth/login', { headers, raw: '{"username": "admin",' }), 400, 40000);
      expectError(await server.request('POST', '/api/v1/auth/login', { headers, raw: '' }), 400, 40000);
      expectError(await server.request('POST', '/api/v1/auth/login', { headers, raw: 'null' }), 400, 40000);
      expectError(await server.request('POST', '/api/v1/auth/login', { headers, raw: '[1,2]' }), 400, 40000);
    });

    it('validates query strings and path parameters', async () => {
      expectError(await server.request('GET', '/api/v1/users?page_size=0', { token: admin }), 400, 40000, /page_size/);
      expectError(await server.request('GET', '/api/v1/users?page_size=101', { token: admin }), 400, 40000, /page_size/);
      expectError(await server.request('GET', '/api/v1/api-keys?page=abc', { token: admin }), 400, 40000, /page/);
      expectError(await server.request('DELETE', '/api/v1/api-keys/abc', { token: admin }), 400, 40000, /id/);
      expectError(await server.request('DELETE', '/api/v1/api-keys/99999999999', { token: admin }), 400, 40000, /id/);
    });

    it('rejects a wrong current password and a short new one on change-password', async () => {
      const op = await userWithRole(server, 'pwrules', 'operator');
      const wrong = await server.request('POST', '/api/v1/auth/change-password', {
        token: op.token,
        body: { current_password: 'not-my-password', new_password: 'another-password-9' },
      });
      expectError(wrong, 400, 40000, /current_password/);
      const short = await server.request('POST', '/api/v1/auth/change-password', {
        token: op.token,
        body: { current_password: 'second-password-2', new_password: 'short' },
      });
      expectError(short, 400, 40000, /new_password/);
    });
  });

  describe('401', () => {
    it('40100 without credentials', async () => {
      expectError(await server.request('GET', '/api/v1/auth/me'), 401, 40100);
      expectError(await server.request('GET', '/api/v1/users'), 401, 40100);
      expectError(await server.request('POST', '/api/v1/api-keys', { body: { provider: 'local', api_key: 'abcdef' } }), 401, 40100);
    });

    it('40101 for a malformed, forged or expired token', async () => {
      expectError(await server.request('GET', '/api/v1/auth/me', { token: 'not-a-jwt' }), 401, 40101);
      expectError(await server.request('GET', '/api/v1/auth/me', { headers: { authorization: 'Bearer' } }), 401, 40101);
      expectError(await server.request('GET', '/api/v1/auth/me', { headers: { authorization: 'Basic YWRtaW46eA==' } }), 401, 40101);
      const forged = await new SignJWT({ ws: 1, role: 'admin', ver: 2 })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('1')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode('some-other-secret'));
      expectError(await server.request('GET', '/api/v1/auth/me', { token: forged }), 401, 40101);

      const token = await server.adminToken();
      expect((await server.request('GET', '/api/v1/auth/me', { token })).status).toBe(200);
      server.clock.advance(ACCESS_TOKEN_TTL_SECONDS * 1000 + 1000);
      try {
        expectError(await server.request('GET', '/api/v1/auth/me', { token }), 401, 40101);
      } finally {
        server.clock.advance(-(ACCESS_TOKEN_TTL_SECONDS * 1000 + 1000));
      }
      expect((await server.request('GET', '/api/v1/auth/me', { token })).status).toBe(200);
    });

    it('40102 for a wrong password and for an unknown user alike', async () => {
      const wrong = await server.request('POST', '/api/v1/auth/login', { body: { username: 'admin', password: 'wrong-password' } });
      const unknown = await server.request('POST', '/api/v1/auth/login', { body: { username: 'nobody-here', password: 'wrong-password' } });
      expectError(wrong, 401, 40102);
      expectError(unknown, 401, 40102);
      expect(unknown.body.message).toBe(wrong.body.message);
    });
  });

  describe('403', () => {
    it('40300 when the role lacks permission', async () => {
      const op = await userWithRole(server, 'lowly', 'operator');
      expectError(await server.request('GET', '/api/v1/users', { token: op.token }), 403, 40300, /admin/);
    });

    it('40301 while the password change is pending', async () => {
      const created = await server.request('POST', '/api/v1/users', {
        token: admin,
        body: { username: 'fresh1', email: 'fresh1@example.com', password: 'first-password-1', role: 'admin' },
      });
      const login = await server.request('POST', '/api/v1/auth/login', { body: { username: 'fresh1', password: 'first-password-1' } });
      expect(created.status).toBe(200);
      expectError(await server.request('GET', '/api/v1/users', { token: login.body.data.token }), 403, 40301, /change-password/);
    });
  });

  describe('404 / 40400', () => {
    it('for an unknown API route, with or without a token', async () => {
      expectError(await server.request('GET', '/api/v1/no-such-thing'), 404, 40400);
      expectError(await server.request('POST', '/api/v1/no-such-thing', { token: admin, body: {} }), 404, 40400);
      expectError(await server.request('GET', '/api/v2/users'), 404, 40400);
      expectError(await server.request('GET', '/api'), 404, 40400);
    });

    it('for a record that does not exist', async () => {
      expectError(await server.request('DELETE', '/api/v1/api-keys/424242', { token: admin }), 404, 40400);
      expectError(await server.request('PATCH', '/api/v1/users/424242', { token: admin, body: { email: 'x@example.com' } }), 404, 40400);
    });
  });

  describe('409 / 40900', () => {
    it('for a taken username or workspace slug, and for removing the last admin', async () => {
      const user = { username: 'twice', email: 'twice@example.com', password: 'first-password-1', role: 'operator' };
      expect((await server.request('POST', '/api/v1/users', { token: admin, body: user })).status).toBe(200);
      expectError(await server.request('POST', '/api/v1/users', { token: admin, body: user }), 409, 40900, /not available/);

      const ws = { name: 'Second', slug: 'second' };
      const second = await server.request('POST', '/api/v1/workspaces', { token: admin, body: ws });
      expect(second.status).toBe(200);
      expectError(await server.request('POST', '/api/v1/workspaces', { token: admin, body: ws }), 409, 40900, /second/);

      // In the new workspace the caller is the only admin.
      const me = (await server.request('GET', '/api/v1/auth/me', { token: admin })).body.data;
      const wsId = second.body.data.id;
      expectError(await server.request('DELETE', `/api/v1/workspaces/${wsId}/members/${me.id}`, { token: admin }), 409, 40900, /admin/);
      const demote = await server.request('POST', `/api/v1/workspaces/${wsId}/members`, { token: admin, body: { user_id: me.id, role: 'operator' } });
      expectError(demote, 409, 40900, /admin/);
      const switched = await server.request('POST', '/api/v1/workspaces/switch', { token: admin, body: { workspace_id: wsId } });
      const inSecond = switched.body.data.token;
      expectError(await server.request('PATCH', `/api/v1/users/${me.id}`, { token: inSecond, body: { role: 'supervisor' } }), 409, 40900);
      expectError(await server.request('PATCH', `/api/v1/users/${me.id}`, { token: inSecond, body: { is_active: false } }), 409, 40900);
    });
  });

  describe('413 / 41300 and 415 / 41500', () => {
    it('answers an oversize body with 413 before reading it', async () => {
      const big = JSON.stringify({ username: 'admin', password: 'x'.repeat(server.config.bodyLimitBytes + 10) });
      const res = await server.request('POST', '/api/v1/auth/login', { headers: { 'content-type': 'application/json' }, raw: big });
      expectError(res, 413, 41300);
    });

    it('answers an unsupported content type with 415', async () => {
      const text = await server.request('POST', '/api/v1/auth/login', {
        headers: { 'content-type': 'text/plain' },
        raw: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
      });
      expectError(text, 415, 41500, /content type/);
      const form = await server.request('POST', '/api/v1/api-keys', {
        token: admin,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        raw: 'provider=local&api_key=abcdef',
      });
      expectError(form, 415, 41500);
    });
  });

  describe('reason and params: the console words an error from these, never from message', () => {
    const answer = (res: Response) => ({ status: res.status, code: res.body.code, reason: res.body.reason, params: res.body.params, message: res.body.message });

    it('schema validation: required, one_of, minimum and format name the field', async () => {
      expect(answer(await server.request('POST', '/api/v1/auth/login', { body: { username: 'admin' } }))).toEqual({
        status: 400,
        code: 40000,
        reason: 'validation.required',
        params: { field: 'body.password' },
        message: 'body.password is required',
      });
      const role = await server.request('POST', '/api/v1/users', {
        token: admin,
        body: { username: 'reasonless', email: 'r2@example.com', password: 'long-enough-pw', role: 'owner' },
      });
      expect(answer(role)).toEqual({
        status: 400,
        code: 40000,
        reason: 'validation.one_of',
        params: { field: 'body.role', allowed: ['admin', 'supervisor', 'operator'] },
        message: 'body.role must be one of admin, supervisor, operator',
      });
      expect(answer(await server.request('GET', '/api/v1/users?page_size=0', { token: admin }))).toEqual({
        status: 400,
        code: 40000,
        reason: 'validation.minimum',
        params: { field: 'querystring.page_size', comparison: '>=', limit: 1 },
        message: 'querystring.page_size must be >= 1',
      });
      const email = await server.request('POST', '/api/v1/users', {
        token: admin,
        body: { username: 'reasonless', email: 'not-an-email', password: 'long-enough-pw', role: 'operator' },
      });
      expect({ reason: email.body.reason, params: email.body.params }).toEqual({ reason: 'validation.format', params: { field: 'body.email', format: 'email' } });
    });

    it('service rules: wrong credentials, a taken slug, an unknown record, no route, a media type', async () => {
      expect(answer(await server.request('POST', '/api/v1/auth/login', { body: { username: 'admin', password: 'not-the-password' } }))).toEqual({
        status: 401,
        code: 40102,
        reason: 'auth.wrong_credentials',
        params: {},
        message: 'wrong username or password',
      });
      const ws = { name: 'Reasons', slug: 'reasons' };
      expect((await server.request('POST', '/api/v1/workspaces', { token: admin, body: ws })).status).toBe(200);
      expect(answer(await server.request('POST', '/api/v1/workspaces', { token: admin, body: ws }))).toEqual({
        status: 409,
        code: 40900,
        reason: 'workspace.slug_taken',
        params: { slug: 'reasons' },
        message: 'a workspace with slug "reasons" already exists',
      });
      expect(answer(await server.request('DELETE', '/api/v1/api-keys/424242', { token: admin }))).toEqual({
        status: 404,
        code: 40400,
        reason: 'connection.not_found',
        params: {},
        message: 'API key not found',
      });
      expect(answer(await server.request('GET', '/api/v1/no-such-thing', { token: admin }))).toEqual({
        status: 404,
        code: 40400,
        reason: 'route.not_found',
        params: { method: 'GET', path: '/api/v1/no-such-thing' },
        message: 'no route GET /api/v1/no-such-thing',
      });
      const text = await server.request('POST', '/api/v1/auth/login', { headers: { 'content-type': 'text/plain' }, raw: '{}' });
      expect(answer(text)).toEqual({
        status: 415,
        code: 41500,
        reason: 'request.media_type',
        params: { type: 'text/plain' },
        message: 'unsupported content type "text/plain" for this route',
      });
      const noAuth = await server.request('GET', '/api/v1/users');
      expect({ reason: noAuth.body.reason, code: noAuth.body.code }).toEqual({ reason: 'auth.credentials_missing', code: 40100 });
    });
  });

  it('never answers malformed input on any route with a 500', async () => {
    const doc = (await server.request('GET', '/api/v1/openapi.json')).body;
    const payloads: Array<{ headers: Record<string, string>; raw: string }> = [
      { headers: { 'content-type': 'application/json' }, raw: '{"broken":' },
      { headers: { 'content-type': 'application/json' }, raw: '[]' },
      { headers: { 'content-type': 'application/json' }, raw: '"text"' },
      { headers: { 'content-type': 'application/json' }, raw: '{"__proto__": {"polluted": true}, "constructor": {"prototype": {}}}' },
      { headers: { 'content-type': 'application/json' }, raw: JSON.stringify(wrongTypes()) },
    ];
    let calls = 0;
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(item).filter((m) => ['post', 'put', 'patch', 'delete'].includes(m))) {
        for (const id of ['1', 'abc', '-1']) {
          const url = path.replace(/\{[^}]+\}/g, id);
          for (const payload of payloads) {
            const res = await server.request(method.toUpperCase(), url, { token: admin, ...payload });
            calls += 1;
            expect(res.status, `${method} ${url} ${payload.raw}: ${res.text}`).toBeLessThan(500);
            expect(typeof res.body?.code, `${method} ${url}: ${res.text}`).toBe('number');
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(30);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** A body whose every plausible field has the wrong type. */
function wrongTypes() {
  const fields = ['username', 'password', 'current_password', 'new_password', 'email', 'role', 'is_active', 'workspace_id',
    'user_id', 'provider', 'api_key', 'name', 'slug', 'product_id', 'theme', 'text_count', 'image_count', 'track',
    'candidate_id', 'content', 'reason', 'note_ids', 'source_task_id', 'fanout_count', 'word', 'level', 'category', 'source'];
  return Object.fromEntries(fields.map((f, i) => [f, [null, { nested: true }, [1, 'a'], -1e308, true][i % 5]]));
}
