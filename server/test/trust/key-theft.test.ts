import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/bootstrap.js';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { startFakeHost, type FakeHost } from './fake-host.js';

/**
 * Issue 28, finding 1: a supervisor re-points the admin's connection at a host they run and
 * tests it, so the stored key travels there. Two fake providers on loopback: `owner` is where
 * the key was entered for, `thief` the supervisor's host.
 */
let server: TestServer;
let owner: FakeHost;
let thief: FakeHost;
let admin: string;
let supervisor: string;
const KEY = 'sk-owner-secret-0001';

beforeAll(async () => {
  [owner, thief] = await Promise.all([startFakeHost(), startFakeHost()]);
  server = await startTestServer({ worker: false, env: { ALLOW_PRIVATE_PROVIDER_URLS: '1', PROVIDER_MAX_RETRIES: '0' } });
  admin = await server.adminToken();
  supervisor = (await userWithRole(server, 'kt-supervisor', 'supervisor')).token;
});
afterAll(async () => {
  await server?.close();
  await Promise.all([owner?.close(), thief?.close()]);
});

async function connection(): Promise<number> {
  const res = await server.request('POST', '/api/v1/api-keys', { token: admin, body: { provider: 'openai-compatible', api_key: KEY, base_url: owner.url, text_model: 'm' } });
  expect(res.status, res.text).toBe(200);
  return res.body.data.id;
}

const sentKeyTo = (host: FakeHost) => host.seen.some((r) => r.authorization?.includes(KEY));

describe('a stored key goes only to the address it was entered for', () => {
  it('PATCH of base_url without api_key is refused, and nothing reaches the new host', async () => {
    const id = await connection();
    const patched = await server.request('PATCH', `/api/v1/api-keys/${id}`, { token: supervisor, body: { base_url: thief.url } });
    expect(patched.status).toBe(400);
    expect(patched.body).toEqual({ code: 40000, message: expect.stringMatching(/^changing base_url needs api_key again/), reason: 'connection.key_for_new_url', params: {} });
    const tested = await server.request('POST', `/api/v1/api-keys/${id}/test`, { token: supervisor, body: {} });
    expect(tested.body.data.ok).toBe(true);
    expect(sentKeyTo(owner)).toBe(true);
    expect(thief.seen).toEqual([]);
    const read = await server.request('GET', '/api/v1/api-keys', { token: admin });
    expect(read.body.data.items.find((k: { id: number }) => k.id === id).base_url).toBe(owner.url);
  });

  it('an equivalent spelling of the same base_url needs no key; a new base_url with a new key is accepted', async () => {
    const id = await connection();
    const same = await server.request('PATCH', `/api/v1/api-keys/${id}`, { token: supervisor, body: { base_url: `${owner.url}/` } });
    expect(same.status, same.text).toBe(200);
    const moved = await server.request('PATCH', `/api/v1/api-keys/${id}`, { token: supervisor, body: { base_url: thief.url, api_key: 'sk-supervisor-own-key' } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data.key_last4).toBe('-key');
    thief.seen.length = 0;
    await server.request('POST', `/api/v1/api-keys/${id}/test`, { token: supervisor, body: {} });
    expect(thief.seen.map((r) => r.authorization)).toEqual(['Bearer sk-supervisor-own-key']);
    expect(sentKeyTo(thief)).toBe(false);
  });

  it('a row whose base_url changed outside the rule (a forgotten code path) cannot send its key: 409, nothing sent', async () => {
    const id = await connection();
    // What a future code path that skipped the PATCH rule would leave behind.
    await server.ctx.db.updateTable('api_keys').set({ base_url: thief.url }).where('id', '=', id).execute();
    thief.seen.length = 0;
    const tested = await server.request('POST', `/api/v1/api-keys/${id}/test`, { token: admin, body: {} });
    expect(tested.status).toBe(409);
    expect(tested.body).toEqual({ code: 40900, message: expect.stringMatching(/^the stored api_key cannot be used for this connection/), reason: 'connection.key_does_not_open', params: {} });
    expect(thief.seen).toEqual([]);
  });
});

describe('keys stored before keys were bound', () => {
  it('are bound at start to the endpoint they have, and then open for no other', async () => {
    // A row as the release before stored it: SecretBox version 1, no binding.
    const { createCipheriv, hkdfSync, randomBytes } = await import('node:crypto');
    const dataKey = Buffer.from(hkdfSync('sha256', server.config.secretKey, 'cps-api-keys', 'api-key-encryption:v1', 32));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
    const ciphertext = Buffer.concat([cipher.update(KEY, 'utf8'), cipher.final()]);
    const me = (await server.request('GET', '/api/v1/auth/me', { token: admin })).body.data;
    const now = new Date().toISOString();
    const { id } = await server.ctx.db
      .insertInto('api_keys')
      .values({ workspace_id: me.current_workspace_id, provider: 'openai-compatible', base_url: owner.url, text_model: 'm', ciphertext: ciphertext.toString('base64'), iv: iv.toString('base64'), auth_tag: cipher.getAuthTag().toString('base64'), key_version: 1, key_last4: KEY.slice(-4), created_by: me.id, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();

    await bootstrap(server.ctx);
    const row = await server.ctx.db.selectFrom('api_keys').select(['key_version', 'ciphertext']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.key_version).toBe(2);
    owner.seen.length = 0;
    expect((await server.request('POST', `/api/v1/api-keys/${id}/test`, { token: admin, body: {} })).body.data.ok).toBe(true);
    expect(owner.seen.map((r) => r.authorization)).toEqual([`Bearer ${KEY}`]);

    await server.ctx.db.updateTable('api_keys').set({ base_url: thief.url }).where('id', '=', id).execute();
    thief.seen.length = 0;
    expect((await server.request('POST', `/api/v1/api-keys/${id}/test`, { token: admin, body: {} })).status).toBe(409);
    expect(thief.seen).toEqual([]);
  });
});
