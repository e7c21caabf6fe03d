import { createHash } from 'node:crypto';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import sharp from 'sharp';
import { pngBomb } from '../helpers/images.js';
import { adminToken, API, call, Deployment, must, userWithRole, type ScenarioResult } from './harness.js';

/**
 * Scenario 5: requests generated from the OpenAPI document with fast-check. Each picks a route
 * and then hostile values for its path, query and body: wrong types, huge and unicode-edge
 * strings, negative and huge numbers, missing and extra fields, ids of another workspace, broken
 * JSON and multipart, polyglot and decompression-bomb-like uploads, NUL characters in strings
 * and ids just past 32 bits (both answered 500 by PostgreSQL before issue 17). Every answer must
 * be below 500 and in the envelope; a refused request must leave the database as it was. It runs
 * once on SQLite (data_version tells whether anything was committed, the tables say what) and
 * once on PostgreSQL (a fingerprint of every table after each request).
 */

interface Operation {
  method: string;
  path: string;
  query: string[];
  body?: { type: 'json' | 'multipart'; schema: any };
}

/** Answers that are files or streams by design, not JSON envelopes. */
const BINARY = /\/(download-file|export\.csv|export|download|stream)$|^\/files\//;
/** Tables a refused request may still write: the login lockout counts refused logins. */
const MAY_CHANGE_ON_REFUSAL = new Set(['login_throttle']);

const shortStrings = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.string({ maxLength: 20 }).map((s) => `${s}\u0000${s}`),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '名\u0000字', '\uFEFF', '\u202E', 'A\u0301', '𝕏'.repeat(100), '😀'.repeat(500), '../../etc/passwd', '%00', '<script>alert(1)</script>', "'; DROP TABLE users; --", '${jndi:ldap://x}', '\\u0000', 'null'),
);
const strings = fc.oneof({ weight: 5, arbitrary: shortStrings }, { weight: 1, arbitrary: fc.constantFrom('x'.repeat(70_000), '字'.repeat(20_000)) });
/** Integers around the 32-bit bound of every id column: 2^31 − 1 fits, 2^31 does not. */
const int32Edges = fc.constantFrom(2147483647, 2147483648, -2147483649, 4294967296);
const numbers = fc.oneof(fc.integer(), int32Edges, fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, 1e308, -1e308, 0.5), fc.double());
/** Query values: mostly within the 16 KB header limit, so the query validation is what answers. */
const queryValue = fc.oneof({ weight: 49, arbitrary: fc.oneof(shortStrings, fc.integer(), int32Edges, fc.constantFrom(-1, 0, 1e308, 0.5)) }, { weight: 1, arbitrary: fc.constant('q'.repeat(20_000)) });
const anyValue: fc.Arbitrary<unknown> = fc.oneof(strings, numbers, fc.boolean(), fc.constant(null), fc.array(fc.oneof(strings, numbers), { maxLength: 5 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(strings, numbers), { maxKeys: 4 }));

/** A value the schema accepts (within reach of fast-check: patterns and formats are not followed). */
function validFor(schema: any): fc.Arbitrary<unknown> {
  const s = schema?.anyOf?.[0] ?? schema;
  if (s?.enum) return fc.constantFrom(...s.enum);
  if (s?.const !== undefined) return fc.constant(s.const);
  switch (s?.type) {
    case 'integer':
      return fc.integer({ min: s.minimum ?? -5, max: s.maximum ?? 1000 });
    case 'number':
      return fc.double({ noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validFor(s.items), { minLength: s.minItems ?? 0, maxLength: 4 });
    case 'object':
      return fc.record(Object.fromEntries(Object.entries((s.properties ?? {}) as Record<string, any>).map(([k, v]) => [k, validFor(v)])));
    default:
      return fc.string({ minLength: s?.minLength ?? 0, maxLength: Math.min(s?.maxLength ?? 40, 40) });
  }
}

/** A value of the schema's type, or deliberately not. */
function valueFor(schema: any): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: validFor(schema) }, { weight: 2, arbitrary: anyValue });
}

