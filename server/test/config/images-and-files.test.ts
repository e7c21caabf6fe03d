import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pickProductImages } from '../../src/content/pick-image.js';

const pickProductImage = (images: Parameters<typeof pickProductImages>[0], role: Parameters<typeof pickProductImages>[1]) => pickProductImages(images, role, 1)[0] ?? null;
import { LocalFileStorage } from '../../src/storage/local.js';
import { pngBomb } from '../helpers/images.js';
import { configWorld, form, PRODUCT, type ConfigWorld } from './setup.js';

const png = (w = 40, h = 30, color = '#c33') => sharp({ create: { width: w, height: h, channels: 3, background: color } }).png().toBuffer();

describe('local file storage', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'cps-store-'));
  const store = new LocalFileStorage(root);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('content-addressed keys, identical content shares a key, streams too, no temp files left', async () => {
    const a = await store.put(Buffer.from('hello'), { contentType: 'text/plain', extension: 'txt' });
    expect(a.key).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824.txt');
    expect((await store.put(Buffer.from('hello'), { contentType: 'text/plain', extension: 'txt' })).key).toBe(a.key);
    const s = await store.putStream(Readable.from([Buffer.from('hel'), Buffer.from('lo')]), { contentType: 'text/plain', extension: 'txt' });
    expect(s).toEqual({ key: a.key, size: 5 });
    expect((await store.read(a.key)).toString()).toBe('hello');
    expect(await store.stat(a.key)).toEqual({ size: 5 });
    expect(readdirSync(path.join(root, 'tmp'))).toEqual([]);
    await store.delete(a.key);
    expect(await store.stat(a.key)).toBeUndefined();
  });

  it('lists its files with their write times, nothing else; deletes only files written before a given time', async () => {
    const old = await store.put(Buffer.from('old bytes'), { contentType: 'text/plain', extension: 'txt' });
    const young = await store.put(Buffer.from('young bytes'), { contentType: 'text/plain', extension: 'txt' });
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(path.join(root, old.key.slice(0, 2), old.key), past, past);
    // Left by a crash mid-write, or not ours at all: never listed.
    writeFileSync(path.join(root, 'tmp', 'crashed.part'), 'x');
    writeFileSync(path.join(root, old.key.slice(0, 2), 'notes.txt'), 'x');
    const listed = new Map<string, Date>();
    for await (const file of store.list()) listed.set(file.key, file.writtenAt);
    expect([...listed.keys()].sort()).toEqual([old.key, young.key].sort());
    expect(listed.get(old.key)!.getTime()).toBe(past.getTime());

    const cutoff = new Date(Date.now() - 60_000);
    expect(await store.delete(young.key, { writtenBefore: cutoff })).toBe(false);
    expect(await store.stat(young.key)).toEqual({ size: 11 });
    // Written again (a re-upload of the same bytes): young again, so it stays.
    await store.put(Buffer.from('old bytes'), { contentType: 'text/plain', extension: 'txt' });
    expect(await store.delete(old.key, { writtenBefore: cutoff })).toBe(false);
    utimesSync(path.join(root, old.key.slice(0, 2), old.key), past, past);
    expect(await store.delete(old.key, { writtenBefore: cutoff })).toBe(true);
    expect(await store.stat(old.key)).toBeUndefined();
    expect(await store.delete(old.key, { writtenBefore: cutoff })).toBe(false);
    expect(readdirSync(path.join(root, 'tmp'))).toEqual(['crashed.part']);
  });

  it('refuses keys that are not <sha256>.<ext>: no way out of the root', async () => {
    for (const key of ['../../etc/passwd', `${'a'.repeat(64)}.png/../../x`, 'a'.repeat(64), `${'A'.repeat(64)}.png`, `${'a'.repeat(64)}.exe`]) {
      await expect(store.read(key)).rejects.toThrow(/invalid file key/);
      await expect(store.delete(key)).rejects.toThrow(/invalid file key/);
    }
  });
});

