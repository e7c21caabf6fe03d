import { createHash } from 'node:crypto';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import fc from 'fast-check';
import sharp from 'sharp';
import { adminToken, API, call, Deployment, must, userWithRole, type ScenarioResult } from './harness.js';

/**
 * Scenario 5: requests generated from the OpenAPI document with fast-check. Each picks a route
 * and then hostile values for its path, query and body: wrong types, huge and unicode-edge
 * strings, negative and huge numbers, missing and extra fields, ids of another workspace, broken
 * JSON and multipart, polyglot and decompression-bomb-like uploads. Every answer must be below
 * 500 and in the envelope; a refused request must leave the database as it was (SQLite's
 * data_version tells whether anything was committed; the tables say what).
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
  fc.constantFrom('', ' ', '\u0000', '\uFEFF', '\u202E', 'A\u0301', '𝕏'.repeat(100), '😀'.repeat(500), '../../etc/passwd', '%00', '<script>alert(1)</script>', "'; DROP TABLE users; --", '${jndi:ldap://x}', '\\u0000', 'null'),
);
const strings = fc.oneof({ weight: 5, arbitrary: shortStrings }, { weight: 1, arbitrary: fc.constantFrom('x'.repeat(70_000), '字'.repeat(20_000)) });
const numbers = fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2147483648, Number.MAX_SAFE_INTEGER, 1e308, -1e308, 0.5), fc.double());
/** Query values: mostly within the 16 KB header limit, so the query validation is what answers. */
const queryValue = fc.oneof({ weight: 49, arbitrary: fc.oneof(shortStrings, fc.integer(), fc.constantFrom(-1, 0, 2147483648, 1e308, 0.5)) }, { weight: 1, arbitrary: fc.constant('q'.repeat(20_000)) });
const anyValue: fc.Arbitrary<unknown> = fc.oneof(strings, numbers, fc.boolean(), fc.constant(null), fc.array(fc.oneof(strings, numbers), { maxLength: 5 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(strings, numbers), { maxKeys: 4 }));

/** A value of the schema's type, or deliberately not. */
function valueFor(schema: any): fc.Arbitrary<unknown> {
  const valid = (() => {
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
        return fc.array(valueFor(s.items), { maxLength: 4 });
      case 'object':
        return objectFor(s);
      default:
        return fc.string({ maxLength: 40 });
    }
  })();
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: anyValue });
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
  ids: Array<'own' | 'foreign' | 'negative' | 'huge' | 'text'>;
  query: Record<string, unknown>;
  body: { kind: 'json'; value: unknown } | { kind: 'raw'; contentType: string; data: string } | { kind: 'upload'; file: 'png' | 'polyglot' | 'bomb' | 'text' | 'empty'; extra: string } | { kind: 'none' };
  token: 'admin' | 'operator' | 'none';
}

