import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';

type Role = 'admin' | 'supervisor' | 'operator';

/** Role matrix of contract-decisions §3 for users, workspaces and API keys, and workspace isolation. */
describe('roles and workspace isolation', () => {
  let server: TestServer;
  let admin: string;
  const tokens = {} as Record<Role, { token: string; id: number }>;
  let defaultWs: number;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.adminToken();
    for (const role of ['admin', 'supervisor', 'operator'] as const) tokens[role] = await userWithRole(server, `r-${role}`, role);
    defaultWs = (await server.request('GET', '/api/v1/auth/me', { token: admin })).body.data.current_workspace_id;
  });
  afterAll(async () => server?.close());

  const call = (role: Role, method: string, path: string, body?: unknown) =>
    server.request(method, path, { token: tokens[role].token, ...(body !== undefined ? { body } : {}) });

  describe('users: admin only', () => {
    it.each(['supervisor', 'operator'] as const)('%s gets 403 / 40300 on every users endpoint', async (role) => {
      const target = tokens.operator.id;
      for (const [method, path, body] of [
        ['GET', '/api/v1/users', undefined],
        ['POST', '/api/v1/users', { username: `by-${role}`, email: 'x@example.com', password: 'first-password-1', role: 'operator' }],
        ['PATCH', `/api/v1/users/${target}`, { email: 'changed@example.com' }],
      ] as const) {
        const res = await call(role, method, path, body);
        expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 403, code: 40300 });
      }
    });

    it('admin lists, creates and changes users of the current workspace', async () => {
      const list = await call('admin', 'GET', '/api/v1/users?page=1&page_size=2');
      expect(list.status).toBe(200);
      expect(list.body.data).toMatchObject({ page: 1, page_size: 2 });
      expect(list.body.data.items).toHaveLength(2);
      expect(list.body.data.total).toBeGreaterThanOrEqual(4);
      const created = await call('admin', 'POST', '/api/v1/users', {
        username: 'by-admin',
        email: 'by-admin@example.com',
        password: 'first-password-1',
        role: 'operator',
      });
      expect(created.status).toBe(200);
      expect(created.body.data).toMatchObject({ username: 'by-admin', role: 'operator', must_change_password: true, is_active: true });
      expect(created.text).not.toMatch(/password_hash|first-password-1/);
      const changed = await call('admin', 'PATCH', `/api/v1/users/${created.body.data.id}`, { email: 'new@example.com', role: 'supervisor' });
      expect(changed.body.data).toMatchObject({ email: 'new@example.com', role: 'supervisor' });
    });
  });

  it('an admin changes only the role of an account that also belongs to workspaces they do not administer', async () => {
    const shared = await userWithRole(server, 'shared-user', 'operator');
    const elsewhere = await server.request('POST', '/api/v1/workspaces', { token: admin, body: { name: 'Elsewhere', slug: 'elsewhere' } });
    await server.request('POST', `/api/v1/workspaces/${elsewhere.body.data.id}/members`, {
      token: admin,
      body: { user_id: shared.id, role: 'admin' },
    });
    // r-admin administers only the default workspace: taking over the account is refused.
    for (const body of [{ password: 'taken-over-pw-1' }, { is_active: false }, { email: 'attacker@example.com' }]) {
      const res = await call('admin', 'PATCH', `/api/v1/users/${shared.id}`, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 403, code: 40300 });
    }
    const role = await call('admin', 'PATCH', `/api/v1/users/${shared.id}`, { role: 'supervisor' });
    expect(role.status, role.text).toBe(200);
    // The bootstrapped admin runs both workspaces and may reset the password.
    const reset = await server.request('PATCH', `/api/v1/users/${shared.id}`, { token: admin, body: { password: 'reset-by-admin-1' } });
    expect(reset.status, reset.text).toBe(200);
  });

  describe('workspaces', () => {
    it('every role lists only its own workspaces; only admins create one', async () => {
      const mine = await call('operator', 'GET', '/api/v1/workspaces');
      expect(mine.status).toBe(200);
      expect(mine.body.data.items.map((w: { slug: string }) => w.slug)).toEqual(['default']);
      expect(mine.body.data.items[0].role).toBe('operator');
      for (const role of ['supervisor', 'operator'] as const) {
        const res = await call(role, 'POST', '/api/v1/workspaces', { name: `By ${role}`, slug: `by-${role}` });
        expect(res.body.code).toBe(40300);
      }
      const created = await call('admin', 'POST', '/api/v1/workspaces', { name: 'By admin', slug: 'by-admin' });
      expect(created.body.data).toMatchObject({ name: 'By admin', slug: 'by-admin', role: 'admin' });
    });

    it('members are added and removed only by an admin of that workspace', async () => {
      for (const role of ['supervisor', 'operator'] as const) {
        const add = await call(role, 'POST', `/api/v1/workspaces/${defaultWs}/members`, { username: 'r-operator', role: 'admin' });
        expect(add.body.code).toBe(40300);
        const remove = await call(role, 'DELETE', `/api/v1/workspaces/${defaultWs}/members/${tokens.operator.id}`);
        expect(remove.body.code).toBe(40300);
      }
      // An admin of the default workspace who is not a member of another one: it does not exist for them.
      const foreign = await server.request('POST', '/api/v1/workspaces', { token: admin, body: { name: 'Foreign', slug: 'foreign' } });
      const add = await call('admin', 'POST', `/api/v1/workspaces/${foreign.body.data.id}/members`, { username: 'r-admin', role: 'admin' });
      expect(add.status).toBe(404);
      expect(add.body.code).toBe(40400);
      const remove = await call('admin', 'DELETE', `/api/v1/workspaces/${foreign.body.data.id}/members/1`);
      expect(remove.body.code).toBe(40400);

      // The admin of that workspace can add members there, from whatever workspace is current.
      const added = await server.request('POST', `/api/v1/workspaces/${foreign.body.data.id}/members`, {
        token: admin,
        body: { user_id: tokens.operator.id, role: 'supervisor' },
      });
      expect(added.status, added.text).toBe(200);
      expect(added.body.data).toMatchObject({ workspace_id: foreign.body.data.id, user_id: tokens.operator.id, role: 'supervisor' });
      const unknown = await server.request('POST', `/api/v1/workspaces/${foreign.body.data.id}/members`, {
        token: admin,
        body: { username: 'no-such-user', role: 'operator' },
      });
      expect(unknown.body.code).toBe(40400);
      const neither = await server.request('POST', `/api/v1/workspaces/${foreign.body.data.id}/members`, { token: admin, body: { role: 'operator' } });
      expect(neither.body.code).toBe(40000);
    });
  });

  it('GET /auth/me says what each role may do in the workspace, and the routes hold to it', async () => {
    const allowed = async (role: Role) => (await call(role, 'GET', '/api/v1/auth/me')).body.data.allowed_actions as string[];
    expect((await allowed('operator')).sort()).toEqual(['api_keys.create', 'posts.write', 'products.write', 'tasks.write']);
    expect(await allowed('supervisor')).toEqual(expect.arrayContaining(['banned_words.write', 'generation_routing.write', 'review.decide', 'accounts.manage', 'posts.force']));
    expect(await allowed('supervisor')).not.toContain('users.manage');
    expect(await allowed('admin')).toEqual(expect.arrayContaining(['users.manage', 'workspaces.manage', 'webhooks.manage']));
    // What /auth/me leaves out is refused: an operator has no review.decide, a supervisor no webhooks.manage.
    expect((await call('operator', 'GET', '/api/v1/review/queue')).status).toBe(403);
    expect((await call('supervisor', 'GET', '/api/v1/webhooks')).status).toBe(403);
    expect((await call('operator', 'POST', '/api/v1/accounts', { name: '运营号' })).status).toBe(403);
  });

  describe('API keys', () => {
    it('every role creates keys; operators delete only their own, supervisors and admins any', async () => {
      const keyOf = async (role: Role) => {
        const res = await call(role, 'POST', '/api/v1/api-keys', { provider: 'local', api_key: `key-of-${role}-1234` });
        expect(res.status, res.text).toBe(200);
        return res.body.data.id as number;
      };
      const adminKey = await keyOf('admin');
      const operatorKey = await keyOf('operator');
      const supervisorKey = await keyOf('supervisor');
      const otherOperatorKey = await keyOf('operator');

      // Each connection says what the caller may do with it, as the delete below answers.
      const offered = async (role: Role) =>
        new Map((await call(role, 'GET', '/api/v1/api-keys?page_size=100')).body.data.items.map((k: { id: number; allowed_actions: string[] }) => [k.id, k.allowed_actions]));
      const forOperator = await offered('operator');
      expect(forOperator.get(adminKey)).toEqual([]);
      expect(forOperator.get(operatorKey)).toEqual(['update', 'delete', 'test']);
      expect((await offered('supervisor')).get(adminKey)).toEqual(['update', 'delete', 'test']);

      const denied = await call('operator', 'DELETE', `/api/v1/api-keys/${adminKey}`);
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe(40300);
      expect((await call('operator', 'DELETE', `/api/v1/api-keys/${operatorKey}`)).status).toBe(200);
      expect((await call('supervisor', 'DELETE', `/api/v1/api-keys/${otherOperatorKey}`)).status).toBe(200);
      expect((await call('admin', 'DELETE', `/api/v1/api-keys/${supervisorKey}`)).status).toBe(200);
      expect((await call('supervisor', 'DELETE', `/api/v1/api-keys/${adminKey}`)).status).toBe(200);
      expect((await call('admin', 'DELETE', `/api/v1/api-keys/${adminKey}`)).body.code).toBe(40400);

      const list = await call('operator', 'GET', '/api/v1/api-keys');
      expect(list.status).toBe(200);
      expect(list.body.data.items.map((k: { id: number }) => k.id)).not.toContain(adminKey);
    });
  });

  describe('another workspace is invisible', () => {
    let otherAdmin: string;
    let otherWsId: number;
    let otherKeyId: number;
    let otherUserId: number;

    beforeAll(async () => {
      // A second workspace whose admin is not in the default workspace.
      const ws = await server.request('POST', '/api/v1/workspaces', { token: admin, body: { name: 'Isolated', slug: 'isolated' } });
      otherWsId = ws.body.data.id;
      const switched = await server.request('POST', '/api/v1/workspaces/switch', { token: admin, body: { workspace_id: otherWsId } });
      const inOther = switched.body.data.token;
      const created = await server.request('POST', '/api/v1/users', {
        token: inOther,
        body: { username: 'iso-admin', email: 'iso@example.com', password: 'first-password-1', role: 'admin' },
      });
      otherUserId = created.body.data.id;
      const first = await server.request('POST', '/api/v1/auth/login', { body: { username: 'iso-admin', password: 'first-password-1' } });
      const changed = await server.request('POST', '/api/v1/auth/change-password', {
        token: first.body.data.token,
        body: { current_password: 'first-password-1', new_password: 'second-password-2' },
      });
      otherAdmin = changed.body.data.token;
      const key = await server.request('POST', '/api/v1/api-keys', { token: otherAdmin, body: { provider: 'openai', api_key: 'sk-isolated-9876' } });
      otherKeyId = key.body.data.id;
    });

    it('its API keys are neither listed nor deletable (404)', async () => {
      const list = await call('admin', 'GET', '/api/v1/api-keys?page_size=100');
      expect(list.body.data.items.map((k: { id: number }) => k.id)).not.toContain(otherKeyId);
      const del = await call('admin', 'DELETE', `/api/v1/api-keys/${otherKeyId}`);
      expect(del.status).toBe(404);
      expect(del.body.code).toBe(40400);
      expect((await server.request('GET', '/api/v1/api-keys', { token: otherAdmin })).body.data.items.map((k: { id: number }) => k.id)).toEqual([
        otherKeyId,
      ]);
    });

    it('its users are neither listed nor changeable (404)', async () => {
      const list = await call('admin', 'GET', '/api/v1/users?page_size=100');
      expect(list.body.data.items.map((u: { id: number }) => u.id)).not.toContain(otherUserId);
      const patch = await call('admin', 'PATCH', `/api/v1/users/${otherUserId}`, { is_active: false });
      expect(patch.status).toBe(404);
      expect(patch.body.code).toBe(40400);
      expect((await server.request('GET', '/api/v1/auth/me', { token: otherAdmin })).status).toBe(200);
      // And the other way round.
      const back = await server.request('PATCH', `/api/v1/users/${tokens.operator.id}`, { token: otherAdmin, body: { role: 'admin' } });
      expect(back.body.code).toBe(40400);
    });

    it('its membership cannot be changed by an admin of another workspace (404)', async () => {
      const res = await call('admin', 'DELETE', `/api/v1/workspaces/${otherWsId}/members/${otherUserId}`);
      expect(res.body.code).toBe(40400);
      const sw = await call('admin', 'POST', '/api/v1/workspaces/switch', { workspace_id: otherWsId });
      expect(sw.body.code).toBe(40300);
    });
  });
});
