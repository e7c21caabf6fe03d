import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 28, finding 2: tenant A's admin creates an account carrying the address tenant B then
 * invites, and that account joins B. Addresses are not verified, so an email invitation must
 * reach only whoever holds the link B's admin hands over.
 */
let server: TestServer;
let root: string;

beforeAll(async () => {
  server = await startTestServer({ worker: false });
  root = await server.adminToken();
});
afterAll(async () => server?.close());

async function call(token: string | undefined, method: string, path: string, body?: unknown) {
  return server.request(method, `/api/v1${path}`, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });
}

/** A tenant: its own workspace and admin (created by the root admin, who then leaves it alone). */
async function tenant(slug: string) {
  const ws = (await call(root, 'POST', '/workspaces', { name: slug, slug })).body.data.id as number;
  const inWs = (await call(root, 'POST', '/workspaces/switch', { workspace_id: ws })).body.data.token as string;
  const admin = await account(inWs, `${slug}-admin`, `${slug}-admin@${slug}.example`, 'admin');
  return { ws, admin };
}

/** An account created by an admin in their workspace, past its first password change. */
async function account(adminToken: string, username: string, email: string, role = 'operator') {
  const created = await call(adminToken, 'POST', '/users', { username, email, password: 'first-password-1', role });
  expect(created.status, created.text).toBe(200);
  const login = await call(undefined, 'POST', '/auth/login', { username, password: 'first-password-1' });
  const changed = await call(login.body.data.token, 'POST', '/auth/change-password', { current_password: 'first-password-1', new_password: 'second-password-2' });
  return changed.body.data.token as string;
}

const workspacesOf = async (token: string) => (await call(token, 'GET', '/workspaces')).body.data.items.map((w: { id: number }) => w.id) as number[];

describe('an email invitation is a one-time link, not an address', () => {
  it("an account of another tenant carrying the invited address cannot see or accept it; the link's holder joins, once", async () => {
    const a = await tenant('tenant-a');
    const b = await tenant('tenant-b');
    const impostor = await account(a.admin, 'impostor', 'carol@b-friends.example');
    const carol = await account(a.admin, 'carol-real', 'carol-private@elsewhere.example');

    const invited = await call(b.admin, 'POST', `/workspaces/${b.ws}/invitations`, { email: 'carol@b-friends.example', role: 'supervisor' });
    expect(invited.status, invited.text).toBe(200);
    const token = invited.body.data.token as string;
    expect(token).toMatch(/^[\w-]{43}$/);
    // The token is shown once: the admin's list never carries it.
    const list = await call(b.admin, 'GET', `/workspaces/${b.ws}/invitations`);
    expect(list.text).not.toContain(token);

    expect((await call(impostor, 'GET', '/invitations')).body.data.items).toEqual([]);
    const byId = await call(impostor, 'POST', `/invitations/${invited.body.data.id}/accept`);
    expect({ status: byId.status, code: byId.body.code }).toEqual({ status: 404, code: 40400 });
    const guessed = await call(impostor, 'POST', '/invitations/redeem', { token: token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA') });
    expect({ status: guessed.status, code: guessed.body.code }).toEqual({ status: 404, code: 40400 });
    expect(await workspacesOf(impostor)).not.toContain(b.ws);

    const joined = await call(carol, 'POST', '/invitations/redeem', { token });
    expect(joined.status, joined.text).toBe(200);
    expect(joined.body.data).toMatchObject({ id: b.ws, role: 'supervisor' });
    expect(await workspacesOf(carol)).toContain(b.ws);

    const reused = await call(impostor, 'POST', '/invitations/redeem', { token });
    expect({ status: reused.status, code: reused.body.code }).toEqual({ status: 404, code: 40400 });
    expect(await workspacesOf(impostor)).not.toContain(b.ws);
    const row = (await call(b.admin, 'GET', `/workspaces/${b.ws}/invitations`)).body.data.items.find((i: { id: number }) => i.id === invited.body.data.id);
    expect(row.status).toBe('accepted');
  });

  it('inviting the address again issues a new link and the old one stops working; a revoked link joins nobody', async () => {
    const c = await tenant('tenant-c');
    const first = (await call(c.admin, 'POST', `/workspaces/${c.ws}/invitations`, { email: 'dan@outside.example', role: 'operator' })).body.data;
    const second = (await call(c.admin, 'POST', `/workspaces/${c.ws}/invitations`, { email: 'DAN@outside.example', role: 'operator' })).body.data;
    expect(second.id).toBe(first.id);
    expect(second.token).not.toBe(first.token);
    const outsider = await tenant('tenant-d');
    const old = await call(outsider.admin, 'POST', '/invitations/redeem', { token: first.token });
    expect(old.status).toBe(404);
    await call(c.admin, 'DELETE', `/workspaces/${c.ws}/invitations/${second.id}`);
    const revoked = await call(outsider.admin, 'POST', '/invitations/redeem', { token: second.token });
    expect(revoked.status).toBe(404);
    expect(await workspacesOf(outsider.admin)).not.toContain(c.ws);
  });

  it('a redeem body that is not a token is a 400 in the envelope', async () => {
    for (const body of [{}, { token: '' }, { token: 'x'.repeat(101) }, { token: 5 }]) {
      const res = await call(root, 'POST', '/invitations/redeem', body);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 40000 });
    }
  });
});
