import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConnections } from '../../src/modules/api-keys/service.js';
import { startTestServer, usingPostgres, type TestServer } from '../helpers/server.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

describe('API keys', () => {
  let server: TestServer;
  let admin: string;
  // Distinctive enough that any occurrence anywhere is this key.
  const plaintext = `sk-PLAINTEXT-${Math.random().toString(36).slice(2)}-wxyz`;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.adminToken();
  });
  afterAll(async () => server?.close());

  it('stores a key and shows only provider and last four characters', async () => {
    const created = await server.request('POST', '/api/v1/api-keys', { token: admin, body: { provider: 'OpenAI', api_key: ` ${plaintext} ` } });
    expect(created.status, created.text).toBe(200);
    expect(created.body.data).toMatchObject({
      provider: 'openai',
      name: 'OpenAI',
      key_last4: 'wxyz',
      base_url: 'https://api.openai.com/v1',
      text_model: 'gpt-5.4-mini',
      image_model: 'gpt-image-2',
      capabilities: { text: true, vision: true, image: true },
      last_test: null,
    });
    expect(created.body.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

    const list = await server.request('GET', '/api/v1/api-keys', { token: admin });
    expect(list.body.data).toMatchObject({ total: 1, page: 1, page_size: 20 });
    expect(list.body.data.items[0]).toEqual(created.body.data);
    for (const text of [created.text, list.text]) {
      expect(text).not.toContain(plaintext);
      expect(text).not.toMatch(/ciphertext|auth_tag|"iv"/);
    }

    // The one internal way back to the plaintext, for the provider layer.
    const me = (await server.request('GET', '/api/v1/auth/me', { token: admin })).body.data;
    const routes = await resolveConnections(server.ctx, { workspaceId: me.current_workspace_id, operatorId: me.id });
    expect(routes.text?.creds).toMatchObject({ keyId: created.body.data.id, provider: 'openai', apiKey: plaintext });
    expect(routes.image?.used).toEqual({ key_id: created.body.data.id, provider: 'openai', name: 'OpenAI', model: 'gpt-image-2' });
  });

  it('refuses an unknown provider without echoing the key', async () => {
    const res = await server.request('POST', '/api/v1/api-keys', { token: admin, body: { provider: 'acme-ai', api_key: `${plaintext}-2` } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(40000);
    expect(res.body.message).toMatch(/provider/);
    expect(res.text).not.toContain(plaintext);
  });

  it('never writes the plaintext into the logs', () => {
    const logs = server.logs.join('');
    expect(logs).toContain('/api/v1/api-keys');
    expect(logs).not.toContain(plaintext);
  });

  it('never writes the plaintext into the database', async () => {
    const rows = await server.ctx.db.selectFrom('api_keys').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(plaintext);
    expect(JSON.stringify(rows)).not.toContain(Buffer.from(plaintext).toString('base64'));
    if (usingPostgres) return;
    // The raw SQLite files (database, WAL and shared memory): the bytes as they sit on disk.
    const files = filesUnder(server.dataDir).filter((f) => /app\.sqlite/.test(f));
    expect(files.length).toBeGreaterThan(0);
    const needle = Buffer.from(plaintext);
    for (const file of files) expect(readFileSync(file).includes(needle), file).toBe(false);
    // The search itself works on these files: a value stored in clear is found.
    const all = Buffer.concat(files.map((f) => readFileSync(f)));
    expect(all.includes(Buffer.from('admin@example.com'))).toBe(true);
  });
});
