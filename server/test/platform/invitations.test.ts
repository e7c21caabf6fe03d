import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { upsertMembership } from '../../src/modules/memberships/repository.js';
import { freshPostgresDatabase, startTestServer, usingPostgres, userWithRole, type Response, type TestServer } from '../helpers/server.js';

/**
 * Issue 17, finding 1: membership by consent. Tenant A (the bootstrapped admin's Default
 * workspace) and tenant B (a workspace whose admin shares nothing with A) on one deployment.
 * An admin adds directly only users who already share a workspace they administer; everyone
 * else is invited and answers; unknown and foreign users look the same; a removal or role
 * change in one workspace ends sessions there only.
 */
describe('membership by consent and sessions per workspace', () => {
  let server: TestServer;
  let admin: string; // tenant A's admin
  let wsA: number;
  let wsB: number;
  let bAdmin: { token: string; id: number };
  let bUser: { token: string; id: number; email: string };
  let aOperator: { token: string; id: number };

  const call = (token: string | undefined, method: string, path: string, body?: unknown) =>
    server.request(method, `/api/v1${path}`, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });
  const ok = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await call(token, method, path, body);
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
    return res.body.data;
  };
  const login = async (username: string) => (await ok('', 'POST', '/auth/login', { username, password: 'second-password-2' })).token as string;
  const switchTo = async (token: string, workspace_id: number) => (await ok(token, 'POST', '/workspaces/switch', { workspace_id })).token as string;
  /** A user created by tenant B's admin in B, password changed. */
  const userOfB = async (username: string) => {
    const created = await ok(bAdmin.token, 'POST', '/users', { username, email: `${username}@b.example`, password: 'first-password-1', role: 'operator' });
    const first = await ok('', 'POST', '/auth/login', { username, password: 'first-password-1' });
    const changed = await ok(first.token, 'POST', '/auth/change-password', { current_password: 'first-password-1', new_password: 'second-password-2' });
    return { token: changed.token as string, id: created.id as number, email: created.email as string };
  };
  const myInvitations = async (token: string) => (await ok(token, 'GET', '/invitations')).items as Array<{ id: number; workspace: { id: number; name: string }; role: string; invited_by: string }>;
  /** An answer without what necessarily differs between two requests (id, what was typed, times). */
  const shape = (res: Response) => {
    const { id: _id, invitee: _invitee, created_at: _c, expires_at: _e, token, ...rest } = res.body.data ?? {};
    return { status: res.status, code: res.body.code, token: typeof token, ...rest };
  };

  beforeAll(async () => {
    server = await startTestServer({ worker: false, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    admin = await server.adminToken();
    wsA = (await ok(admin, 'GET', '/auth/me')).current_workspace_id;
    aOperator = await userWithRole(server, 'a-operator', 'operator');
    // Tenant B: created by A's admin, handed to its own admin, who then removes A's admin.
    wsB = (await ok(admin, 'POST', '/workspaces', { name: 'Tenant B', slug: 'tenant-b' })).id;
    const inB = await switchTo(admin, wsB);
    const created = await ok(inB, 'POST', '/users', { username: 'b-admin', email: 'boss@b.example', password: 'first-password-1', role: 'admin' });
    const first = await ok('', 'POST', '/auth/login', { username: 'b-admin', password: 'first-password-1' });
    bAdmin = { token: (await ok(first.token, 'POST', '/auth/change-password', { current_password: 'first-password-1', new_password: 'second-password-2' })).token, id: created.id };
    const me = (await ok(admin, 'GET', '/auth/me')).id;
    await ok(bAdmin.token, 'DELETE', `/workspaces/${wsB}/members/${me}`);
    bUser = await userOfB('b-user');
  });
  afterAll(async () => server?.close());

  describe('direct add', () => {
    it('a foreign user and an unknown one get the same 404, by id or by username; nothing is added or shown', async () => {
      const answers = [];
      for (const body of [{ user_id: bUser.id }, { user_id: bAdmin.id }, { user_id: 987654 }, { username: 'b-user' }, { username: 'no-such-user' }]) {
        const res = await call(admin, 'POST', `/workspaces/${wsA}/members`, { ...body, role: 'operator' });
        answers.push({ status: res.status, body: res.body });
      }
      expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
      expect(answers[0]).toEqual({ status: 404, body: { code: 40400, message: expect.stringMatching(/not found/), reason: 'member.user_not_found', params: {} } });
      // Walking user ids names nobody: every id that is not a member of A answers the same.
      const members = new Set((await ok(admin, 'GET', '/users?page_size=100')).items.map((u: { id: number }) => u.id));
      const walked = new Set<string>();
      for (let id = 1; id <= 20; id++) {
        if (members.has(id)) continue;
        const res = await call(admin, 'POST', `/workspaces/${wsA}/members`, { user_id: id, role: 'operator' });
        walked.add(JSON.stringify({ status: res.status, body: res.body }));
      }
      expect([...walked]).toEqual([JSON.stringify(answers[0])]);
      const users = await ok(admin, 'GET', '/users?page_size=100');
      expect(users.items.map((u: { username: string }) => u.username)).not.toContain('b-user');
      expect(JSON.stringify(users)).not.toContain('b.example');
    });

    it('only users who share a workspace the caller administers: sharing one where the caller is not admin is not enough', async () => {
      const aOther = await userWithRole(server, 'a-other', 'operator');
      // a-operator shares A with A's admin, who administers A: added to C directly.
      const wsC = (await ok(admin, 'POST', '/workspaces', { name: 'Team C', slug: 'team-c' })).id;
      expect((await ok(admin, 'POST', `/workspaces/${wsC}/members`, { user_id: aOperator.id, role: 'admin' })).role).toBe('admin');
      const adminOfC = await switchTo(await login('a-operator'), wsC);
      // a-operator administers C, where a-other is not; they share A, where a-operator is only an operator.
      const refused = await call(adminOfC, 'POST', `/workspaces/${wsC}/members`, { user_id: aOther.id, role: 'operator' });
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 404, code: 40400 });
      expect((await call(adminOfC, 'POST', `/workspaces/${wsC}/members`, { user_id: bUser.id, role: 'operator' })).status).toBe(404);
      // An invitation is the way.
      const invited = await ok(adminOfC, 'POST', `/workspaces/${wsC}/invitations`, { username: 'a-other', role: 'operator' });
      expect((await ok(aOther.token, 'POST', `/invitations/${invited.id}/accept`)).id).toBe(wsC);
      aOperator = { ...aOperator, token: await switchTo(adminOfC, wsA) };
    });
  });

  describe('invitations', () => {
    it('the admin gets the same answer for a foreign, an unknown and an existing user, by username or email', async () => {
      const foreign = await call(admin, 'POST', `/workspaces/${wsA}/invitations`, { username: 'b-user', role: 'operator' });
      const unknown = await call(admin, 'POST', `/workspaces/${wsA}/invitations`, { username: 'nobody-at-all', role: 'operator' });
      const byEmail = await call(admin, 'POST', `/workspaces/${wsA}/invitations`, { email: bUser.email.toUpperCase(), role: 'operator' });
      const unknownEmail = await call(admin, 'POST', `/workspaces/${wsA}/invitations`, { email: 'nobody@nowhere.example', role: 'operator' });
      expect(shape(foreign)).toEqual(shape(unknown));
      expect(shape(byEmail)).toEqual(shape(unknownEmail));
      expect(foreign.body.data).toMatchObject({ workspace_id: wsA, invitee: 'b-user', invitee_kind: 'username', role: 'operator', status: 'pending', invited_by: 'admin', responded_at: null });
      expect(byEmail.body.data).toMatchObject({ invitee: bUser.email, invitee_kind: 'email', token: expect.stringMatching(/^[\w-]{43}$/) });
      expect(foreign.body.data.token).toBeNull();
      expect(Date.parse(foreign.body.data.expires_at) - Date.parse(foreign.body.data.created_at)).toBe(7 * 24 * 3600 * 1000);
      // Inviting the same name again renews the one invitation.
      const again = await ok(admin, 'POST', `/workspaces/${wsA}/invitations`, { username: 'b-user', role: 'supervisor' });
      expect(again).toMatchObject({ id: foreign.body.data.id, role: 'supervisor', status: 'pending' });
      // Not a member yet: nowhere in A's user list.
      expect(JSON.stringify(await ok(admin, 'GET', '/users?page_size=100'))).not.toContain('b.example');
    });

    it('the invitee sees and accepts it; nobody else can; accepting makes a member and closes the other invitations', async () => {
      const mine = await myInvitations(bUser.token);
      // The email invitation names no account (issue 28): only the username one is listed.
      expect(mine.map((i) => i.workspace.id)).toEqual([wsA]);
      expect(mine[0]).toMatchObject({ workspace: { id: wsA, name: 'Default' }, invited_by: 'admin' });
      expect(await myInvitations(bAdmin.token)).toEqual([]);
      const byName = mine.find((i) => i.role === 'supervisor')!;
      for (const token of [bAdmin.token, aOperator.token, admin]) {
        const res = await call(token, 'POST', `/invitations/${byName.id}/accept`);
        expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 40400 });
      }
      const joined = await ok(bUser.token, 'POST', `/invitations/${byName.id}/accept`);
      expect(joined).toEqual({ id: wsA, name: 'Default', slug: 'default', role: 'supervisor' });
      expect(await myInvitations(bUser.token)).toEqual([]);
      const twice = await call(bUser.token, 'POST', `/invitations/${byName.id}/accept`);
      expect({ status: twice.status, code: twice.body.code }).toEqual({ status: 409, code: 40900 });
      expect((await ok(bUser.token, 'GET', '/workspaces')).items.map((w: { id: number }) => w.id)).toEqual([wsA, wsB].sort((a, b) => a - b));
      const inA = await switchTo(bUser.token, wsA);
      expect((await ok(inA, 'GET', '/auth/me')).role).toBe('supervisor');
      // A member now: A's admin sees the account, email included.
      const listed = (await ok(admin, 'GET', '/users?page_size=100')).items.find((u: { username: string }) => u.username === 'b-user');
      expect(listed).toMatchObject({ email: bUser.email, role: 'supervisor' });
      const invitations = (await ok(admin, 'GET', `/workspaces/${wsA}/invitations?page_size=100`)).items;
      expect(invitations.filter((i: { invitee: string }) => ['b-user', bUser.email].includes(i.invitee)).map((i: { status: string }) => i.status)).toEqual(['pending', 'accepted']);
      expect(invitations.find((i: { invitee: string }) => i.invitee === 'nobody-at-all').status).toBe('pending');
    });

    it('decline, revoke and expiry each close an invitation', async () => {
      const carol = await userOfB('b-carol');
      const dave = await userOfB('b-dave');
      const erin = await userOfB('b-erin');
      const inv = async (username: string) => (await ok(admin, 'POST', `/workspaces/${wsA}/invitations`, { username, role: 'operator' })).id as number;
      const [c, d, e] = [await inv('b-carol'), await inv('b-dave'), await inv('b-erin')];

      await ok(carol.token, 'POST', `/invitations/${c}/decline`);
      expect((await call(carol.token, 'POST', `/invitations/${c}/accept`)).body.code).toBe(40900);

      const revoked = await ok(admin, 'DELETE', `/workspaces/${wsA}/invitations/${d}`);
      expect(revoked.status).toBe('revoked');
      expect(await myInvitations(dave.token)).toEqual([]);
      expect((await call(dave.token, 'POST', `/invitations/${d}/accept`)).body.code).toBe(40900);
      expect((await call(admin, 'DELETE', `/workspaces/${wsA}/invitations/${d}`)).body.code).toBe(40900);

      // Seven days on (the row's expiry moved, so that no access token expires meanwhile).
      const past = new Date(server.clock.now().getTime() - 1000).toISOString();
      await server.ctx.db.updateTable('invitations').set({ expires_at: past }).where('id', '=', e).execute();
      const erinToken = erin.token;
      expect(await myInvitations(erinToken)).toEqual([]);
      expect((await call(erinToken, 'POST', `/invitations/${e}/accept`)).body.code).toBe(40900);
      const statuses = Object.fromEntries(
        (await ok(admin, 'GET', `/workspaces/${wsA}/invitations?page_size=100`)).items.map((i: { id: number; status: string }) => [i.id, i.status]),
      );
      expect([statuses[c], statuses[d], statuses[e]]).toEqual(['declined', 'revoked', 'expired']);
      for (const u of [carol, dave, erin]) expect((await ok(admin, 'GET', '/users?page_size=100')).items.map((x: { id: number }) => x.id)).not.toContain(u.id);
      // An expired invitation is renewed by inviting again.
      expect((await ok(admin, 'POST', `/workspaces/${wsA}/invitations`, { username: 'b-erin', role: 'operator' })).id).toBe(e);
      expect((await myInvitations(erinToken)).map((i) => i.id)).toEqual([e]);
    });

    it('only an admin of that workspace invites, lists and revokes; another workspace is a 404', async () => {
      for (const [method, path, body] of [
        ['POST', `/workspaces/${wsA}/invitations`, { username: 'x', role: 'operator' }],
        ['GET', `/workspaces/${wsA}/invitations`, undefined],
        ['DELETE', `/workspaces/${wsA}/invitations/1`, undefined],
      ] as const) {
        expect((await call(aOperator.token, method, path, body)).body.code, `${method} ${path}`).toBe(40300);
        expect((await call(admin, method, path.replace(`/${wsA}/`, `/${wsB}/`), body)).body.code, `${method} ${path} in B`).toBe(40400);
      }
      // One of A's invitations is not B's to revoke or list.
      const a = await ok(admin, 'POST', `/workspaces/${wsA}/invitations`, { username: 'someone-else', role: 'operator' });
      expect((await call(bAdmin.token, 'DELETE', `/workspaces/${wsB}/invitations/${a.id}`)).body.code).toBe(40400);
      expect((await call(admin, 'POST', `/workspaces/${wsA}/invitations`, { role: 'operator' })).body.code).toBe(40000);
      expect((await call(admin, 'POST', `/workspaces/${wsA}/invitations`, { username: 'x', email: 'x@example.com', role: 'operator' })).body.code).toBe(40000);
    });

    it('a workspace has at most 100 pending invitations out at once', async () => {
      const wsE = (await ok(admin, 'POST', '/workspaces', { name: 'Team E', slug: 'team-e' })).id;
      for (let i = 0; i < 100; i++) await ok(admin, 'POST', `/workspaces/${wsE}/invitations`, { username: `spam-${i}`, role: 'operator' });
      const over = await call(admin, 'POST', `/workspaces/${wsE}/invitations`, { username: 'spam-100', role: 'operator' });
      expect({ status: over.status, code: over.body.code }).toEqual({ status: 409, code: 40900 });
      // Renewing one of them is not a new one.
      expect((await call(admin, 'POST', `/workspaces/${wsE}/invitations`, { username: 'spam-7', role: 'supervisor' })).status).toBe(200);
    });
  });

  describe('sessions end per workspace', () => {
    it('removal from one workspace, a role change there, and both again never end the sessions in another', async () => {
      const frank = await userOfB('b-frank');
      const invitation = await ok(admin, 'POST', `/workspaces/${wsA}/invitations`, { username: 'b-frank', role: 'operator' });
      await ok(frank.token, 'POST', `/invitations/${invitation.id}/accept`);
      const inB = frank.token;
      const inA = await switchTo(frank.token, wsA);
      const me = (token: string) => call(token, 'GET', '/auth/me');
      expect((await me(inA)).status).toBe(200);
      expect((await me(inB)).status).toBe(200);

      // Tenant A's admin, again and again: role changes and a removal in A.
      await ok(admin, 'PATCH', `/users/${frank.id}`, { role: 'supervisor' });
      expect((await me(inA)).body.code).toBe(40101);
      const inA2 = await switchTo(inB, wsA);
      await ok(admin, 'POST', `/workspaces/${wsA}/members`, { user_id: frank.id, role: 'operator' });
      expect((await me(inA2)).body.code).toBe(40101);
      await ok(admin, 'DELETE', `/workspaces/${wsA}/members/${frank.id}`);
      // Tenant B's session never noticed.
      expect((await me(inB)).status).toBe(200);
      expect((await ok(inB, 'GET', '/workspaces')).items.map((w: { id: number }) => w.id)).toEqual([wsB]);

      // Back in A by a new invitation: the tokens of the earlier membership stay dead.
      const again = await ok(admin, 'POST', `/workspaces/${wsA}/invitations`, { username: 'b-frank', role: 'operator' });
      await ok(inB, 'POST', `/invitations/${again.id}/accept`);
      expect((await me(inA)).body.code).toBe(40101);
      expect((await me(inA2)).body.code).toBe(40101);
      const inA3 = await switchTo(inB, wsA);
      expect((await me(inA3)).body.data.workspace.id).toBe(wsA);

      // And the other way round: B's admin removing frank leaves A's session alone.
      await ok(bAdmin.token, 'DELETE', `/workspaces/${wsB}/members/${frank.id}`);
      expect((await me(inB)).body.code).toBe(40101);
      expect((await me(inA3)).status).toBe(200);
      // The next login lands in the workspace left.
      expect((await ok('', 'POST', '/auth/login', { username: 'b-frank', password: 'second-password-2' })).user.current_workspace_id).toBe(wsA);
    });

    it('a password change still ends the sessions of every workspace', async () => {
      const grace = await userOfB('b-grace');
      const invitation = await ok(admin, 'POST', `/workspaces/${wsA}/invitations`, { username: 'b-grace', role: 'operator' });
      await ok(grace.token, 'POST', `/invitations/${invitation.id}/accept`);
      const inA = await switchTo(grace.token, wsA);
      const changed = await ok(inA, 'POST', '/auth/change-password', { current_password: 'second-password-2', new_password: 'third-password-3' });
      expect((await call(grace.token, 'GET', '/auth/me')).body.code).toBe(40101);
      expect((await call(inA, 'GET', '/auth/me')).body.code).toBe(40101);
      expect((await call(changed.token, 'GET', '/auth/me')).status).toBe(200);
    });
  });
});

