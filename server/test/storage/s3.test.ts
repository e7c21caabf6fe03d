import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { s3OptionsFromEnv } from '../../src/config.js';
import { S3FileStorage } from '../../src/storage/s3.js';
import { settledDetail } from '../generation/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTask, ok, workspaceWithProduct } from '../tasks/fixtures.js';
import { startLocalS3, type LocalS3 } from './s3rver.js';

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('S3 file storage (against s3rver)', () => {
  let s3: LocalS3;
  let spool: string;
  let store: S3FileStorage;
  beforeAll(async () => {
    s3 = await startLocalS3();
    spool = mkdtempSync(path.join(tmpdir(), 'cps-s3-spool-'));
    store = new S3FileStorage(s3OptionsFromEnv({ ...s3.env, S3_PREFIX: 'deploy-a/' }, spool));
  });
  afterAll(async () => {
    await s3?.close();
    if (spool) rmSync(spool, { recursive: true, force: true });
  });

  it('stores by content hash, reads whole and by range, stats, deletes', async () => {
    const data = randomBytes(10_000);
    const stored = await store.put(data, { contentType: 'image/png', extension: 'png' });
    expect(stored).toEqual({ key: `${createHash('sha256').update(data).digest('hex')}.png`, size: 10_000 });
    expect((await store.put(data, { contentType: 'image/png', extension: 'png' })).key).toBe(stored.key);
    expect((await store.read(stored.key)).equals(data)).toBe(true);
    expect(await store.stat(stored.key)).toEqual({ size: 10_000 });
    const part = await drain(await store.createReadStream(stored.key, { start: 100, end: 199 }));
    expect(part.equals(data.subarray(100, 200))).toBe(true);
    await store.delete(stored.key);
    expect(await store.stat(stored.key)).toBeUndefined();
  });

  it('streams a large upload in without changing a byte', async () => {
    const chunks = Array.from({ length: 40 }, () => randomBytes(128 * 1024));
    const whole = Buffer.concat(chunks);
    const stored = await store.putStream(Readable.from(chunks), { contentType: 'application/zip', extension: 'zip' });
    expect(stored.key).toBe(`${createHash('sha256').update(whole).digest('hex')}.zip`);
    expect(stored.size).toBe(whole.length);
    expect((await drain(await store.createReadStream(stored.key))).equals(whole)).toBe(true);
  });

  it('lists only its own files under its prefix, with write times; deletes only files written before a given time', async () => {
    const mine = await store.put(randomBytes(100), { contentType: 'image/png', extension: 'png' });
    const neighbour = new S3FileStorage(s3OptionsFromEnv({ ...s3.env, S3_PREFIX: 'deploy-b/' }, spool));
    const theirs = await neighbour.put(randomBytes(100), { contentType: 'image/png', extension: 'png' });
    // Something else in the bucket under our prefix: not a file key, never ours to list or touch.
    const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `deploy-a/${mine.key}.bak`, Body: 'x' }));
    const listed = new Map<string, Date>();
    for await (const file of store.list()) listed.set(file.key, file.writtenAt);
    expect(listed.has(mine.key)).toBe(true);
    expect(listed.has(theirs.key)).toBe(false);
    expect([...listed.keys()].every((key) => /^[a-f0-9]{64}\.\w+$/.test(key))).toBe(true);
    expect(Math.abs(listed.get(mine.key)!.getTime() - Date.now())).toBeLessThan(60_000);

    expect(await store.delete(mine.key, { writtenBefore: new Date(Date.now() - 60_000) })).toBe(false);
    expect(await store.stat(mine.key)).toEqual({ size: 100 });
    expect(await store.delete(mine.key, { writtenBefore: new Date(Date.now() + 60_000) })).toBe(true);
    expect(await store.stat(mine.key)).toBeUndefined();
    expect(await store.delete(mine.key, { writtenBefore: new Date(Date.now() + 60_000) })).toBe(false);
    expect(await neighbour.stat(theirs.key)).toEqual({ size: 100 });
    client.destroy();
  });

  it('reports a missing file as ENOENT, like local disk, and refuses keys that are not file keys', async () => {
    const absent = `${'ab'.repeat(32)}.jpg`;
    expect(await store.stat(absent)).toBeUndefined();
    await expect(store.read(absent)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(store.createReadStream(absent)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(store.read('../secrets/jwt_secret')).rejects.toThrow(/invalid file key/);
  });

  it('ping fails for a bucket that does not exist; configuration errors stop the start', async () => {
    await store.ping();
    const other = new S3FileStorage(s3OptionsFromEnv({ ...s3.env, S3_BUCKET: 'no-such-bucket' }, spool));
    await expect(other.ping()).rejects.toBeTruthy();
    // The configuration refuses them as it is read, before anything starts.
    expect(() => loadConfig({ NODE_ENV: 'test', DATA_DIR: spool, STORAGE: 's3' })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig({ NODE_ENV: 'test', DATA_DIR: spool, STORAGE: 'ftp' })).toThrow(/STORAGE/);
    expect(() => s3OptionsFromEnv({ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'only-one' }, spool)).toThrow(/both/);
  });
});

