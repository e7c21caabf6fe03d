import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConnections } from '../../src/modules/api-keys/service.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { chatReply, json, startFakeProvider, type FakeProvider } from './fake-provider.js';

let fake: FakeProvider;
let server: TestServer;

beforeAll(async () => {
  fake = await startFakeProvider();
  server = await startTestServer({ env: { PROVIDER_DEEPSEEK_BASE_URL: `${fake.origin}/ds/v1`, PROVIDER_DEEPSEEK_TEXT_MODEL: 'deepseek-test' } });
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

describe('ctx.providers', () => {
  it('turns a stored API key into a provider that calls the configured endpoint with that key', async () => {
    const token = await server.adminToken();
    const created = await server.request('POST', '/api/v1/api-keys', { token, body: { provider: 'deepseek', api_key: 'sk-ds-live-0123456789' } });
    expect(created.status).toBe(200);
    const me = await server.request('GET', '/api/v1/auth/me', { token });

    const creds = (await resolveConnections(server.ctx, { workspaceId: me.body.data.current_workspace_id, operatorId: me.body.data.id })).text?.creds;
    expect(creds).toMatchObject({ provider: 'deepseek', apiKey: 'sk-ds-live-0123456789' });

    fake.handle((_req, res) => json(res, 200, chatReply('好的')));
    const result = await server.ctx.providers.forCredentials(creds!).generateText({ system: 's', prompt: 'p', intent: { kind: 'free' } });
    expect(result).toMatchObject({ text: '好的', model: 'deepseek-test' });
    expect(fake.requests[0]!.path).toBe('/ds/v1/chat/completions');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-ds-live-0123456789');
    // The key is not written to the logs of the call.
    expect(server.logs.join('')).not.toContain('sk-ds-live-0123456789');
  });

  it('logs retries with the provider and reason but never the key', async () => {
    const creds = { keyId: 9, provider: 'deepseek' as const, apiKey: 'sk-ds-echoed-9876543210' };
    fake.handle((req, res, n) =>
      n === 1
        ? json(res, 503, { error: { message: `busy; key ${String(req.headers.authorization).slice(7)}` } }, { 'retry-after-ms': '10' })
        : json(res, 200, chatReply('好了')),
    );
    const before = server.logs.length;
    fake.requests.length = 0;
    const result = await server.ctx.providers.forCredentials(creds).generateText({ system: 's', prompt: 'p', intent: { kind: 'free' } });
    expect(result.text).toBe('好了');
    const logged = server.logs.slice(before).join('');
    expect(logged).toContain('provider call failed, retrying');
    expect(logged).toContain('deepseek');
    expect(logged).not.toContain('sk-ds-echoed-9876543210');
  });

  it('serves the offline local provider for any key string', async () => {
    const calls = fake.requests.length;
    const provider = server.ctx.providers.forCredentials({ keyId: 1, provider: 'local', apiKey: 'anything' });
    const result = await provider.generateText({ system: 's', prompt: 'p', intent: { kind: 'free', input: { product: { name: '保温杯' }, theme: '通勤' } } });
    expect(result.text).toContain('保温杯');
    // Offline: no request reached the (only) HTTP endpoint configured.
    expect(fake.requests).toHaveLength(calls);
  });
});
