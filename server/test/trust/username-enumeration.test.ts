import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 28, finding 9: `POST /users` with a username that exists only in another tenant
 * answered 409 naming it. Now a name in use anywhere gets one answer that names nothing and
 * does not tell where it is used.
 */
let server: TestServer;
let root: string;

beforeAll(async () => {
  server = await startTestServer({ worker: false });
  root = await server.adminToken();
});
afterAll(async () => server?.close());

const call = (token: string, method: string, path: string, body?: unknown) => server.request(method, `/api/v1${path}`, { token, ...(body !== undefined ? { body } : {}) });

async function tenantAdmin(slug: string): Promise<string> {
  const ws = (await call(root, 'POST', '/workspaces', { name: slug, slug })).body.data.id;
  const inWs = (await call(root, 'POST', '/workspaces/switch', { workspace_id: ws })).body.data.token;
  const username = `${slug}-admin`;
  expect((await call(inWs, 'POST', '/users', { username, email: `${username}@x.example`, password: 'first-password-1', role: 'admin' })).status).toBe(200);
  const login = await server.request('POST', '/api/v1/auth/login', { body: { username, password: 'first-password-1' } });
  return (await call(login.body.data.token, 'POST', '/auth/change-password', { current_password: 'first-password-1', new_password: 'second-password-2' })).body.data.token;
}

describe('creating a user never reveals another tenant’s users', () => {
  it('a name used in another tenant, in this tenant and by a deactivated account all get the same answer, naming nothing', async () => {
    const a = await tenantAdmin('enum-a');
    const b = await tenantAdmin('enum-b');
    const user = (token: string, username: string) => call(token, 'POST', '/users', { username, email: `${username}@y.example`, password: 'first-password-1', role: 'operator' });
    expect((await user(b, 'only-in-b')).status).toBe(200);
    expect((await user(a, 'own-of-a')).status).toBe(200);
    const gone = await user(a, 'gone-of-a');
    expect((await call(a, 'PATCH', `/users/${gone.body.data.id}`, { is_active: false })).status).toBe(200);

    const answers = await Promise.all(['only-in-b', 'own-of-a', 'gone-of-a'].map(async (name) => {
      const res = await user(a, name);
      expect(res.text).not.toContain(name);
      expect(res.text).not.toMatch(/enum-b/);
      return { status: res.status, body: res.body };
    }));
    expect(answers[0]).toEqual({ status: 409, body: { code: 40900, message: 'this username is not available: choose another', reason: 'user.username_unavailable', params: {} } });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    // Nothing was created or changed in tenant A by the refusals.
    const listed = (await call(a, 'GET', '/users?page_size=100')).body.data.items.map((u: { username: string }) => u.username);
    expect(listed).not.toContain('only-in-b');
  });

  it('two creations of one new name at once: one succeeds, the other gets the same answer (no 500)', async () => {
    const a = await tenantAdmin('enum-c');
    const both = await Promise.all([1, 2].map(() => call(a, 'POST', '/users', { username: 'raced-name', email: 'r@y.example', password: 'first-password-1', role: 'operator' })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(both.find((r) => r.status === 409)!.body.message).toBe('this username is not available: choose another');
  });
});
