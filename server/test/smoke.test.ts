import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

describe('smoke', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it('logs in, is forced to change the password, then reads /auth/me', async () => {
    const login = await server.request('POST', '/api/v1/auth/login', { body: { username: 'admin', password: 'initial-admin-pass' } });
    expect(login.status).toBe(200);
    expect(login.body.data.user.must_change_password).toBe(true);
    const blocked = await server.request('GET', '/api/v1/api-keys', { token: login.body.data.token });
    expect(blocked.status).toBe(403);
    expect(blocked.body.code).toBe(40301);
    const token = await server.adminToken();
    const me = await server.request('GET', '/api/v1/auth/me', { token });
    expect(me.status).toBe(200);
    expect(me.body.data.workspace.slug).toBe('default');
    const openapi = await server.request('GET', '/api/v1/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toBe('3.1.0');
  });
});