/**
 * A body valid but for one field, which carries a NUL character (a string) or an integer just
 * past 32 bits (an integer, an array of them): hostile scalars only a lenient validation lets
 * through to the database, where PostgreSQL (not SQLite) refuses them.
 */
function oneHostileField(schema: any): fc.Arbitrary<unknown> {
  const props: Record<string, any> = schema?.properties ?? {};
  const keys = Object.keys(props);
  if (keys.length === 0) return fc.constant({});
  const hostile = (s: any): fc.Arbitrary<unknown> => {
    const t = s?.anyOf?.[0] ?? s;
    if (t?.type === 'integer') return int32Edges;
    if (t?.type === 'array') return fc.array(hostile(t.items), { minLength: 1, maxLength: 2 });
    return fc.string({ maxLength: 10 }).map((v) => `${v}\u0000${v}`);
  };
  return fc
    .tuple(validFor({ type: 'object', properties: props }), fc.constantFrom(...keys))
    .chain(([body, key]) => hostile(props[key]).map((bad) => ({ ...(body as object), [key]: bad })));
}

function objectFor(schema: any): fc.Arbitrary<unknown> {
  const props: Record<string, any> = schema?.properties ?? {};
  const keys = Object.keys(props);
  return fc
    .tuple(
      fc.record(Object.fromEntries(keys.map((k) => [k, valueFor(props[k])])), { requiredKeys: [] }),
      fc.dictionary(fc.string({ maxLength: 10 }), anyValue, { maxKeys: 3 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));
}

interface Spec {
  op: Operation;
  ids: Array<'own' | 'foreign' | 'negative' | 'int32' | 'huge' | 'text'>;
  query: Record<string, unknown>;
  body: { kind: 'json'; value: unknown } | { kind: 'raw'; contentType: string; data: string } | { kind: 'upload'; file: 'png' | 'polyglot' | 'bomb' | 'text' | 'empty'; extra: string } | { kind: 'none' };
  token: 'admin' | 'operator' | 'none';
}

function specFor(ops: Operation[]): fc.Arbitrary<Spec> {
  return fc.constantFrom(...ops).chain((op) =>
    fc.record({
      op: fc.constant(op),
      ids: fc.array(fc.constantFrom<Spec['ids'][number]>('own', 'own', 'foreign', 'negative', 'int32', 'huge', 'text'), { minLength: 3, maxLength: 3 }),
      query: fc.record(Object.fromEntries([...op.query, 'page', 'page_size', 'extra'].map((q) => [q, queryValue])), { requiredKeys: [] }),
      body:
        op.body?.type === 'multipart'
          ? fc.oneof(
              fc.record({ kind: fc.constant('upload' as const), file: fc.constantFrom('png' as const, 'polyglot' as const, 'bomb' as const, 'text' as const, 'empty' as const), extra: strings }),
              fc.record({ kind: fc.constant('raw' as const), contentType: fc.constantFrom('multipart/form-data; boundary=x', 'multipart/form-data', 'application/json'), data: fc.constantFrom('--x\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\nabc', '{}', '--x--', '') }),
            )
          : fc.oneof(
              { weight: 6, arbitrary: fc.record({ kind: fc.constant('json' as const), value: op.body ? objectFor(op.body.schema) : anyValue }) },
              { weight: 3, arbitrary: fc.record({ kind: fc.constant('json' as const), value: op.body ? oneHostileField(op.body.schema) : anyValue }) },
              { weight: 1, arbitrary: fc.record({ kind: fc.constant('json' as const), value: anyValue }) },
              { weight: 1, arbitrary: fc.record({ kind: fc.constant('raw' as const), contentType: fc.constantFrom('application/json', 'text/plain', 'application/xml', 'application/json; charset=utf-16'), data: fc.constantFrom('{', '{"a":', '[1,2', 'null', '\u0000\u0001', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}') }) },
              { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
            ),
      token: fc.constantFrom<Spec['token']>('admin', 'admin', 'admin', 'operator', 'none'),
    }),
  );
}

interface Ids {
  own: Record<string, number>;
  foreign: Record<string, number>;
}

function pathOf(spec: Spec, ids: Ids): string {
  let i = 0;
  return spec.op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const how = spec.ids[i++ % 3]!;
    const resource = spec.op.path.split('/')[1]!;
    const key = name === 'id' ? resource : name;
    switch (how) {
      case 'own':
        return String(ids.own[key] ?? 1);
      case 'foreign':
        return String(ids.foreign[key] ?? 2);
      case 'negative':
        return '-1';
      case 'int32':
        return '2147483648';
      case 'huge':
        return '99999999999999999999';
      default:
        return encodeURIComponent(name === 'key' ? '../../secrets/jwt_secret' : name === 'name' ? 'ad-law\u0000' : '1 OR 1=1');
    }
  });
}

interface Uploads {
  png: Buffer;
  polyglot: Buffer;
  bomb: Buffer;
}

async function uploads(): Promise<Uploads> {
  const png = await sharp({ create: { width: 30, height: 40, channels: 3, background: '#123456' } }).png().toBuffer();
  const jpeg = await sharp({ create: { width: 30, height: 40, channels: 3, background: '#654321' } }).jpeg().toBuffer();
  // A JPEG that is also an HTML page and a zip (bytes appended after the image's end marker).
  const polyglot = Buffer.concat([jpeg, Buffer.from('<html><script>alert(1)</script></html>PK\u0003\u0004zipzipzip')]);
  const bomb = pngBomb();
  return { png, polyglot, bomb };
}

/** Every table's rows, hashed: what a refused request must leave as it was. */
interface Fingerprinter {
  /** Whether anything may have been committed since the last call (cheap, may say yes falsely). */
  changed(): Promise<boolean>;
  tables(): Promise<Map<string, string>>;
  close(): Promise<void>;
}

function sqliteFingerprinter(file: string): Fingerprinter {
  const db = new Sqlite(file, { fileMustExist: true, readonly: true });
  let version = db.pragma('data_version', { simple: true }) as number;
  return {
    async changed() {
      const now = db.pragma('data_version', { simple: true }) as number;
      const moved = now !== version;
      version = now;
      return moved;
    },
    async tables() {
      const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%'").all() as Array<{ name: string }>;
      const out = new Map<string, string>();
      for (const { name } of names) {
        const hash = createHash('sha1');
        for (const row of db.prepare(`SELECT * FROM "${name}"`).iterate()) hash.update(JSON.stringify(row));
        out.set(name, hash.digest('hex'));
      }
      return out;
    },
    async close() {
      db.close();
    },
  };
}

/** PostgreSQL has no data_version: every table is hashed after every request (one query, small tables). */
async function postgresFingerprinter(url: string): Promise<Fingerprinter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'kysely_%' ORDER BY tablename");
  const query = rows
    .map(({ tablename }) => `SELECT '${tablename}' AS t, md5(coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '')) AS h FROM "${tablename}" x`)
    .join(' UNION ALL ');
  return {
    changed: async () => true,
    async tables() {
      const result = await client.query<{ t: string; h: string }>(query);
      return new Map(result.rows.map((r) => [r.t, r.h]));
    },
    close: () => client.end(),
  };
}

export async function fuzzScenario(long: boolean, database: 'sqlite' | 'postgres'): Promise<ScenarioResult> {
  const runs = long ? 10_000 : 1_500;
  const seed = Number(process.env.PROVE_SEED ?? Date.now() % 2 ** 31);
  const d = await Deployment.create({ postgres: database === 'postgres', env: { RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'warn' } });
  let fingerprinter: Fingerprinter | undefined;
  try {
    // API only: no worker writes behind the fuzzer's back, so every commit is a request's.
    const proc = await d.start('api', { LOG_LEVEL: 'info' });
    const base = proc.url!;
    const admin = await adminToken(base);
    const operator = await userWithRole(base, admin, 'fuzz_operator', 'operator');
    const victim = await userWithRole(base, admin, 'fuzz_victim', 'operator');
    await must(base, 'POST', '/api-keys', admin, { provider: 'local', api_key: 'local-fuzz-key' });
    // A connection with an endpoint (a public literal: nothing resolves or connects on save), so
    // PATCH meets the base_url-needs-the-key rule; an email invitation, so its link route has one.
    const endpoint = await must(base, 'POST', '/api-keys', admin, { provider: 'openai-compatible', api_key: 'sk-fuzz-endpoint', base_url: 'https://1.1.1.1/v1', text_model: 'm' });
    await must(base, 'POST', '/workspaces/1/invitations', admin, { email: 'fuzz-invitee@example.com', role: 'operator' });
    const product = await must(base, 'POST', '/products', admin, { name: '模糊产品', category: 'c', source: 'custom' });
    const task = await must(base, 'POST', '/tasks', admin, { product_id: product.id, theme: '模糊', text_count: 1, image_count: 0, track: 'ai' });
    const bench = await must(base, 'POST', `/products/${product.id}/benchmarks`, admin, { highlights: 'h', link_url: null, screenshot_url: null });
    const word = await must(base, 'POST', '/banned-words', admin, { word: '模糊词', level: 'soft_warn' });
    const other = await must(base, 'POST', '/workspaces', admin, { name: 'Other', slug: 'other' });
    const otherToken = (await must(base, 'POST', '/workspaces/switch', admin, { workspace_id: other.id })).token;
    const otherProduct = await must(base, 'POST', '/products', otherToken, { name: '别家', category: 'c', source: 'custom' });
    const ids: Ids = {
      own: { products: product.id, tasks: task.id, task_id: task.id, benchmarks: bench.id, 'banned-words': word.id, users: victim.id, user_id: victim.id, workspaces: 1, 'api-keys': endpoint.id },
      foreign: { products: otherProduct.id, tasks: task.id + 1000, task_id: task.id + 1000, workspaces: other.id, users: 1, user_id: 1 },
    };
    const tokens = { admin, operator: operator.token, none: undefined };
    const files = await uploads();

    const doc = await call(base, 'GET', `${API}/openapi.json`);
    const ops: Operation[] = [];
    for (const [p, methods] of Object.entries(doc.body.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const content = op.requestBody?.content ?? {};
        const json = content['application/json']?.schema;
        const multipart = content['multipart/form-data']?.schema;
        ops.push({
          method: method.toUpperCase(),
          path: p.replace(API, ''),
          query: (op.parameters ?? []).filter((x: any) => x.in === 'query').map((x: any) => x.name),
          ...(json ? { body: { type: 'json' as const, schema: json } } : multipart || /upload|\/images$/.test(p) && method === 'post' ? { body: { type: 'multipart' as const, schema: multipart } } : {}),
        });
      }
    }
    // The fuzzer must not log itself out: its own password and session stay out of reach.
    const targets = ops.filter((o) => !/^\/auth\/(change-password)$/.test(o.path));
    const specs = fc.sample(specFor(targets), { numRuns: runs, seed });

    fingerprinter = database === 'postgres' ? await postgresFingerprinter(d.env.DATABASE_URL!) : sqliteFingerprinter(path.join(d.dataDir, 'app.sqlite'));
    let snapshot = await fingerprinter.tables();

    const problems: string[] = [];
    const statuses = new Map<number, number>();
    let refusedUnchanged = 0;
    let cutOff = 0;
    for (const spec of specs) {
      const p = pathOf(spec, ids);
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(spec.query)) qs.append(k, typeof v === 'string' ? v : JSON.stringify(v));
      const url = `${base}${API}${p}${qs.size ? `?${qs}` : ''}`;
      const headers: Record<string, string> = {};
      const token = tokens[spec.token];
      if (token) headers.authorization = `Bearer ${token}`;
      let body: RequestInit['body'] | undefined;
      if (spec.op.method !== 'GET' && spec.op.method !== 'DELETE') {
        if (spec.body.kind === 'json') {
          headers['content-type'] = 'application/json';
          body = JSON.stringify(spec.body.value) ?? 'null';
        } else if (spec.body.kind === 'raw') {
          headers['content-type'] = spec.body.contentType;
          body = spec.body.data;
        } else if (spec.body.kind === 'upload') {
          const form = new FormData();
          const bytes = spec.body.file === 'png' ? files.png : spec.body.file === 'polyglot' ? files.polyglot : spec.body.file === 'bomb' ? files.bomb : spec.body.file === 'text' ? Buffer.from('#!/bin/sh\nrm -rf /') : Buffer.alloc(0);
          for (const field of ['image', 'screenshot']) form.append(field, new Blob([bytes], { type: 'image/png' }), 'x.png');
          form.append('scene', spec.body.extra);
          form.append('highlights', spec.body.extra);
          form.append('link_url', spec.body.extra);
          body = form;
        }
      }
      let res: Response;
      try {
        res = await fetch(url, { method: spec.op.method, headers, ...(body === undefined ? {} : { body }) });
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? String(err);
        // Past Node's 16 KB header limit the server answers 431 and closes at once; a client
        // still pushing a body may see the reset before the answer (nginx does the same, 414).
        if (url.length > 16 * 1024) {
          cutOff++;
          continue;
        }
        problems.push(`${spec.op.method} ${p} (${spec.body.kind}${spec.body.kind === 'upload' ? ` ${spec.body.file}` : ''}): no answer (${cause}; URL ${url.length} chars)`);
        continue;
      }
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const where = `${spec.op.method} ${spec.op.path} → ${res.status}`;
      if (res.status >= 500) problems.push(`${where}: ${text.slice(0, 200)}`);
      const binary = BINARY.test(spec.op.path) && res.status < 300;
      if (!binary) {
        let parsed: any;
        try {
          parsed = JSON.parse(text);
        } catch {
          problems.push(`${where}: not JSON: ${text.slice(0, 100)}`);
        }
        if (parsed && res.status >= 400 && !(Number.isInteger(parsed.code) && parsed.code !== 0 && typeof parsed.message === 'string')) problems.push(`${where}: not the error envelope`);
        if (parsed && res.status < 300 && parsed.code !== 0) problems.push(`${where}: not the success envelope`);
      }
      if (await fingerprinter.changed()) {
        const next = await fingerprinter.tables();
        if (res.status >= 400) {
          const changed = [...next].filter(([t, h]) => snapshot.get(t) !== h && !MAY_CHANGE_ON_REFUSAL.has(t)).map(([t]) => t);
          if (changed.length) problems.push(`${where}: refused but changed ${changed.join(', ')}`);
          else refusedUnchanged++;
        }
        snapshot = next;
      } else if (res.status >= 400) refusedUnchanged++;
    }
    const alive = await call(base, 'GET', '/healthz').catch(() => undefined);
    if (alive?.status !== 200) problems.push('the API process did not survive');
    if (proc.service.child.exitCode !== null) problems.push(`the API process exited with ${proc.service.child.exitCode}`);
    // A 500's cause is in the API's log: quote it, so the finding can be fixed.
    if (problems.some((p) => / → 5\d\d/.test(p))) problems.unshift(...d.errorLines().map((l) => `log: ${l.slice(0, 600)}`));
    const byClass = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ');
    return {
      scenario: `5 hostile input, ${database === 'postgres' ? 'PostgreSQL' : 'SQLite'} (fast-check from the OpenAPI document)`,
      load: `${specs.length} requests over ${targets.length} operations, seed ${seed}`,
      faults: '-',
      badInputs: `${specs.length}: ${byClass}`,
      lostData: `${problems.filter((p) => p.includes('refused but changed')).length} refused requests that changed data (${refusedUnchanged} refusals checked)`,
      failures: problems.length,
      notes: [...problems.slice(0, 12), ...(cutOff ? [`${cutOff} requests with URLs over 16 KB and a body were cut off after the 431 (not counted)`] : [])],
    };
  } finally {
    await fingerprinter?.close();
    await d.close();
  }
}
