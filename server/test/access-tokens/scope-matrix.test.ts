import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { API, ok } from '../tasks/fixtures.js';

type Scope = 'read' | 'produce' | 'review' | 'admin';
type Need = Scope | 'session' | 'skip';

/**
 * §13 as a table, written out independently of the routes' declarations: the first match wins;
 * any other read needs `read`, any other write `produce`.
 */
const NEEDS: Array<[RegExp, Need]> = [
  [/^POST \/auth\/login$/, 'skip'],
  [/^GET \/files\/\{key\}$/, 'skip'],
  [/^GET \/tasks\/\{id\}\/stream$/, 'skip'],
  [/^GET \/delivery-packages\/\{id\}\/download-file$/, 'skip'],
  [/ \/auth\/tokens/, 'session'],
  [/^POST \/auth\/change-password$/, 'session'],
  [/^POST \/workspaces\/switch$/, 'session'],
  [/^POST \/invitations\//, 'session'],
  [/^POST \/(tasks\/\{id\}\/sse-ticket|delivery-packages\/\{id\}\/download-token)$/, 'read'],
  [/ \/review\/(queue|\{task_id\}\/(approve|reject))$/, 'review'],
  [/^GET \/tasks\/\{id\}\/audit$/, 'review'],
  [/^(GET|POST) \/users$|^PATCH \/users\/\{id\}$/, 'admin'],
  [/ \/webhooks/, 'admin'],
  [/^(POST|PUT|DELETE) \/banned-words/, 'admin'],
  [/^(POST|PATCH|DELETE) \/accounts/, 'admin'],
  [/^(POST|PATCH|DELETE) \/api-keys/, 'admin'],
  [/^PUT \/workspaces\/current\/generation$/, 'admin'],
  [/^POST \/workspaces$/, 'admin'],
  [/^(POST|DELETE) \/workspaces\/\{id\}\/(members|invitations)/, 'admin'],
  [/^GET /, 'read'],
];
const needOf = (route: string): Need => NEEDS.find(([re]) => re.test(route))?.[1] ?? 'produce';

/** Every route of the OpenAPI document × scope: a token reaches exactly what its scopes and its role allow. */
describe('authorization matrix: route × scope × role', () => {
  let server: TestServer;
  let routes: string[];
  let admin: string;

  beforeAll(async () => {
    server = await startTestServer({ worker: false, env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
    admin = await server.adminToken();
    const doc = await server.request('GET', `${API}/openapi.json`);
    routes = [];
    for (const [p, ops] of Object.entries(doc.body.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) routes.push(`${method.toUpperCase()} ${p.replace(API, '')}`);
    }
    expect(routes).toContain('POST /auth/tokens');
  });
  afterAll(async () => server?.close());

  /** Ids no record has: an allowed call answers 404 (or 400, 409…) and changes nothing. */
  const send = (route: string, token: string) => {
    const [method, p] = route.split(' ') as [string, string];
    const path = p.replace(/\{key\}/, 'nothing').replace(/\{name\}/, 'no-such-preset').replace(/\{[a-z_]+\}/g, '999999');
    return server.request(method, `${API}${path}`, { token, ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) });
  };

  it('each single scope: refused (403, naming the scope) where the route needs another, never where it needs this one', async () => {
    const tokens = {} as Record<Scope, string>;
    for (const scope of ['read', 'produce', 'review', 'admin'] as const) tokens[scope] = (await ok(server, 'POST', '/auth/tokens', admin, { name: scope, scopes: [scope] })).token;
    const mismatches: string[] = [];
    for (const route of routes) {
      const need = needOf(route);
      if (need === 'skip') continue;
      for (const scope of ['read', 'produce', 'review', 'admin'] as const) {
        const res = await send(route, tokens[scope]);
        const refused = res.status === 403 && res.body.code === 40300;
        if (need === scope && (refused || res.status === 401 || res.status >= 500)) mismatches.push(`${route} with ${scope}: expected allowed, got ${res.status} ${res.text.slice(0, 120)}`);
        if (need !== scope && !refused) mismatches.push(`${route} with ${scope}: expected 403 (needs ${need}), got ${res.status}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 180_000);

  it('a token with every scope answers exactly as its user\'s session, for each role (scopes only narrow)', async () => {
    const mismatches: string[] = [];
    for (const role of ['operator', 'supervisor', 'admin'] as const) {
      const session = (await userWithRole(server, `matrix-${role}`, role)).token;
      const scopes = role === 'operator' ? ['read', 'produce', 'admin'] : ['read', 'produce', 'review', 'admin'];
      const token = (await ok(server, 'POST', '/auth/tokens', session, { name: 'all', scopes })).token;
      for (const route of routes) {
        const need = needOf(route);
        if (need === 'skip' || need === 'session') continue;
        const [bySession, byToken] = [await send(route, session), await send(route, token)];
        if (bySession.status !== byToken.status) mismatches.push(`${route} as ${role}: session ${bySession.status}, token ${byToken.status} ${byToken.text.slice(0, 120)}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 180_000);
});
