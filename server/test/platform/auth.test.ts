import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_NEW_PASSWORD, ADMIN_PASSWORD, startTestServer, userWithRole, type TestServer } from '../helpers/server.js';

const MINUTE = 60_000;

describe('authentication', () => {
  let server: TestServer;
  let admin: string;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.adminToken();
  });
  afterAll(async () => server?.close());

  const login = (username: string, password: string) => server.request('POST', '/api/v1/auth/login', { body: { username, password } });
  const me = (token: string) => server.request('GET', '/api/v1/auth/me', { token });

  async function createUser(username: string, role = 'operator', password = 'first-password-1') {
    const res = await server.request('POST', '/api/v1/users', { token: admin, body: { username, email: `${username}@example.com`, password, role } });
    expect(res.status, res.text).toBe(200);
    return res.body.data as { id: number };
  }

  it('login returns a token and exactly the contract user fields', async () => {
    const res = await login('admin', ADMIN_NEW_PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(0);
    expect(typeof res.body.data.token).toBe('string');
    expect(Object.keys(res.body.data.user).sort()).toEqual(
      ['current_workspace_id', 'email', 'id', 'must_change_password', 'role', 'username'].sort(),
    );
    expect(res.body.data.user).toMatchObject({ username: 'admin', role: 'admin', must_change_password: false });
    expect(res.text).not.toMatch(/password_hash|scrypt/);
  });

  it('GET /auth/me gives the current user with the workspace', async () => {
    const res = await me(admin);
    expect(res.status).toBe(200);
    expect(res.body.data.workspace).toEqual({ id: res.body.data.current_workspace_id, name: 'Default', slug: 'default' });
    expect(Object.keys(res.body.data).sort()).toEqual(
      ['allowed_actions', 'current_workspace_id', 'email', 'id', 'must_change_password', 'role', 'username', 'workspace'].sort(),
    );
  });

  describe('lockout: 5 failures for one username within 15 minutes lock it for 15 minutes', () => {
    it('locks after the fifth failure, even for the right password, with Retry-After', async () => {
      await createUser('locky');
      for (let i = 0; i < 5; i++) expect((await login('locky', 'wrong-password')).body.code).toBe(40102);
      const locked = await login('locky', 'first-password-1');
      expect(locked.status).toBe(429);
      expect(locked.body.code).toBe(42900);
      const retryAfter = Number(locked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);

      server.clock.advance(14 * MINUTE);
      expect((await login('locky', 'first-password-1')).status).toBe(429);
      server.clock.advance(MINUTE + 1000);
      expect((await login('locky', 'first-password-1')).status).toBe(200);
    });

    it('does not lock when the failures are spread over more than 15 minutes', async () => {
      await createUser('spready');
      for (let i = 0; i < 4; i++) expect((await login('spready', 'wrong-password')).status).toBe(401);
      server.clock.advance(15 * MINUTE + 1000);
      for (let i = 0; i < 4; i++) expect((await login('spready', 'wrong-password')).status).toBe(401);
      expect((await login('spready', 'first-password-1')).status).toBe(200);
    });

    it('a successful login clears the count', async () => {
      await createUser('cleared');
      for (let i = 0; i < 4; i++) await login('cleared', 'wrong-password');
      expect((await login('cleared', 'first-password-1')).status).toBe(200);
      for (let i = 0; i < 4; i++) expect((await login('cleared', 'wrong-password')).status).toBe(401);
      expect((await login('cleared', 'first-password-1')).status).toBe(200);
    });

    it('locks per username: other accounts still log in; unknown usernames lock the same way', async () => {
      for (let i = 0; i < 5; i++) expect((await login('ghost-user', 'wrong-password')).body.code).toBe(40102);
      const ghost = await login('ghost-user', 'wrong-password');
      expect(ghost.status).toBe(429);
      expect(ghost.body.code).toBe(42900);
      expect((await login('admin', ADMIN_NEW_PASSWORD)).status).toBe(200);
    });
  });

  describe('change-password', () => {
    it('invalidates older tokens, returns a working new one, and replaces the password', async () => {
      const { token: oldToken } = await userWithRole(server, 'changer', 'operator');
      const second = (await login('changer', 'second-password-2')).body.data.token;
      const res = await server.request('POST', '/api/v1/auth/change-password', {
        token: oldToken,
        body: { current_password: 'second-password-2', new_password: 'third-password-3' },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.user.must_change_password).toBe(false);
      expect((await me(oldToken)).body.code).toBe(40101);
      expect((await me(second)).body.code).toBe(40101);
      expect((await me(res.body.data.token)).status).toBe(200);
      expect((await login('changer', 'second-password-2')).body.code).toBe(40102);
      expect((await login('changer', 'third-password-3')).status).toBe(200);
    });

    it('refuses a new password equal to the current one', async () => {
      const { token } = await userWithRole(server, 'samer', 'operator');
      const res = await server.request('POST', '/api/v1/auth/change-password', {
        token,
        body: { current_password: 'second-password-2', new_password: 'second-password-2' },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(40000);
    });
  });

  it('must_change_password: every endpoint but /auth/me and /auth/change-password answers 403 / 40301', async () => {
    await createUser('newcomer', 'admin');
    const first = (await login('newcomer', 'first-password-1')).body.data;
    expect(first.user.must_change_password).toBe(true);
    expect((await me(first.token)).status).toBe(200);

    const doc = (await server.request('GET', '/api/v1/openapi.json')).body;
    const gated: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const isPublic = Array.isArray(op.security) && op.security.length === 0;
        if (isPublic || ['/api/v1/auth/me', '/api/v1/auth/change-password'].includes(path)) continue;
        const res = await server.request(method.toUpperCase(), path.replace(/\{[^}]+\}/g, '1'), {
          token: first.token,
          ...(['post', 'put', 'patch'].includes(method) ? { body: {} } : {}),
        });
        expect({ route: `${method} ${path}`, status: res.status, code: res.body?.code }).toEqual({
          route: `${method} ${path}`,
          status: 403,
          code: 40301,
        });
        gated.push(`${method} ${path}`);
      }
    }
    expect(gated).toContain('get /api/v1/users');
    expect(gated).toContain('post /api/v1/workspaces/switch');

    const changed = await server.request('POST', '/api/v1/auth/change-password', {
      token: first.token,
      body: { current_password: 'first-password-1', new_password: 'newcomer-password-2' },
    });
    expect(changed.status).toBe(200);
    expect((await server.request('GET', '/api/v1/users', { token: changed.body.data.token })).status).toBe(200);
  });

  describe('token version: changes take effect on tokens already issued', () => {
    it('a role change, a deactivation, a password reset and a membership removal each kill old tokens', async () => {
      const roleChanged = await userWithRole(server, 'promoted', 'operator');
      await server.request('PATCH', `/api/v1/users/${roleChanged.id}`, { token: admin, body: { role: 'supervisor' } });
      expect((await me(roleChanged.token)).body.code).toBe(40101);
      expect((await login('promoted', 'second-password-2')).body.data.user.role).toBe('supervisor');

      const deactivated = await userWithRole(server, 'leaver', 'operator');
      await server.request('PATCH', `/api/v1/users/${deactivated.id}`, { token: admin, body: { is_active: false } });
      expect((await me(deactivated.token)).body.code).toBe(40101);
      expect((await login('leaver', 'second-password-2')).body.code).toBe(40102);

      const reset = await userWithRole(server, 'forgetful', 'operator');
      await server.request('PATCH', `/api/v1/users/${reset.id}`, { token: admin, body: { password: 'admin-chosen-pw-1' } });
      expect((await me(reset.token)).body.code).toBe(40101);
      const afterReset = await login('forgetful', 'admin-chosen-pw-1');
      expect(afterReset.body.data.user.must_change_password).toBe(true);

      const removed = await userWithRole(server, 'removed', 'operator');
      const wsId = (await me(admin)).body.data.current_workspace_id;
      expect((await server.request('DELETE', `/api/v1/workspaces/${wsId}/members/${removed.id}`, { token: admin })).status).toBe(200);
      expect((await me(removed.token)).body.code).toBe(40101);
      // No workspace left: the login is refused without revealing anything about the password.
      const orphan = await login('removed', 'second-password-2');
      expect(orphan.status).toBe(403);
      expect(orphan.body.code).toBe(40300);
    });
  });

  describe('workspaces/switch', () => {
    it('switches to a workspace the user belongs to and returns a token with the role held there', async () => {
      const created = await server.request('POST', '/api/v1/workspaces', { token: admin, body: { name: 'Team B', slug: 'team-b' } });
      const member = await userWithRole(server, 'switcher', 'supervisor');
      await server.request('POST', `/api/v1/workspaces/${created.body.data.id}/members`, {
        token: admin,
        body: { username: 'switcher', role: 'operator' },
      });
      const res = await server.request('POST', '/api/v1/workspaces/switch', { token: member.token, body: { workspace_id: created.body.data.id } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toMatchObject({ current_workspace_id: created.body.data.id, role: 'operator' });
      const there = await me(res.body.data.token);
      expect(there.body.data).toMatchObject({ role: 'operator', workspace: { slug: 'team-b' } });
      // The next login lands in the workspace used last.
      expect((await login('switcher', 'second-password-2')).body.data.user.current_workspace_id).toBe(created.body.data.id);
    });

    it('refuses a workspace the user is not a member of (403 / 40300), existing or not', async () => {
      const outsider = await userWithRole(server, 'outsider', 'operator');
      const other = await server.request('POST', '/api/v1/workspaces', { token: admin, body: { name: 'Private', slug: 'private' } });
      for (const workspace_id of [other.body.data.id, 987654]) {
        const res = await server.request('POST', '/api/v1/workspaces/switch', { token: outsider.token, body: { workspace_id } });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe(40300);
      }
    });
  });

  it('the initial admin password no longer works after the forced change', async () => {
    expect((await login('admin', ADMIN_PASSWORD)).body.code).toBe(40102);
  });
});
