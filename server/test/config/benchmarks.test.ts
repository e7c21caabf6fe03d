import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configWorld, form, PRODUCT, type ConfigWorld } from './setup.js';
import { pngBomb } from '../helpers/images.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { ANALYSIS_WARNINGS } from '../../src/modules/benchmarks/warnings.js';
import { freshPostgresDatabase, usingPostgres } from '../helpers/server.js';

const FEATURES = {
  title_formula: '数字+痛点+结果',
  opening_hook: '先抛出换季烂脸的痛点',
  body_structure: '痛点-成分-实测-总结',
  selling_point_presentation: '用前后对比图展示保湿效果',
  emotion_tone_emoji: '亲切，适量使用✨',
  target_audience: '干皮女生',
  topic_tags: ['换季护肤', '干皮救星'],
  visual_pacing: '封面大字标题，随后三张细节图',
};

/** A real OpenAI-compatible HTTP server: records every request, answers per `mode`. */
function fakeProvider() {
  const state = { mode: 'good' as 'good' | 'bad' | 'error', requests: [] as any[], reply: FEATURES as unknown };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      state.requests.push({ url: req.url, auth: req.headers.authorization, body });
      if (state.mode === 'error') return res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
      const content = state.mode === 'good' ? JSON.stringify(state.reply) : 'Sure! Here is my analysis: the note is great.';
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 1,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  return { server, state };
}