describe('pickProductImages', () => {
  const images = [
    { id: 1, scene: '白底正面', is_primary: false },
    { id: 2, scene: 'Lifestyle, on the desk', is_primary: true },
    { id: 3, scene: '成分细节特写', is_primary: false },
    { id: 4, scene: '使用前后对比', is_primary: false },
    { id: 5, scene: 'gift box packaging', is_primary: false },
  ];
  it('matches scenes to roles in Chinese and English, falls back to the primary', () => {
    expect(pickProductImage(images, 'quality')?.id).toBe(3);
    expect(pickProductImage(images, 'proof')?.id).toBe(4);
    expect(pickProductImage(images, 'main')?.id).toBe(1);
    expect(pickProductImage(images, 'hook')?.id).toBe(2);
    expect(pickProductImage(images, 'credit')?.id).toBe(5);
    // 使用前 (before use) is the pain keyword; a before/after shot also shows the "before".
    expect(pickProductImage(images, 'pain')?.id).toBe(4);
    expect(pickProductImage(images.slice(0, 3), 'pain')?.id).toBe(2);
    expect(pickProductImage([{ id: 9, scene: 'sunset settings', is_primary: true }, { id: 8, scene: 'x', is_primary: false }], 'convert')?.id).toBe(9);
    expect(pickProductImage([], 'main')).toBeNull();
  });

  it('gives a model that takes several the role\'s best first, then the rest by preference, never more than asked', () => {
    expect(pickProductImages(images, 'quality', 3).map((i) => i.id)).toEqual([3, 2, 1]);
    expect(pickProductImages(images, 'proof', 9).map((i) => i.id)).toEqual([4, 2, 1, 3, 5]);
    expect(pickProductImages(images, 'main', 0)).toEqual([]);
  });
});

