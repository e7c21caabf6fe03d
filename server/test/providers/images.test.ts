import { existsSync, readdirSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { drawableText, FONT_FAMILY, renderSvg, wrapText } from '../../src/images/fonts.js';
import { InvalidImageError, normalizeImage } from '../../src/images/normalize.js';
import { overlayText } from '../../src/images/overlay.js';
import { probeImage } from '../../src/images/probe.js';
import { compositeRows } from '../../src/images/raw.js';
import { closeImageThreads, normalizeImageInThread, overlayTextInThread, releaseImage } from '../../src/images/threads.js';

const photo = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#d98c5f' } }).composite([
    { input: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="#264653"/></svg>`) },
  ]);

describe('normalizeImage', () => {
  it('strips EXIF, XMP and the ICC profile and yields exactly 1080×1440', async () => {
    const tagged = await photo(1600, 1200)
      .withExif({ IFD0: { Make: 'SecretCam', Copyright: 'someone' }, IFD2: { UserComment: 'gps here' } })
      .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:c2pa="http://c2pa.org/" c2pa:claim="ai-generated"/></rdf:RDF></x:xmpmeta>')
      .withIccProfile('p3')
      .jpeg()
      .toBuffer();
    const before = await sharp(tagged).metadata();
    expect(before.exif).toBeDefined();
    expect(before.xmp).toBeDefined();
    expect(before.icc).toBeDefined();
    expect(tagged.includes(Buffer.from('SecretCam'))).toBe(true);

    const out = await normalizeImage(tagged);
    const after = await sharp(out.data).metadata();
    expect([after.format, after.width, after.height]).toEqual(['jpeg', 1080, 1440]);
    expect([out.width, out.height, out.mime]).toEqual([1080, 1440, 'image/jpeg']);
    expect(after.exif).toBeUndefined();
    expect(after.xmp).toBeUndefined();
    expect(after.icc).toBeUndefined();
    expect(out.data.includes(Buffer.from('SecretCam'))).toBe(false);
    expect(out.data.includes(Buffer.from('c2pa'))).toBe(false);
  });

  it('applies the EXIF orientation before cropping, then drops it', async () => {
    // Stored landscape with orientation 6 (rotate 90°): upright it is portrait.
    const sideways = await photo(1440, 1080).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const out = await normalizeImage(sideways, { width: 300, height: 400, format: 'png' });
    const meta = await sharp(out.data).metadata();
    expect([meta.format, meta.width, meta.height, meta.orientation]).toEqual(['png', 300, 400, undefined]);
  });

  it('crops any aspect ratio to 3:4', async () => {
    for (const [w, h] of [
      [1024, 1536],
      [2000, 500],
      [300, 300],
    ] as const) {
      const out = await normalizeImage(await photo(w, h).webp().toBuffer());
      const meta = await sharp(out.data).metadata();
      expect([meta.width, meta.height]).toEqual([1080, 1440]);
    }
  });
});

describe('probeImage', () => {
  it('accepts real JPEG, PNG and WebP by their bytes', async () => {
    for (const format of ['jpeg', 'png', 'webp'] as const) {
      const probed = await probeImage(await photo(40, 30).toFormat(format).toBuffer());
      expect(probed).toMatchObject({ mime: `image/${format}`, width: 40, height: 30 });
    }
  });

  it('refuses other formats, truncated files and a valid header in front of garbage', async () => {
    const png = await photo(64, 64).png().toBuffer();
    expect(await probeImage(await photo(10, 10).gif().toBuffer())).toBeUndefined();
    expect(await probeImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(await probeImage(png.subarray(0, png.length - 40))).toBeUndefined();
    expect(await probeImage(Buffer.concat([png.subarray(0, 33), Buffer.alloc(400, 0x41)]))).toBeUndefined();
    expect(await probeImage(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('bundled CJK font', () => {
  const glyph = async (ch: string) =>
    (await renderSvg(`<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120"><rect width="120" height="120" fill="#fff"/><text x="10" y="100" font-family="${FONT_FAMILY}" font-size="100" fill="#000">${ch}</text></svg>`)).data;

  it('draws distinct Chinese glyphs (not the same missing-glyph box)', async () => {
    const [zhong, guo, shu] = (await Promise.all(['中', '国', '书'].map(glyph))) as [Buffer, Buffer, Buffer];
    expect(zhong.equals(guo)).toBe(false);
    expect(guo.equals(shu)).toBe(false);
    // Something was drawn at all.
    const blank = await glyph(' ');
    expect(zhong.equals(blank)).toBe(false);
  });

  it('composites rendered (premultiplied) pixels into just the rows they cover, in the colours the SVG asked for', async () => {
    // Half-transparent white over black must come out mid-grey, not a quarter (premultiplied twice).
    const rendered = await renderSvg('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2"><rect width="4" height="2" fill="#ffffff" fill-opacity="0.5"/></svg>');
    const base = { data: Buffer.alloc(10 * 6 * 3, 0), width: 10, height: 6, channels: 3 };
    await compositeRows(base, { ...rendered, premultiplied: true }, 3, 5);
    const at = (x: number, y: number) => base.data[(y * 10 + x) * 3]!;
    expect(at(5, 3)).toBeGreaterThan(120);
    expect(at(5, 3)).toBeLessThan(136);
    expect(at(8, 4)).toBe(at(5, 3));
    // Outside the overlay nothing changed, left of it, right of it, above and below.
    expect([at(4, 3), at(9, 4), at(5, 2), at(5, 5)]).toEqual([0, 0, 0, 0]);
    expect(base.data.length).toBe(10 * 6 * 3);
  });

  it('drops emoji that the font has no glyph for, and wraps Chinese by width', () => {
    expect(drawableText('防晒✨霜🧴！')).toBe('防晒霜！');
    const lines = wrapText('夏日出油？这款清透防晒霜真的救了我', 400, 50, 3);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join('')).toBe('夏日出油？这款清透防晒霜真的救了我');
    // Closing punctuation never starts a line.
    for (const line of lines.slice(1)) expect(line[0]).not.toMatch(/[，。！？]/);
    expect(wrapText('一二三四五六七八九十'.repeat(5), 200, 50, 2)[1]!.endsWith('…')).toBe(true);
  });
});