describe('the service with STORAGE=s3', () => {
  let s3: LocalS3;
  let server: TestServer;
  beforeAll(async () => {
    s3 = await startLocalS3('cps-e2e');
    server = await startTestServer({ env: s3.env });
  });
  afterAll(async () => {
    await server?.close();
    await s3?.close();
  });

  it('generates images into the bucket, serves them by signed link, builds and serves a package', async () => {
    const ws = await workspaceWithProduct(server);
    const created = await createTask(server, ws, { text_count: 1, image_count: 2 });
    const taskId = (created.id ?? created.task_id) as number;
    const detail = await settledDetail(server, ws.token, taskId);
    expect(detail.status).toBe('pending_selection');
    expect(detail.image_candidates.length).toBe(2);

    const image = await fetch(`${server.url}${detail.image_candidates[0].url}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toMatch(/^image\//);
    const bytes = Buffer.from(await image.arrayBuffer());
    const row = await server.ctx.db.selectFrom('image_candidates').select('file_key').where('id', '=', detail.image_candidates[0].candidate_id).executeTakeFirstOrThrow();
    // The object is in the bucket (not on local disk) and is the bytes served.
    expect((await server.ctx.storage.read(row.file_key!)).equals(bytes)).toBe(true);
    expect(server.ctx.storage).toBeInstanceOf(S3FileStorage);

    await ok(server, 'POST', `/tasks/${taskId}/text-candidates/select`, ws.token, { candidate_id: detail.text_candidates[0].candidate_id });
    const pkg = await ok(server, 'POST', `/tasks/${taskId}/package`, ws.token, {});
    const ready = await settledPackage(server, ws.token, pkg.delivery_package_id);
    expect(ready.status).toBe('ready');
    const file = `${server.url}/api/v1/delivery-packages/${pkg.delivery_package_id}/download-file`;
    const full = await fetch(file, { headers: { authorization: `Bearer ${ws.token}` } });
    expect(full.status).toBe(200);
    const zip = Buffer.from(await full.arrayBuffer());
    expect(zip.subarray(0, 2).toString()).toBe('PK');
    const tail = await fetch(file, { headers: { authorization: `Bearer ${ws.token}`, range: 'bytes=10-' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(zip.subarray(10))).toBe(true);

    const ready2 = await server.request('GET', '/readyz');
    expect(ready2.body.checks.storage).toBe('ok');
  });
});

async function settledPackage(server: TestServer, token: string, id: number) {
  for (let i = 0; i < 300; i++) {
    const pkg = await ok(server, 'GET', `/delivery-packages/${id}/download`, token);
    if (pkg.status !== 'pending') return pkg;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('package stayed pending');
}
