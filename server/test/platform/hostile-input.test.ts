import { connect } from 'node:net';
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Response, type TestServer } from '../helpers/server.js';

/**
 * Issue 17, finding 2: a NUL character in any string and an integer past 2^31−1 in any field
 * answered 500 on PostgreSQL. Every JSON body field, query parameter and path parameter of every
 * route in the OpenAPI document is tried with both; each must be 400 / 40000 with the rule named.
 * The same file runs on SQLite and (DATABASE_URL=postgres://…) on PostgreSQL.
 */

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  params: Array<{ name: string; in: string; schema: Schema }>;
  body?: Schema;
}

/** A string the schema would accept but for the NUL inside it. */
const nulString = (s: Schema) => `a\u0000${'b'.repeat(Math.max((s.minLength ?? 0) - 2, 1))}`;
const TOO_BIG = 2147483648;

function expectRefused(res: Response, rule: RegExp, what: string) {
  expect({ what, status: res.status, code: res.body?.code }, res.text).toEqual({ what, status: 400, code: 40000 });
  expect(res.body.message, what).toMatch(rule);
}

/** A value the schema accepts, with every optional property present so each can be varied. */
function sample(schema: Schema, resolve: (s: Schema) => Schema): unknown {
  const s = resolve(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const branch = s.anyOf ?? s.oneOf;
  if (branch) return sample(branch.find((b: Schema) => resolve(b).type !== 'null') ?? branch[0], resolve);
  switch (s.type) {
    case 'object':
      return Object.fromEntries(Object.entries((s.properties ?? {}) as Record<string, Schema>).map(([k, v]) => [k, sample(v, resolve)]));
    case 'array':
      return Array.from({ length: Math.max(s.minItems ?? 1, 1) }, (_, i) => {
        const item = sample(s.items ?? {}, resolve);
        return typeof item === 'number' ? item + i : item;
      });
    case 'integer':
    case 'number':
      return Math.min(Math.max(s.minimum ?? 1, 1), s.maximum ?? Infinity);
    case 'boolean':
      return true;
    case 'string': {
      if (s.format === 'email') return 'someone@example.com';
      if (s.format === 'uri') return 'https://example.com/page';
      if (s.format === 'date-time') return new Date().toISOString();
      if (s.format === 'date') return '2026-01-01';
      if (s.pattern) {
        const fits = (v: string) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? 100);
        return fc.sample(fc.stringMatching(new RegExp(s.pattern)).filter(fits), { numRuns: 1, seed: 17 })[0];
      }
      return 'x'.repeat(Math.max(s.minLength ?? 1, 1));
    }
    default:
      return 'x';
  }
}

/** Paths (as property lists) of the leaves of `value` whose schema is a plain string or an integer. */
function leaves(schema: Schema, resolve: (s: Schema) => Schema, path: Array<string | number> = []): Array<{ path: Array<string | number>; kind: 'string' | 'integer'; schema: Schema }> {
  const s = resolve(schema);
  const branch = s.anyOf ?? s.oneOf;
  if (branch) {
    const real = branch.find((b: Schema) => resolve(b).type !== 'null');
    return real ? leaves(real, resolve, path) : [];
  }
  if (s.type === 'object') return Object.entries((s.properties ?? {}) as Record<string, Schema>).flatMap(([k, v]) => leaves(v, resolve, [...path, k]));
  if (s.type === 'array') return leaves(s.items ?? {}, resolve, [...path, 0]);
  // Strings with a pattern, format or fixed values refuse a NUL by that rule already.
  if (s.type === 'string' && !s.pattern && !s.format && !s.enum && s.const === undefined) return [{ path, kind: 'string', schema: s }];
  if (s.type === 'integer') return [{ path, kind: 'integer', schema: s }];
  return [];
}

function withValue(value: unknown, path: Array<string | number>, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[head!] = withValue(copy[head!], rest, leaf);
  return copy;
}