describe('benchmarks', () => {
  let w: ConfigWorld;
  const fake = fakeProvider();
  const page = { hits: 0, server: createServer((_req, res) => { page.hits++; res.end('<title>INTERNAL-SECRET</title>'); }) };
  let productId: number;
  let pagePort: number;

  beforeAll(async () => {
    await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => page.server.listen(0, '127.0.0.1', r));
    pagePort = (page.server.address() as AddressInfo).port;
    w = await configWorld({
      env: {
        PROVIDER_OPENAI_BASE_URL: `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v1`,
        PROVIDER_MAX_RETRIES: '1',
        PROVIDER_RETRY_BASE_MS: '5',
      },
    });
    const key = await w.server.request('POST', '/api/v1/api-keys', { token: w.operator, body: { provider: 'openai', api_key: 'sk-test-abcd1234' } });
    expect(key.status).toBe(200);
    productId = (await w.server.request('POST', '/api/v1/products', { token: w.operator, body: PRODUCT })).body.data.id;
  });
  afterAll(async () => {
    await w?.server.close();
    fake.server.closeAllConnections();
    await new Promise((r) => fake.server.close(r));
    await new Promise((r) => page.server.close(r));
  });
  beforeEach(() => {
    fake.state.mode = 'good';
    fake.state.reply = FEATURES;
    fake.state.requests = [];
  });
  const api = (method: string, path: string, token: string, body?: unknown) => w.server.request(method, `/api/v1${path}`, { token, body });
  const screenshot = () => sharp({ create: { width: 300, height: 400, channels: 3, background: '#eee' } }).png().toBuffer();
  const uploadBenchmark = async (fields: Record<string, string>, data?: Buffer) =>
    w.server.request('POST', `/api/v1/products/${productId}/benchmarks/upload`, {
      token: w.operator,
      raw: form(fields, { field: 'screenshot', name: 'shot.png', type: 'image/png', data: data ?? (await screenshot()) }),
    });

  it('creates by JSON with http(s) links only, lists paged', async () => {
    const created = await api('POST', `/products/${productId}/benchmarks`, w.operator, { highlights: ' 亮点 ', link_url: 'https://www.xiaohongshu.com/explore/1', screenshot_url: null });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ product_id: productId, highlights: '亮点', link_url: 'https://www.xiaohongshu.com/explore/1', screenshot_url: null, features: null, analyze_status: 'pending', analysis_source: null, analysis_warning: null, analysis_warning_codes: [] });
    for (const bad of ['javascript:alert(1)', 'ftp://example.com/x', 'not a url', 'file:///etc/passwd']) {
      const res = await api('POST', `/products/${productId}/benchmarks`, w.operator, { highlights: 'x', link_url: bad });
      expect(res.status, bad).toBe(400);
      expect(res.body.message).toMatch(/link_url/);
    }
    expect((await api('POST', `/products/${productId}/benchmarks`, w.operator, { screenshot_url: 'data:image/png;base64,AAAA' })).status).toBe(400);
    expect((await api('POST', `/products/${productId}/benchmarks`, w.operator, { highlights: 5 })).status).toBe(400);
    // Nothing to learn from: refused, whitespace included.
    for (const empty of [{}, { highlights: '   ' }, { highlights: '', link_url: null, screenshot_url: null }]) {
      const res = await api('POST', `/products/${productId}/benchmarks`, w.operator, empty);
      expect([res.status, res.body.reason]).toEqual([400, 'benchmark.empty']);
    }
    const list = await api('GET', `/products/${productId}/benchmarks?page_size=1`, w.operator);
    expect(list.body.data).toMatchObject({ total: 1, page: 1, page_size: 1 });
    expect(list.body.data.items[0].id).toBe(created.body.data.id);
  });

  it('upload: checked by bytes (415, a decompression bomb 413), link checked (400); the screenshot is served by a signed link', async () => {
    const fake415 = await uploadBenchmark({ highlights: 'x' }, Buffer.from('GIF89a not really'));
    expect(fake415.status).toBe(415);
    const bomb = await uploadBenchmark({ highlights: 'x' }, pngBomb());
    expect({ status: bomb.status, code: bomb.body.code }).toEqual({ status: 413, code: 41300 });
    expect(bomb.body.message).toMatch(/image dimensions too large/);
    expect((await uploadBenchmark({ link_url: 'javascript:1' })).status).toBe(400);
    expect((await uploadBenchmark({ highlights: '长'.repeat(10_001) })).status).toBe(400);
    // Beyond the multipart field limit the text would arrive cut short: refused, not stored.
    expect((await uploadBenchmark({ highlights: '长'.repeat(30_000) })).status).toBe(413);
    const cjk = await uploadBenchmark({ highlights: '长'.repeat(10_000) });
    expect(cjk.body.data.highlights).toHaveLength(10_000);
    const ok = await uploadBenchmark({ highlights: '干皮必看 #换季护肤', link_url: 'https://example.com/p' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ has_uploaded_screenshot: true, highlights: '干皮必看 #换季护肤', link_url: 'https://example.com/p' });
    const file = await fetch(`${w.server.url}${ok.body.data.screenshot_url}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
  });

  it('analysis with a screenshot calls the vision model with the image and the schema; analysing again replaces', async () => {
    const b = (await uploadBenchmark({ highlights: '换季干皮 #换季护肤' })).body.data;
    const res = await api('POST', `/benchmarks/${b.id}/analyze`, w.operator);
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(0);
    expect(res.body.message).toBe('analysis done');
    expect(res.body.data).toMatchObject({ id: b.id, analyze_status: 'done', analysis_source: 'vision', analysis_warning: null, analysis_warning_codes: [], features: FEATURES });
    expect(fake.state.requests).toHaveLength(1);
    const sent = fake.state.requests[0];
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.auth).toBe('Bearer sk-test-abcd1234');
    expect(sent.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'benchmark_features', strict: true } });
    expect(Object.keys(sent.body.response_format.json_schema.schema.properties)).toHaveLength(8);
    const parts = sent.body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []));
    expect(parts.some((p: any) => p.type === 'image_url' && p.image_url.url.startsWith('data:image/png;base64,'))).toBe(true);
    expect(JSON.stringify(sent.body.messages)).toContain('换季干皮');

    fake.state.reply = { ...FEATURES, target_audience: '学生党' };
    const again = await api('POST', `/benchmarks/${b.id}/analyze`, w.operator);
    expect(again.body.data.features.target_audience).toBe('学生党');
    const list = await api('GET', `/products/${productId}/benchmarks?page_size=100`, w.operator);
    expect(list.body.data.items.filter((i: any) => i.id === b.id)).toHaveLength(1);
  });

  it('without a screenshot the text model is used', async () => {
    const b = (await api('POST', `/products/${productId}/benchmarks`, w.operator, { highlights: '通勤包测评' })).body.data;
    const res = await api('POST', `/benchmarks/${b.id}/analyze`, w.operator);
    expect(res.body.data).toMatchObject({ analyze_status: 'done', analysis_source: 'text', features: FEATURES });
    expect(JSON.stringify(fake.state.requests[0].body.messages)).not.toContain('image_url');
  });

  it('bad JSON from the model: retried once, then the fallback from the highlights', async () => {
    fake.state.mode = 'bad';
    const b = (await uploadBenchmark({ highlights: '3天见效！干皮女生必看✨\n实测保湿48小时 #换季护肤 #干皮' })).body.data;
    const res = await api('POST', `/benchmarks/${b.id}/analyze`, w.operator);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('fallback analysis written');
    expect(res.body.data).toMatchObject({ analyze_status: 'done', analysis_source: 'fallback' });
    expect(res.body.data).toMatchObject({ analysis_warning_codes: ['provider_invalid_output', 'fallback_used'], analysis_warning: 'AI 服务的回复不符合分析格式；已根据人工亮点生成备用分析' });
    expect(fake.state.requests).toHaveLength(2);
    const f = res.body.data.features;
    expect(f.topic_tags).toEqual(['换季护肤', '干皮']);
    expect(f.target_audience).toContain('干皮');
    expect(f.opening_hook).toBe('3天见效');
    expect(Object.keys(f).sort()).toEqual(Object.keys(FEATURES).sort());
  });

  it('provider 500s: fallback with a warning; no screenshot and no highlights: failed', async () => {
    fake.state.mode = 'error';
    const b = (await api('POST', `/products/${productId}/benchmarks`, w.operator, { highlights: '只有亮点' })).body.data;
    const res = await api('POST', `/benchmarks/${b.id}/analyze`, w.operator);
    expect(res.body.data).toMatchObject({ analyze_status: 'done', analysis_source: 'fallback' });
    expect(res.body.data).toMatchObject({ analysis_warning_codes: ['provider_down', 'fallback_used'], analysis_warning: 'AI 服务暂时不可用；已根据人工亮点生成备用分析' });
    expect(fake.state.requests.length).toBeGreaterThanOrEqual(2);

    fake.state.mode = 'good';
    fake.state.requests = [];
    const empty = (await api('POST', `/products/${productId}/benchmarks`, w.operator, { link_url: `http://127.0.0.1:${pagePort}/internal` })).body.data;
    const failed = await api('POST', `/benchmarks/${empty.id}/analyze`, w.operator);
    expect(failed.body.message).toBe('analysis failed');
    expect(failed.body.data).toMatchObject({ analyze_status: 'failed', analysis_source: null, features: null });
    expect(failed.body.data).toMatchObject({
      analysis_warning_codes: ['link_blocked_address', 'nothing_to_analyse', 'no_fallback_material'],
      analysis_warning: '链接指向内网或保留地址，未访问；没有可分析的截图、亮点或页面内容；没有截图也没有亮点，无法生成备用分析',
    });
    expect(fake.state.requests).toHaveLength(0);
    expect(page.hits).toBe(0);
  });

  it('a link to a private address is never fetched; the analysis goes on without it', async () => {
    const b = (await api('POST', `/products/${productId}/benchmarks`, w.operator, { highlights: '亮点', link_url: `http://127.0.0.1:${pagePort}/admin` })).body.data;
    const res = await api('POST', `/benchmarks/${b.id}/analyze`, w.operator);
    expect(res.body.data).toMatchObject({ analyze_status: 'done', analysis_source: 'text' });
    expect(res.body.data).toMatchObject({ analysis_warning_codes: ['link_blocked_address'], analysis_warning: '链接指向内网或保留地址，未访问' });
    expect(page.hits).toBe(0);
    expect(JSON.stringify(fake.state.requests)).not.toContain('INTERNAL-SECRET');
  });

  it('network failures are worded as a fixed set of reasons, never the resolver or socket message (issue 17, finding 5)', async () => {
    const cases: Array<[Record<string, string>, string[]]> = [
      [{ link_url: 'http://no-such-host.invalid/note' }, ['link_unreachable']],
      [{ link_url: `http://[::127.0.0.1]:${pagePort}/admin` }, ['link_blocked_address']],
      [{ link_url: `http://localhost:${pagePort}/admin` }, ['link_blocked_address']],
      [{ screenshot_url: 'http://no-such-host.invalid/shot.png' }, ['screenshot_unreachable']],
      [{ screenshot_url: `http://127.0.0.1:${pagePort}/shot.png` }, ['screenshot_blocked_address']],
    ];
    for (const [fields, codes] of cases) {
      const b = (await api('POST', `/products/${productId}/benchmarks`, w.operator, { highlights: '亮点', ...fields })).body.data;
      const res = await api('POST', `/benchmarks/${b.id}/analyze`, w.operator);
      expect(res.body.data.analysis_warning_codes, JSON.stringify(fields)).toEqual(codes);
      // Chinese reasons only: no host, address, port, errno or English error text.
      expect(res.body.data.analysis_warning).not.toMatch(/[A-Za-z]|\d/);
    }
    expect(page.hits).toBe(0);
  });

  it('an analysis in progress makes a second one 409; a run left behind by a dead process is taken over after 5 minutes', async () => {
    const b = (await api('POST', `/products/${productId}/benchmarks`, w.operator, { highlights: '进行中' })).body.data;
    await w.server.ctx.db.updateTable('benchmarks').set({ analyze_status: 'analyzing', updated_at: w.server.clock.now().toISOString() }).where('id', '=', b.id).execute();
    const busy = await api('POST', `/benchmarks/${b.id}/analyze`, w.operator);
    expect(busy.status).toBe(409);
    expect(fake.state.requests).toHaveLength(0);
    w.server.clock.advance(6 * 60_000);
    const taken = await api('POST', `/benchmarks/${b.id}/analyze`, w.operator);
    expect(taken.body.data).toMatchObject({ analyze_status: 'done', analysis_source: 'text' });
  });

  it('a workspace without an API key gets 422 / 42201', async () => {
    const p = (await api('POST', '/products', w.otherAdmin, PRODUCT)).body.data;
    const b = (await api('POST', `/products/${p.id}/benchmarks`, w.otherAdmin, { highlights: 'x' })).body.data;
    const res = await api('POST', `/benchmarks/${b.id}/analyze`, w.otherAdmin);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe(42201);
    expect((await api('GET', `/benchmarks/${b.id}`, w.otherAdmin)).body.data.analyze_status).toBe('pending');
  });

  it('CSV export: BOM, header, quotes, commas and newlines escaped, formulas defused, workspace-scoped', async () => {
    const p = (await api('POST', '/products', w.operator, { ...PRODUCT, name: '导出, "测试"' })).body.data;
    await api('POST', `/products/${p.id}/benchmarks`, w.operator, { highlights: '第一行 "引号"\n第二行, 逗号' });
    await api('POST', `/products/${p.id}/benchmarks`, w.operator, { highlights: '=HYPERLINK("http://evil")' });
    const res = await fetch(`${w.server.url}/api/v1/benchmarks/export.csv?product_id=${p.id}`, { headers: { authorization: `Bearer ${w.operator}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="benchmarks-.*\.csv"$/);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8').slice(1);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('id,product_id,product_name,highlights,link_url,screenshot_url,analyze_status,analysis_source,analysis_warning,title_formula,opening_hook,body_structure,selling_point_presentation,emotion_tone_emoji,target_audience,topic_tags,visual_pacing,created_at');
    expect(text).toContain('"导出, ""测试"""');
    expect(text).toContain('"第一行 ""引号""\n第二行, 逗号"');
    expect(text).toContain(`"'=HYPERLINK(""http://evil"")"`);
    // Records end with CRLF; the bare LF inside the quoted cell does not end one.
    expect(lines.filter((l) => l.length > 0)).toHaveLength(3);

    const all = await fetch(`${w.server.url}/api/v1/benchmarks/export.csv`, { headers: { authorization: `Bearer ${w.otherAdmin}` } });
    expect((await all.text()).includes('导出')).toBe(false);
    expect((await api('GET', `/benchmarks/export.csv?product_id=${p.id}`, w.otherAdmin)).status).toBe(404);
  });

  it('every benchmark id route of another workspace is a 404', async () => {
    const b = (await api('POST', `/products/${productId}/benchmarks`, w.operator, { highlights: 'mine' })).body.data;
    for (const [method, path] of [
      ['GET', `/benchmarks/${b.id}`],
      ['POST', `/benchmarks/${b.id}/analyze`],
      ['DELETE', `/benchmarks/${b.id}`],
    ]) {
      const res = await api(method!, path!, w.otherAdmin);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const upload = await w.server.request('POST', `/api/v1/products/${productId}/benchmarks/upload`, {
      token: w.otherAdmin,
      raw: form({}, { field: 'screenshot', name: 's.png', type: 'image/png', data: await screenshot() }),
    });
    expect(upload.status).toBe(404);
    expect((await api('DELETE', `/benchmarks/${b.id}`, w.operator)).status).toBe(200);
    expect((await api('GET', `/benchmarks/${b.id}`, w.operator)).status).toBe(404);
  });
});

describe('analysis warnings in the console', () => {
  it('every reason has its words in both interface languages, the Chinese ones exactly as stored', async () => {
    // The web client's resources, read as data (a path the server's compiler does not follow).
    const resource = (name: string) => new URL(`../../../web/src/i18n/${name}.ts`, import.meta.url).href;
    const { zhCN } = await import(resource('zh-CN'));
    const { en } = await import(resource('en'));
    expect(zhCN.benchmarks.warnings).toEqual(ANALYSIS_WARNINGS);
    expect(Object.keys(en.benchmarks.warnings).sort()).toEqual(Object.keys(ANALYSIS_WARNINGS).sort());
  });
});

describe('migration 20261124_0110_analysis_warning_codes', () => {
  it('hides the free-text warnings stored before (they could name internal hosts and ports), and goes back down', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-migrate-'));
    const pgDb = usingPostgres ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
    const database = openDatabase({ databaseUrl: pgDb?.url, dataDir });
    try {
      const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('20261123_0200_task_list_versions')).error).toBeUndefined();
      const now = new Date().toISOString();
      const db = database.db as Kysely<any>;
      const ws = await db.insertInto('workspaces').values({ name: 'W', slug: 'w', created_at: now }).returning('id').executeTakeFirstOrThrow();
      const product = await db
        .insertInto('products')
        .values({ workspace_id: ws.id, name: 'p', category: 'c', source: 'custom', selling_points: '[]', text_angles: '[]', banned_word_ids: '[]', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const row = { workspace_id: ws.id, product_id: product.id, highlights: 'h', analyze_status: 'done', created_at: now, updated_at: now };
      await db.insertInto('benchmarks').values([
        { ...row, analysis_warning: 'screenshot_url not fetched: connect EHOSTUNREACH 10.0.0.7:8080' },
        { ...row, analysis_warning: null },
      ]).execute();
      expect((await migrator.migrateTo('20261124_0110_analysis_warning_codes')).error).toBeUndefined();
      const rows = await database.db.selectFrom('benchmarks').select(['analysis_warning', 'analysis_warning_codes']).orderBy('id').execute();
      expect(rows).toEqual([
        { analysis_warning: ANALYSIS_WARNINGS.earlier_analysis, analysis_warning_codes: ['earlier_analysis'] },
        { analysis_warning: null, analysis_warning_codes: null },
      ]);
      expect((await migrator.migrateTo('20261123_0200_task_list_versions')).error).toBeUndefined();
      expect((await migrator.migrateTo('20261124_0110_analysis_warning_codes')).error).toBeUndefined();
    } finally {
      await database.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

