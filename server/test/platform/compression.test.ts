import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageBytes, seedImage, seedProduct, seedTask, seedText, settledPackage, workspaceOf } from '../delivery/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** One GET over plain node:http: the bytes exactly as sent, no client-side decoding. */
function rawGet(url: string, headers: Record<string, string> = {}, opts: { firstChunkOnly?: boolean } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        if (opts.firstChunkOnly) {
          req.destroy();
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (err) => (opts.firstChunkOnly ? undefined : reject(err)));
  });
}

const decode = (encoding: string | undefined, body: Buffer) =>
  encoding === 'br' ? brotliDecompressSync(body) : encoding === 'gzip' ? gunzipSync(body) : body;

/**
 * What a browser's first visit moves: precompressed assets by Accept-Encoding with year-long
 * immutable caching for hashed files, index.html revalidated, JSON compressed above 1 KB, and
 * nothing compressed that must not be (event streams, zips, images, small replies).
 */
describe('compression and caching over HTTP', () => {
  let server: TestServer;
  let webDir: string;
  const script = `console.log(${JSON.stringify('小红书笔记 '.repeat(2000))});\n`;
  const ASSET = '/assets/index-B4x9Qe1z.js';

  beforeAll(async () => {
    webDir = mkdtempSync(path.join(tmpdir(), 'cps-web-'));
    mkdirSync(path.join(webDir, 'assets'));
    writeFileSync(path.join(webDir, 'index.html'), `<!doctype html><html><body><div id="root">CPS-COMPRESSION</div><script src="${ASSET}"></script></body></html>`);
    // As the web build lays them out: the file and its .br / .gz siblings.
    const file = path.join(webDir, ASSET);
    writeFileSync(file, script);
    writeFileSync(`${file}.br`, brotliCompressSync(script));
    writeFileSync(`${file}.gz`, gzipSync(script, { level: 9 }));
    server = await startTestServer({ env: { WEB_DIST_DIR: webDir } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(webDir, { recursive: true, force: true });
  });

  it('sends a hashed asset precompressed in the encoding asked for, identity when none is, cached as immutable', async () => {
    for (const [accept, expected] of [
      ['br', 'br'],
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['', undefined],
      ['identity', undefined],
    ] as const) {
      const res = await rawGet(`${server.url}${ASSET}`, accept ? { 'accept-encoding': accept } : {});
      expect(res.status, accept).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(expected);
      expect(res.headers['content-type'], accept).toMatch(/javascript/);
      expect(res.headers['cache-control'], accept).toBe('public, max-age=31536000, immutable');
      expect(res.headers.vary ?? '', accept).toMatch(/accept-encoding/i);
      const body = decode(expected, res.body);
      expect(body.toString('utf8'), accept).toBe(script);
      if (expected) expect(res.body.length, accept).toBeLessThan(Buffer.byteLength(script) / 10);
    }
  });

  it('serves index.html, for / and client routes alike, to be revalidated on every load', async () => {
    for (const p of ['/', '/index.html', '/login', '/tasks/12']) {
      const res = await rawGet(`${server.url}${p}`, { 'accept-encoding': 'gzip, br' });
      expect(res.status, p).toBe(200);
      expect(res.headers['cache-control'], p).toBe('no-cache');
      expect(decode(res.headers['content-encoding'], res.body).toString('utf8'), p).toContain('CPS-COMPRESSION');
    }
  });

  it('compresses JSON above 1 KB as negotiated, and leaves small replies and unasking clients alone', async () => {
    const big = `${server.url}/api/v1/openapi.json`;
    const plain = await rawGet(big);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const document = JSON.parse(plain.body.toString('utf8'));
    for (const [accept, expected] of [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0, gzip', 'gzip'],
    ] as const) {
      const res = await rawGet(big, { 'accept-encoding': accept });
      expect(res.headers['content-encoding'], accept).toBe(expected);
      expect(res.headers['content-type'], accept).toMatch(/^application\/json/);
      expect(res.headers.vary ?? '', accept).toMatch(/accept-encoding/i);
      expect(JSON.parse(decode(expected, res.body).toString('utf8')), accept).toEqual(document);
      expect(res.body.length, accept).toBeLessThan(plain.body.length / 3);
    }
    // An error envelope is well under the threshold.
    const small = await rawGet(`${server.url}/api/v1/tasks`, { 'accept-encoding': 'gzip, br' });
    expect(small.status).toBe(401);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString('utf8')).code).toBe(40100);
  });

  /** `count` tasks of a new product in the admin's workspace. */
  async function seedTasks(productName: string, count: number, status: 'pending' | 'approved') {
    const token = await server.adminToken();
    const workspaceId = await workspaceOf(server, token);
    const productId = await seedProduct(server, workspaceId, productName);
    const me = await server.request('GET', '/api/v1/auth/me', { token });
    const taskIds: number[] = [];
    for (let i = 0; i < count; i++) taskIds.push(await seedTask(server, { workspaceId, productId, operatorId: me.body.data.id, status, theme: `主题 ${i}` }));
    return { token, workspaceId, taskIds };
  }

  it('compresses an authenticated list page, and the same page from the page cache', async () => {
    const { token } = await seedTasks('压缩测试产品', 12, 'pending');
    const url = `${server.url}/api/v1/tasks?page_size=20`;
    const plain = await rawGet(url, { authorization: `Bearer ${token}` });
    expect(plain.status).toBe(200);
    for (let round = 0; round < 2; round++) {
      const res = await rawGet(url, { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' });
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(res.body).equals(plain.body)).toBe(true);
    }
  });

  it('never compresses an event stream', async () => {
    const { token, taskIds } = await seedTasks('事件流产品', 1, 'approved');
    const taskId = taskIds[0]!;
    const ticket = await server.request('POST', `/api/v1/tasks/${taskId}/sse-ticket`, { token });
    expect(ticket.status).toBe(200);
    const res = await rawGet(`${server.url}/api/v1/tasks/${taskId}/stream?ticket=${ticket.body.data.ticket}`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.toString('utf8')).toMatch(/^(:|id:|event:|retry:)/m);
  });

  it('sends zips and images as they are, with their exact length', async () => {
    const { token, workspaceId, taskIds } = await seedTasks('打包压缩产品', 1, 'approved');
    const taskId = taskIds[0]!;
    await seedText(server, { id: taskId, workspaceId }, { strategy: 'A', total: 90, title: '标题', selected: true });
    const image = await seedImage(server, { id: taskId, workspaceId }, { strategy: 'A', seq: 1, selected: true, data: await imageBytes({ color: '#88aa00', width: 600, height: 800 }) });
    const created = await server.request('POST', `/api/v1/tasks/${taskId}/package`, { token });
    expect(created.status, created.text).toBe(200);
    const pkg = await settledPackage(server, token, created.body.data.delivery_package_id);
    expect(pkg.status).toBe('ready');
    const dl = await server.request('POST', `/api/v1/delivery-packages/${pkg.id}/download-token`, { token });
    const zip = await rawGet(`${server.url}${pkg.download_url}?token=${dl.body.data.token}`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(zip.status).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.headers['content-encoding']).toBeUndefined();
    expect(Number(zip.headers['content-length'])).toBe(zip.body.length);
    expect(zip.body.length).toBe(pkg.size_bytes);

    const detail = await server.request('GET', `/api/v1/tasks/${taskId}`, { token });
    expect(detail.status, detail.text).toBe(200);
    const imageUrl = detail.body.data.image_candidates.find((c: any) => c.candidate_id === image.id).url as string;
    const img = await rawGet(`${server.url}${imageUrl}`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(img.status).toBe(200);
    expect(img.headers['content-type']).toBe('image/jpeg');
    expect(img.headers['content-encoding']).toBeUndefined();
    expect(Number(img.headers['content-length'])).toBe(img.body.length);
  });
});