describe('hostile scalars: NUL characters and integers past 32 bits (finding 2)', () => {
  let server: TestServer;
  let admin: string;
  let operations: Operation[];
  let resolve: (s: Schema) => Schema;

  beforeAll(async () => {
    server = await startTestServer({ worker: false, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    admin = await server.adminToken();
    const doc = (await server.request('GET', '/api/v1/openapi.json')).body;
    resolve = (s: Schema) => (s?.$ref ? resolve(doc.components.schemas[String(s.$ref).split('/').pop()!]) : s);
    operations = [];
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const body = op.requestBody?.content?.['application/json']?.schema;
        operations.push({ method: method.toUpperCase(), path, params: op.parameters ?? [], ...(body ? { body } : {}) });
      }
    }
    expect(operations.length).toBeGreaterThan(40);
  });
  afterAll(async () => server?.close());

  const pathWith = (op: Operation, name?: string, value?: string) =>
    op.path.replace(/\{(\w+)\}/g, (_m, p: string) => (p === name ? value! : p === 'name' ? 'preset' : p === 'key' ? 'abc' : '1'));

  it('every JSON body field: a NUL in a string, 2^31 in an integer → 400 / 40000', async () => {
    let tried = 0;
    for (const op of operations.filter((o) => o.body)) {
      const valid = sample(op.body!, resolve);
      for (const leaf of leaves(op.body!, resolve)) {
        const body = withValue(valid, leaf.path, leaf.kind === 'string' ? nulString(leaf.schema) : TOO_BIG);
        const res = await server.request(op.method, pathWith(op), { token: admin, body });
        expectRefused(res, leaf.kind === 'string' ? /NUL/ : /must be <= \d+/, `${op.method} ${op.path} body.${leaf.path.join('.')}`);
        tried++;
      }
    }
    // The routes that reached PostgreSQL with these values: login, users, members, products…
    expect(tried).toBeGreaterThan(45);
  });

  it('every query and path parameter: the same', async () => {
    let tried = 0;
    for (const op of operations) {
      const query = op.params.filter((p) => p.in === 'query');
      const validQuery = Object.fromEntries(query.map((p) => [p.name, String(sample(p.schema ?? {}, resolve))]));
      for (const param of op.params) {
        const s = resolve(param.schema ?? {});
        const kind = s.type === 'integer' ? 'integer' : s.type === 'string' && !s.pattern && !s.format && !s.enum ? 'string' : undefined;
        if (!kind || (param.in !== 'query' && param.in !== 'path')) continue;
        const value = kind === 'string' ? nulString(s) : String(TOO_BIG);
        const path = param.in === 'path' ? pathWith(op, param.name, encodeURIComponent(value)) : pathWith(op);
        const qs = new URLSearchParams({ ...validQuery, ...(param.in === 'query' ? { [param.name]: value } : {}) });
        const res = await server.request(op.method, `${path}${qs.size ? `?${qs}` : ''}`, { token: admin, ...(op.body ? { body: sample(op.body, resolve) } : {}) });
        expectRefused(res, kind === 'string' ? /NUL/ : /must be <= \d+/, `${op.method} ${op.path} ${param.in}.${param.name}`);
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(40);
  });

  it('unauthenticated login with a NUL in the username or password → 400, and nothing is throttled', async () => {
    for (const body of [{ username: 'ad\u0000min', password: 'whatever-1' }, { username: 'admin', password: 'pw\u0000' }]) {
      expectRefused(await server.request('POST', '/api/v1/auth/login', { body }), /NUL/, JSON.stringify(body));
    }
    const throttled = await server.ctx.db.selectFrom('login_throttle').selectAll().execute();
    expect(throttled.filter((r) => r.username.includes('\u0000'))).toEqual([]);
  });

  it('multipart text fields refuse a NUL too', async () => {
    const product = await server.request('POST', '/api/v1/products', { token: admin, body: { name: 'nul-upload', category: 'c', source: 'custom' } });
    const form = new FormData();
    const png = await sharp({ create: { width: 30, height: 40, channels: 3, background: '#336699' } }).png().toBuffer();
    form.append('screenshot', new Blob([png], { type: 'image/png' }), 'shot.png');
    form.append('highlights', 'before\u0000after');
    const res = await fetch(`${server.url}/api/v1/products/${product.body.data.id}/benchmarks/upload`, { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body: form });
    const body = (await res.json()) as { code: number; message: string };
    expect({ status: res.status, code: body.code }).toEqual({ status: 400, code: 40000 });
    expect(body.message).toMatch(/highlights.*NUL/);
  });

  it('a NUL or another control byte in a header (Idempotency-Key) is refused by the HTTP parser with the envelope', async () => {
    const answer = await new Promise<string>((resolvePromise, reject) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => {
        socket.write(`POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nIdempotency-Key: a\u0000b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
      });
      let text = '';
      socket.on('data', (d) => (text += d.toString('latin1')));
      socket.on('end', () => resolvePromise(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 40000 });
  });
});

describe('JSON bodies that are not well-formed Unicode (finding 6)', () => {
  let server: TestServer;
  let admin: string;
  beforeAll(async () => {
    server = await startTestServer({ worker: false });
    admin = await server.adminToken();
  });
  afterAll(async () => server?.close());

  const post = (path: string, raw: Buffer | string, token?: string) =>
    server.request('POST', path, { raw, headers: { 'content-type': 'application/json' }, ...(token ? { token } : {}) });

  it('invalid UTF-8 bytes are a 400, not a U+FFFD silently stored', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"bad'), Buffer.from([0xff, 0xfe]), Buffer.from('","category":"c","source":"custom"}')]);
    expectRefused(await post('/api/v1/products', bytes, admin), /not valid UTF-8/, 'invalid bytes');
    // A surrogate encoded in UTF-8 (CESU-style) is not UTF-8 either.
    const cesu = Buffer.concat([Buffer.from('{"username":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('","password":"whatever-12"}')]);
    expectRefused(await post('/api/v1/auth/login', cesu), /not valid UTF-8/, 'encoded surrogate');
    const products = await server.request('GET', '/api/v1/products?page_size=100', { token: admin });
    expect(products.body.data.items.filter((p: { name: string }) => p.name.includes('\uFFFD'))).toEqual([]);
  });

  it('a lone surrogate escape is a 400 naming the field; a proper pair is stored as the character', async () => {
    const lone = await post('/api/v1/products', '{"name":"half \\ud83d here","category":"c","source":"custom"}', admin);
    expectRefused(lone, /body\.name contains a lone UTF-16 surrogate/, 'lone high surrogate');
    expectRefused(await post('/api/v1/products', '{"name":"x","category":"\\udc00","source":"custom"}', admin), /body\.category/, 'lone low surrogate');
    const pair = await post('/api/v1/products', '{"name":"pair \\ud83d\\ude00","category":"c","source":"custom"}', admin);
    expect(pair.status, pair.text).toBe(200);
    expect(pair.body.data.name).toBe('pair 😀');
  });
});