describe('overlayText', () => {
  it('draws the title in the top band and the caption at the bottom, leaving the middle', async () => {
    const base = await photo(1080, 1440).jpeg().toBuffer();
    const plain = await sharp((await normalizeImage(base)).data).raw().toBuffer({ resolveWithObject: true });
    const drawn = await overlayText(base, { title: '秋冬好眠｜告别脖子酸', caption: '慢回弹记忆棉' });
    expect([drawn.width, drawn.height, drawn.mime]).toEqual([1080, 1440, 'image/jpeg']);
    const raw = await sharp(drawn.data).raw().toBuffer({ resolveWithObject: true });
    const diff = (top: number, height: number) => {
      let changed = 0;
      for (let y = top; y < top + height; y++) {
        for (let x = 0; x < 1080; x += 4) {
          const i = (y * 1080 + x) * 3;
          if (Math.abs(raw.data[i]! - plain.data[i]!) + Math.abs(raw.data[i + 1]! - plain.data[i + 1]!) > 60) changed++;
        }
      }
      return changed / (height * 270);
    };
    expect(diff(100, 200)).toBeGreaterThan(0.05);
    expect(diff(1250, 120)).toBeGreaterThan(0.05);
    expect(diff(600, 300)).toBeLessThan(0.01);
  });

  it('only normalises when there is nothing to draw', async () => {
    const out = await overlayText(await photo(800, 800).png().toBuffer(), { title: '  ', caption: null });
    const meta = await sharp(out.data).metadata();
    expect([meta.width, meta.height]).toEqual([1080, 1440]);
  });
});

describe('image threads', () => {
  afterAll(() => closeImageThreads());

  it('normalise and letter off the main thread into the same bytes, handing the input over', async () => {
    const base = await photo(1024, 1536).png().toBuffer();
    // Every field of the text travels, the cover template and its highlight included.
    const text = { title: '秋冬好眠｜告别脖子酸', caption: '慢回弹记忆棉', template: 'poster', highlight: '告别脖子酸' } as const;
    const [normalized, drawn] = await Promise.all([normalizeImage(base), overlayText(base, text)]);
    // Copies that own their memory, as a provider's reply or a file read does: moved, not copied.
    const [forNormalize, forOverlay] = [Buffer.from(base), Buffer.from(base)];
    const [threadNormalized, threadDrawn] = await Promise.all([normalizeImageInThread(forNormalize), overlayTextInThread(forOverlay, text, {})]);
    expect(threadNormalized).toEqual(normalized);
    expect(threadDrawn).toEqual(drawn);
    expect([forNormalize.byteLength, forOverlay.byteLength]).toEqual([0, 0]);
  });

  it('refuse what is not an image with the same InvalidImageError, and leave a pooled input alone', async () => {
    const garbage = Buffer.from('<html>nope</html>');
    await expect(normalizeImageInThread(garbage)).rejects.toBeInstanceOf(InvalidImageError);
    await expect(overlayTextInThread(garbage, { title: '标题' })).rejects.toBeInstanceOf(InvalidImageError);
    expect(garbage.toString()).toBe('<html>nope</html>');
  });

  it.runIf(process.platform === 'linux')('leave the event loop the only thread at nice 0: after an image task every other thread runs at nice 10', async () => {
    const niceOf = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    await normalizeImageInThread(await photo(640, 480).png().toBuffer());
    // Threads seen before the next task (libuv's pool, V8's helpers, the image threads, libvips') are lowered after it.
    const before = readdirSync('/proc/self/task');
    expect(before.length).toBeGreaterThan(3);
    await normalizeImageInThread(await photo(640, 480).png().toBuffer());
    const nice = new Map(before.filter((tid) => existsSync(`/proc/self/task/${tid}`)).map((tid) => [tid, niceOf(tid)]));
    expect(nice.get(String(process.pid))).toBe(0);
    for (const [tid, value] of nice) if (tid !== String(process.pid)) expect(value, `thread ${tid}`).toBe(10);
  });

  it('free a stored image at once, not at a later collection, and leave a pooled slice alone', () => {
    const before = process.memoryUsage().arrayBuffers;
    const image = Buffer.alloc(8_000_000, 1);
    expect(process.memoryUsage().arrayBuffers - before).toBeGreaterThanOrEqual(8_000_000);
    releaseImage(image);
    expect(image.byteLength).toBe(0);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1_000_000);

    const pooled = Buffer.from('小图');
    releaseImage(pooled);
    expect(pooled.toString()).toBe('小图');
  });
});