function specFor(ops: Operation[]): fc.Arbitrary<Spec> {
  return fc.constantFrom(...ops).chain((op) =>
    fc.record({
      op: fc.constant(op),
      ids: fc.array(fc.constantFrom<Spec['ids'][number]>('own', 'own', 'foreign', 'negative', 'huge', 'text'), { minLength: 3, maxLength: 3 }),
      query: fc.record(Object.fromEntries([...op.query, 'page', 'page_size', 'extra'].map((q) => [q, queryValue])), { requiredKeys: [] }),
      body:
        op.body?.type === 'multipart'
          ? fc.oneof(
              fc.record({ kind: fc.constant('upload' as const), file: fc.constantFrom('png' as const, 'polyglot' as const, 'bomb' as const, 'text' as const, 'empty' as const), extra: strings }),
              fc.record({ kind: fc.constant('raw' as const), contentType: fc.constantFrom('multipart/form-data; boundary=x', 'multipart/form-data', 'application/json'), data: fc.constantFrom('--x\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\nabc', '{}', '--x--', '') }),
            )
          : fc.oneof(
              { weight: 6, arbitrary: fc.record({ kind: fc.constant('json' as const), value: op.body ? objectFor(op.body.schema) : anyValue }) },
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
      case 'huge':
        return '99999999999999999999';
      default:
        return encodeURIComponent(name === 'key' ? '../../secrets/jwt_secret' : '1 OR 1=1');
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
  // A valid PNG signature and header declaring 60000 × 60000 pixels: decoding it would need ~10 GB.
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(60_000, 0);
  ihdr.writeUInt32BE(60_000, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const bomb = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', Buffer.alloc(1000)), chunk('IEND', Buffer.alloc(0))]);
  return { png, polyglot, bomb };
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function fingerprint(db: Sqlite.Database): Map<string, string> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%'").all() as Array<{ name: string }>;
  const out = new Map<string, string>();
  for (const { name } of tables) {
    const hash = createHash('sha1');
    for (const row of db.prepare(`SELECT * FROM "${name}"`).iterate()) hash.update(JSON.stringify(row));
    out.set(name, hash.digest('hex'));
  }
  return out;
}

export async function fuzzScenario(long: boolean): Promise<ScenarioResult> {
  const runs = long ? 10_000 : 1_500;
  const seed = Number(process.env.PROVE_SEED ?? Date.now() % 2 ** 31);
  const d = await Deployment.create({ env: { RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'warn' } });
  let sqlite: Sqlite.Database | undefined;
  try {
    // API only: no worker writes behind the fuzzer's back, so every commit is a request's.
    const proc = await d.start('api', { LOG_LEVEL: 'info' });
    const base = proc.url!;
    const admin = await adminToken(base);
    const operator = await userWithRole(base, admin, 'fuzz_operator', 'operator');
    const victim = await userWithRole(base, admin, 'fuzz_victim', 'operator');
    await must(base, 'POST', '/api-keys', admin, { provider: 'local', api_key: 'local-fuzz-key' });
    const product = await must(base, 'POST', '/products', admin, { name: '模糊产品', category: 'c', source: 'custom' });
    const task = await must(base, 'POST', '/tasks', admin, { product_id: product.id, theme: '模糊', text_count: 1, image_count: 0, track: 'ai' });
    const bench = await must(base, 'POST', `/products/${product.id}/benchmarks`, admin, { highlights: 'h', link_url: null, screenshot_url: null });
    const word = await must(base, 'POST', '/banned-words', admin, { word: '模糊词', level: 'soft_warn' });
    const other = await must(base, 'POST', '/workspaces', admin, { name: 'Other', slug: 'other' });
    const otherToken = (await must(base, 'POST', '/workspaces/switch', admin, { workspace_id: other.id })).token;
    const otherProduct = await must(base, 'POST', '/products', otherToken, { name: '别家', category: 'c', source: 'custom' });
    const ids: Ids = {
      own: { products: product.id, tasks: task.id, task_id: task.id, benchmarks: bench.id, 'banned-words': word.id, users: victim.id, user_id: victim.id, workspaces: 1 },
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

    sqlite = new Sqlite(path.join(d.dataDir, 'app.sqlite'), { fileMustExist: true, readonly: true });
    const dataVersion = () => sqlite!.pragma('data_version', { simple: true }) as number;
    let snapshot = fingerprint(sqlite);
    let version = dataVersion();

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
      const now = dataVersion();
      if (now !== version) {
        const next = fingerprint(sqlite);
        if (res.status >= 400) {
          const changed = [...next].filter(([t, h]) => snapshot.get(t) !== h && !MAY_CHANGE_ON_REFUSAL.has(t)).map(([t]) => t);
          if (changed.length) problems.push(`${where}: refused but changed ${changed.join(', ')}`);
        }
        snapshot = next;
        version = now;
      } else if (res.status >= 400) refusedUnchanged++;
    }
    const alive = await call(base, 'GET', '/healthz').catch(() => undefined);
    if (alive?.status !== 200) problems.push('the API process did not survive');
    if (proc.service.child.exitCode !== null) problems.push(`the API process exited with ${proc.service.child.exitCode}`);
    // A 500's cause is in the API's log: quote it, so the finding can be fixed.
    if (problems.some((p) => / → 5\d\d/.test(p))) problems.unshift(...d.errorLines().map((l) => `log: ${l.slice(0, 600)}`));
    const byClass = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ');
    return {
      scenario: '5 hostile input (fast-check from the OpenAPI document)',
      load: `${specs.length} requests over ${targets.length} operations, seed ${seed}`,
      faults: '-',
      badInputs: `${specs.length}: ${byClass}`,
      lostData: `${problems.filter((p) => p.includes('refused but changed')).length} refused requests that changed data (${refusedUnchanged} refusals checked)`,
      failures: problems.length,
      notes: [...problems.slice(0, 12), ...(cutOff ? [`${cutOff} requests with URLs over 16 KB and a body were cut off after the 431 (not counted)`] : [])],
    };
  } finally {
    sqlite?.close();
    await d.close();
  }
}