describe('migration 20261124_0100_invitations', () => {
  it('keeps the sessions of memberships made before it: their tokens have no mv and stand for version 0', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-migrate-'));
    const pgDb = usingPostgres ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
    let server: TestServer | undefined;
    try {
      const database = openDatabase({ databaseUrl: pgDb?.url, dataDir });
      const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('20261123_0200_task_list_versions')).error).toBeUndefined();
      const db = database.db as Kysely<any>;
      const now = new Date().toISOString();
      const ws = await db.insertInto('workspaces').values({ name: 'Old', slug: 'old', created_at: now }).returning('id').executeTakeFirstOrThrow();
      const user = await db
        .insertInto('users')
        .values({ username: 'old-user', email: 'old@example.com', password_hash: 'x', must_change_password: usingPostgres ? false : 0, is_active: usingPostgres ? true : 1, token_version: 3, current_workspace_id: ws.id, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db.insertInto('memberships').values({ workspace_id: ws.id, user_id: user.id, role: 'admin', created_at: now }).execute();
      await database.close();

      server = await startTestServer({ dataDir, worker: false, ...(pgDb ? { env: { DATABASE_URL: pgDb.url } } : {}) });
      const membership = await server.ctx.db.selectFrom('memberships').select('session_version').executeTakeFirstOrThrow();
      expect(membership.session_version).toBe(0);
      // A token issued before the upgrade (no mv claim) still works; a role change ends it.
      const old = await server.ctx.tokens.sign({ sub: user.id, ws: ws.id, role: 'admin', ver: 3 });
      expect((await server.request('GET', '/api/v1/auth/me', { token: old })).status).toBe(200);
      const other = await server.request('POST', '/api/v1/users', { token: old, body: { username: 'second-admin', email: 's@example.com', password: 'first-password-1', role: 'admin' } });
      expect(other.status, other.text).toBe(200);
      await server.ctx.db.transaction().execute((trx) => upsertMembership(trx, { workspaceId: ws.id, userId: user.id, role: 'supervisor', now }));
      expect((await server.request('GET', '/api/v1/auth/me', { token: old })).body.code).toBe(40101);
    } finally {
      await server?.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
