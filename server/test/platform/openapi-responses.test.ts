import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { documentEveryRoute } from '../../src/http/openapi.js';

describe('every API route is documented', () => {
  const documented = { operationId: 'getThing', summary: 'Get a thing', description: 'One thing', tags: ['products'] };

  async function register(schema: Record<string, unknown>, url = '/api/v1/things') {
    const app = Fastify();
    documentEveryRoute(app);
    app.get(url, { schema }, async () => ({}));
    try {
      await app.ready();
    } finally {
      await app.close();
    }
  }

  it('refuses at startup a route without operationId, summary, description or a declared tag', async () => {
    await expect(register(documented)).resolves.toBeUndefined();
    for (const key of ['operationId', 'summary', 'description'] as const) {
      const { [key]: _left, ...rest } = documented;
      await expect(register(rest)).rejects.toThrow(new RegExp(`GET /api/v1/things lacks ${key}`));
    }
    await expect(register({ ...documented, tags: [] })).rejects.toThrow(/needs tags from API_TAGS/);
    await expect(register({ ...documented, tags: ['undeclared'] })).rejects.toThrow(/needs tags from API_TAGS/);
  });

  it('leaves hidden routes and routes outside the API alone', async () => {
    await expect(register({ hide: true })).resolves.toBeUndefined();
    await expect(register({}, '/healthz')).resolves.toBeUndefined();
  });
});
