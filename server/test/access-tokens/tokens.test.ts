import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { API, ok, setStatus, workspaceWithProduct, type Workspace } from '../tasks/fixtures.js';

/** Personal access tokens over the real HTTP API (contract-decisions §13). */
describe('personal access tokens', () => {
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    ws = await workspaceWithProduct(server);
  });
  afterAll(async () => server?.close());

  const create = async (session: string, body: Record<string, unknown>) => {
    const res = await server.request('POST', `${API}/auth/tokens`, { token: session, body });
    expect(res.status, res.text).toBe(200);
    return res.body.data as { id: number; token: string; scopes: string[]; status: string; token_hint: string };
  };

  it('is shown once, stored hashed, listed without the token, and never logged', async () => {
    const made = await create(ws.token, { name: '脚本', scopes: ['read', 'produce'] });
    expect(made.token).toMatch(/^cps_pat_[A-Za-z0-9_-]{43}$/);
    expect(made).toMatchObject({ name: '脚本', scopes: ['read', 'produce'], status: 'active', expires_at: null, last_used_at: null });
    expect(made.token.startsWith(made.token_hint)).toBe(true);
    const row = await server.ctx.db.selectFrom('access_tokens').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(made.token);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);

    const me = await server.request('GET', `${API}/auth/me`, { token: made.token });
    expect(me.status, me.text).toBe(200);
    const listed = await ok(server, 'GET', '/auth/tokens', ws.token);
    const item = listed.items.find((t: { id: number }) => t.id === made.id);
    expect(item.last_used_at).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain(made.token);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.logs.join('')).not.toContain(made.token);
  });

  it('narrows the role to its scopes, with a refusal that names the missing scope', async () => {
    const readOnly = await create(ws.token, { name: 'read only', scopes: ['read'] });
    expect((await server.request('GET', `${API}/products`, { token: readOnly.token })).status).toBe(200);
    const refused = await server.request('POST', `${API}/products`, { token: readOnly.token, body: { name: 'x', category: 'c', source: 'custom' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 40300, message: expect.stringContaining('produce scope') });

    const produce = await create(ws.token, { name: 'produce only', scopes: ['produce'] });
    expect((await server.request('GET', `${API}/products`, { token: produce.token })).body.code).toBe(40300);
    const product = await server.request('POST', `${API}/products`, { token: produce.token, body: { name: '令牌产品', category: 'c', source: 'custom' } });
    expect(product.status, product.text).toBe(200);
    // Scopes show in allowed_actions like the role does.
    const me = await server.request('GET', `${API}/auth/me`, { token: readOnly.token });
    expect(me.body.data.allowed_actions).toEqual([]);

    // An admin's produce-only token cannot approve, however high the role.
    const task = await ok(server, 'POST', '/tasks', ws.token, { product_id: ws.productId, theme: '审核', text_count: 1, image_count: 0, track: 'ai' });
    await setStatus(server, task.id, 'pending_review');
    const approve = await server.request('POST', `${API}/review/${task.id}/approve`, { token: produce.token });
    expect(approve.body).toMatchObject({ code: 40300, message: expect.stringContaining('review scope') });
    const reviewer = await create(ws.token, { name: 'reviewer', scopes: ['review'] });
    expect((await server.request('POST', `${API}/review/${task.id}/approve`, { token: reviewer.token })).status).toBe(200);

    // A token never manages tokens, passwords or workspaces: a person's session does.
    const all = await create(ws.token, { name: 'everything', scopes: ['read', 'produce', 'review', 'admin'] });
    for (const [method, path, body] of [
      ['GET', '/auth/tokens', undefined],
      ['POST', '/auth/tokens', { name: 'child', scopes: ['read'] }],
      ['POST', '/auth/change-password', { current_password: 'x', new_password: 'y-long-enough-1' }],
      ['POST', '/workspaces/switch', { workspace_id: ws.workspaceId }],
    ] as const) {
      const res = await server.request(method, `${API}${path}`, { token: all.token, ...(body ? { body } : {}) });
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 403, code: 40300 });
    }
  });

  it('refuses a scope the role can never use, and an expiry in the past', async () => {
    const op = await userWithRole(server, 'pat-operator', 'operator');
    const res = await server.request('POST', `${API}/auth/tokens`, { token: op.token, body: { name: 'x', scopes: ['review'] } });
    expect(res.body).toMatchObject({ code: 40000, message: expect.stringContaining('leave out review') });
    const past = await server.request('POST', `${API}/auth/tokens`, { token: op.token, body: { name: 'x', scopes: ['read'], expires_at: '2000-01-01T00:00:00Z' } });
    expect(past.body.code).toBe(40000);
  });

  it('dies when revoked, when it expires, and with a password change, a role change or a removal', async () => {
    const revoked = await create(ws.token, { name: 'revoke me', scopes: ['read'] });
    expect((await server.request('DELETE', `${API}/auth/tokens/${revoked.id}`, { token: ws.token })).status).toBe(200);
    expect((await server.request('GET', `${API}/products`, { token: revoked.token })).body.code).toBe(40101);
    expect((await server.request('DELETE', `${API}/auth/tokens/${revoked.id}`, { token: ws.token })).body.code).toBe(40400);

    const soon = await create(ws.token, { name: 'expiring', scopes: ['read'], expires_at: new Date(server.clock.now().getTime() + 3_600_000).toISOString() });
    expect((await server.request('GET', `${API}/products`, { token: soon.token })).status).toBe(200);
    server.clock.advance(3_600_001);
    expect((await server.request('GET', `${API}/products`, { token: soon.token })).body.code).toBe(40101);

    const admin = await server.adminToken();
    const sup = await userWithRole(server, 'pat-supervisor', 'supervisor');
    const byRole = await create(sup.token, { name: 'role', scopes: ['read'] });
    expect((await server.request('GET', `${API}/products`, { token: byRole.token })).status).toBe(200);
    await ok(server, 'PATCH', `/users/${sup.id}`, admin, { role: 'operator' });
    expect((await server.request('GET', `${API}/products`, { token: byRole.token })).body.code).toBe(40101);
    const listed = await server.request('GET', `${API}/auth/tokens`, { token: (await server.request('POST', `${API}/auth/login`, { body: { username: 'pat-supervisor', password: 'second-password-2' } })).body.data?.token });
    if (listed.status === 200) expect(listed.body.data.items[0].status).toBe('invalidated');

    const op = await userWithRole(server, 'pat-op2', 'operator');
    const byPassword = await create(op.token, { name: 'pw', scopes: ['read'] });
    const changed = await ok(server, 'POST', '/auth/change-password', op.token, { current_password: 'second-password-2', new_password: 'third-password-3' });
    expect(changed.token).toBeTruthy();
    expect((await server.request('GET', `${API}/products`, { token: byPassword.token })).body.code).toBe(40101);

    const gone = await userWithRole(server, 'pat-gone', 'operator');
    const byRemoval = await create(gone.token, { name: 'rm', scopes: ['read'] });
    await ok(server, 'DELETE', `/workspaces/${ws.workspaceId}/members/${gone.id}`, admin);
    expect((await server.request('GET', `${API}/products`, { token: byRemoval.token })).body.code).toBe(40101);
  });

  it("another user's token is not listed nor revocable (404)", async () => {
    const mine = await create(ws.token, { name: 'admin token', scopes: ['read'] });
    const other = await userWithRole(server, 'pat-other', 'admin');
    expect((await ok(server, 'GET', '/auth/tokens', other.token)).items).toEqual([]);
    expect((await server.request('DELETE', `${API}/auth/tokens/${mine.id}`, { token: other.token })).body.code).toBe(40400);
  });
});