describe('product images and signed file links', () => {
  let w: ConfigWorld;
  let productId: number;
  beforeAll(async () => {
    w = await configWorld();
    productId = (await w.server.request('POST', '/api/v1/products', { token: w.operator, body: PRODUCT })).body.data.id;
  });
  afterAll(async () => w?.server.close());
  const api = (method: string, path: string, token: string, body?: unknown) => w.server.request(method, `/api/v1${path}`, { token, body });
  const upload = (token: string, file: Buffer, name: string, scene = '', id = productId) =>
    w.server.request('POST', `/api/v1/products/${id}/images`, { token, raw: form({ scene }, { field: 'image', name, type: 'image/png', data: file }) });

  it('a text file renamed .png is 415; 10 MB + 1 byte and a decompression bomb are 413; no file is 400', async () => {
    const fake = await upload(w.operator, Buffer.from('just some text, not an image at all'), 'photo.png');
    expect(fake.status).toBe(415);
    expect(fake.body.code).toBe(41500);
    // A PNG signature in front of garbage passes the magic check but not the decode.
    const garbage = Buffer.concat([(await png()).subarray(0, 8), Buffer.alloc(500, 7)]);
    expect((await upload(w.operator, garbage, 'x.png')).status).toBe(415);
    const big = Buffer.concat([await png(), Buffer.alloc(10 * 1024 * 1024 + 1 - (await png()).length)]);
    expect(big.length).toBe(10 * 1024 * 1024 + 1);
    const tooBig = await upload(w.operator, big, 'big.png');
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe(41300);
    const none = await w.server.request('POST', `/api/v1/products/${productId}/images`, { token: w.operator, raw: form({ scene: 'x' }) });
    expect(none.status).toBe(400);
    // A decompression bomb is an image, only too large: 413 saying so, not "not an image".
    const bomb = await upload(w.operator, pngBomb(), 'bomb.png');
    expect({ status: bomb.status, code: bomb.body.code }).toEqual({ status: 413, code: 41300 });
    expect(bomb.body.message).toMatch(/^image dimensions too large: 60000×60000 pixels/);
    const json = await api('POST', `/products/${productId}/images`, w.operator, { image: 'x' });
    expect(json.status).toBe(415);
    expect((await api('GET', `/products/${productId}/images`, w.operator)).body.data.items).toEqual([]);
  });

  it('a real WebP is accepted; first upload is primary; re-encoded without EXIF; thumbnail', async () => {
    const webp = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#3a6' } })
      .webp()
      .withExif({ IFD0: { Copyright: 'secret-owner', ImageDescription: 'GPS 31.2304,121.4737' } })
      .toBuffer();
    expect((await sharp(webp).metadata()).exif).toBeDefined();
    const res = await upload(w.operator, webp, 'look.jpg', '细节特写');
    expect(res.status).toBe(200);
    const img = res.body.data;
    expect(img).toMatchObject({ product_id: productId, scene: '细节特写', is_primary: true, mime: 'image/webp', width: 600, height: 800 });

    // The signed link works without any bearer header.
    const file = await fetch(`${w.server.url}${img.url}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/webp');
    const stored = Buffer.from(await file.arrayBuffer());
    const meta = await sharp(stored).metadata();
    expect(meta.format).toBe('webp');
    expect(meta.exif).toBeUndefined();
    expect(stored.includes(Buffer.from('secret-owner'))).toBe(false);
    const thumb = await sharp(Buffer.from(await (await fetch(`${w.server.url}${img.thumb_url}`)).arrayBuffer())).metadata();
    expect(Math.max(thumb.width!, thumb.height!)).toBe(320);
  });

  it('scene change, set primary, delete primary promotes the oldest other; exactly one primary', async () => {
    const second = (await upload(w.operator, await png(50, 50, '#00f'), 'b.png', '包装')).body.data;
    const third = (await upload(w.operator, await png(60, 50, '#0f0'), 'c.png', '')).body.data;
    expect(second.is_primary).toBe(false);
    const scene = await api('PATCH', `/products/${productId}/images/${third.id}`, w.operator, { scene: '使用前后对比' });
    expect(scene.body.data.scene).toBe('使用前后对比');
    const primary = await api('POST', `/products/${productId}/images/${third.id}/primary`, w.operator);
    expect(primary.body.data.is_primary).toBe(true);
    let items = (await api('GET', `/products/${productId}/images`, w.operator)).body.data.items;
    expect(items.filter((i: any) => i.is_primary).map((i: any) => i.id)).toEqual([third.id]);
    expect((await api('DELETE', `/products/${productId}/images/${third.id}`, w.operator)).status).toBe(200);
    items = (await api('GET', `/products/${productId}/images`, w.operator)).body.data.items;
    expect(items.map((i: any) => [i.id, i.is_primary])).toEqual([
      [items[0].id, true],
      [second.id, false],
    ]);
  });

  it('a deleted image’s file is left for the unused-file sweep (test/storage/unused-files.test.ts)', async () => {
    const img = (await upload(w.operator, await png(70, 70, '#abc'), 'a.png', 'x')).body.data;
    await api('DELETE', `/products/${productId}/images/${img.id}`, w.operator);
    expect((await fetch(`${w.server.url}${img.url}`)).status).toBe(200);
  });

  it('tampered, expired or missing signatures are 403; unknown keys 404; no bearer needed or used', async () => {
    const img = (await upload(w.operator, await png(30, 30, '#111'), 'z.png', 'z')).body.data;
    const url = new URL(img.url, w.server.url);
    const key = url.pathname.split('/').pop()!;
    const exp = Number(url.searchParams.get('exp'));
    const sig = url.searchParams.get('sig')!;
    const link = (k: string, e: number | string, s: string) => fetch(`${w.server.url}/api/v1/files/${k}?exp=${e}&sig=${s}`);
    expect((await link(key, exp, sig)).status).toBe(200);
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    const tampered = await link(key, exp, flipped);
    expect(tampered.status).toBe(403);
    expect(((await tampered.json()) as any).code).toBe(40300);
    expect((await link(key, exp + 3600, sig)).status).toBe(403);
    const otherKey = `${'0'.repeat(64)}.png`;
    expect((await link(otherKey, exp, sig)).status).toBe(403);
    expect((await link('..%2F..%2Fsecrets%2Fjwt_secret', exp, sig)).status).toBe(404);
    expect((await fetch(`${w.server.url}/api/v1/files/${key}`)).status).toBe(400);
    // A bearer token does not replace the signature.
    const withBearer = await fetch(`${w.server.url}/api/v1/files/${key}?exp=${exp}&sig=${flipped}`, { headers: { authorization: `Bearer ${w.operator}` } });
    expect(withBearer.status).toBe(403);

    w.server.clock.advance(3 * 3600 * 1000);
    const expired = await link(key, exp, sig);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as any).message).toMatch(/expired/);
    // A fresh link (the API re-signs on every read) works again.
    const fresh = (await api('GET', `/products/${productId}/images`, w.operator)).body.data.items.find((i: any) => i.id === img.id);
    expect((await fetch(`${w.server.url}${fresh.url}`)).status).toBe(200);
    expect(fresh.url).not.toContain(w.operator);
  });

  it('roles and workspaces: every image route of another workspace is a 404', async () => {
    const img = (await upload(w.operator, await png(20, 20, '#999'), 'r.png', 'r')).body.data;
    const o = w.otherAdmin;
    expect((await upload(o, await png(), 'x.png')).status).toBe(404);
    expect((await api('GET', `/products/${productId}/images`, o)).status).toBe(404);
    expect((await api('PATCH', `/products/${productId}/images/${img.id}`, o, { scene: 'x' })).status).toBe(404);
    expect((await api('POST', `/products/${productId}/images/${img.id}/primary`, o)).status).toBe(404);
    expect((await api('DELETE', `/products/${productId}/images/${img.id}`, o)).status).toBe(404);
    // An image id under the wrong product of the same workspace is a 404 too.
    const other = (await api('POST', '/products', w.operator, PRODUCT)).body.data.id;
    expect((await api('PATCH', `/products/${other}/images/${img.id}`, w.operator, { scene: 'x' })).status).toBe(404);
    expect((await api('GET', `/products/${productId}/images`, w.operator)).body.data.items.some((i: any) => i.id === img.id)).toBe(true);
  });
});
