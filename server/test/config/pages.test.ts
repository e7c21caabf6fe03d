import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShareText } from '../../src/modules/benchmarks/share-text.js';
import { configWorld, form, PRODUCT, type ConfigWorld } from './setup.js';

/** Issue 15 item 7 on the configuration pages: benchmark edits and share texts, banned words in bulk. */
describe('share text of a Xiaohongshu note', () => {
  it('takes the first link and the note title, whatever surrounds them', () => {
    expect(parseShareText('64 【早八通勤妆｜10分钟搞定 - 小美 | 小红书 - 你的生活指南】 😆 Xp8qLm2N 😆 https://www.xiaohongshu.com/discovery/item/6650a1b2?xsec=abc')).toEqual({
      link: 'https://www.xiaohongshu.com/discovery/item/6650a1b2?xsec=abc',
      title: '早八通勤妆｜10分钟搞定',
    });
    expect(parseShareText('夏天的第一瓶防晒，真的不油！ http://xhslink.com/a/AbCd12，复制本条信息，打开【小红书】App查看精彩内容！')).toEqual({
      link: 'http://xhslink.com/a/AbCd12',
      title: '夏天的第一瓶防晒，真的不油！',
    });
    expect(parseShareText('see https://example.com/x).')).toEqual({ link: 'https://example.com/x', title: 'see' });
    expect(parseShareText('https://example.com/only')).toEqual({ link: 'https://example.com/only', title: null });
    expect(parseShareText('复制本条信息，打开【小红书】App查看精彩内容！').link).toBeNull();
  });
});

describe('benchmarks: edit, delete, share texts', () => {
  let w: ConfigWorld;
  let productId: number;
  const api = (method: string, path: string, token: string, body?: unknown) => w.server.request(method, `/api/v1${path}`, { token, body });
  const SHARE = '64 【通勤防晒不假白 - 阿敏 | 小红书 - 你的生活指南】 😆 Xp8q 😆 http://xhslink.com/a/Zz9，复制本条信息，打开【小红书】App查看精彩内容！';

  beforeAll(async () => {
    w = await configWorld();
    productId = (await api('POST', '/products', w.operator, PRODUCT)).body.data.id;
  });
  afterAll(async () => w?.server.close());

  it('creates from a pasted share text (JSON and upload): link extracted, title as highlights unless given', async () => {
    const byJson = await api('POST', `/products/${productId}/benchmarks`, w.operator, { share_text: SHARE });
    expect(byJson.status, byJson.text).toBe(200);
    expect(byJson.body.data).toMatchObject({ link_url: 'http://xhslink.com/a/Zz9', highlights: '通勤防晒不假白' });
    const own = await api('POST', `/products/${productId}/benchmarks`, w.operator, { share_text: SHARE, highlights: '自己写的亮点' });
    expect(own.body.data).toMatchObject({ link_url: 'http://xhslink.com/a/Zz9', highlights: '自己写的亮点' });
    const png = await sharp({ create: { width: 30, height: 40, channels: 3, background: '#abc' } }).png().toBuffer();
    const uploaded = await w.server.request('POST', `/api/v1/products/${productId}/benchmarks/upload`, {
      token: w.operator,
      raw: form({ share_text: SHARE }, { field: 'screenshot', name: 's.png', type: 'image/png', data: png }),
    });
    expect(uploaded.status, uploaded.text).toBe(200);
    expect(uploaded.body.data).toMatchObject({ link_url: 'http://xhslink.com/a/Zz9', has_uploaded_screenshot: true });
    // The screenshot is shown again: its signed link serves the stored image.
    const shot = await w.server.request('GET', uploaded.body.data.screenshot_url);
    expect(shot.status).toBe(200);
    expect(shot.headers.get('content-type')).toMatch(/^image\//);

    const noLink = await api('POST', `/products/${productId}/benchmarks`, w.operator, { share_text: '复制本条信息，打开【小红书】App查看精彩内容！' });
    expect(noLink.status).toBe(400);
    expect(noLink.body).toMatchObject({ code: 40000, message: expect.stringMatching(/share_text/) });
    const ftp = await api('POST', `/products/${productId}/benchmarks`, w.operator, { share_text: 'x', link_url: 'ftp://a/b' });
    expect(ftp.status).toBe(400);
  });

  it('edits highlights and link (any writer), keeps what is left out, refuses bad links, 404 elsewhere', async () => {
    const created = (await api('POST', `/products/${productId}/benchmarks`, w.operator, { highlights: '旧亮点', link_url: 'https://example.com/old' })).body.data;
    const edited = await api('PATCH', `/benchmarks/${created.id}`, w.operator, { highlights: ' 新亮点 ' });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data).toMatchObject({ id: created.id, highlights: '新亮点', link_url: 'https://example.com/old' });
    const relinked = await api('PATCH', `/benchmarks/${created.id}`, w.supervisor, { share_text: SHARE });
    expect(relinked.body.data).toMatchObject({ highlights: '新亮点', link_url: 'http://xhslink.com/a/Zz9' });
    expect((await api('PATCH', `/benchmarks/${created.id}`, w.admin, { link_url: null })).body.data.link_url).toBeNull();
    expect((await api('PATCH', `/benchmarks/${created.id}`, w.operator, { link_url: 'javascript:alert(1)' })).status).toBe(400);
    expect((await api('PATCH', `/benchmarks/${created.id}`, w.operator, {})).status).toBe(400);
    expect((await api('PATCH', `/benchmarks/${created.id}`, w.operator, { highlights: 5 })).status).toBe(400);
    const foreign = await api('PATCH', `/benchmarks/${created.id}`, w.otherAdmin, { highlights: 'x' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe(40400);
    expect((await api('DELETE', `/benchmarks/${created.id}`, w.otherAdmin)).status).toBe(404);
    expect((await api('GET', `/benchmarks/${created.id}`, w.operator)).body.data.highlights).toBe('新亮点');
    expect((await api('DELETE', `/benchmarks/${created.id}`, w.operator)).status).toBe(200);
    expect((await api('GET', `/benchmarks/${created.id}`, w.operator)).status).toBe(404);
    expect((await api('PATCH', `/benchmarks/${created.id}`, w.operator, { highlights: 'x' })).status).toBe(404);
  });
});

describe('banned words in bulk', () => {
  let w: ConfigWorld;
  const api = (method: string, path: string, token: string, body?: unknown) => w.server.request(method, `/api/v1${path}`, { token, body });
  const words = async (token: string) => ((await api('GET', '/banned-words?page_size=100', token)).body.data.items as Array<{ id: number; word: string; level: string; replacement: string | null }>);

  beforeAll(async () => {
    w = await configWorld();
  });
  afterAll(async () => w?.server.close());

  it('adds a pasted list in one go; existing words and repeats are skipped and named', async () => {
    await api('POST', '/banned-words', w.supervisor, { word: '顶级', level: 'hard_block' });
    const res = await api('POST', '/banned-words/bulk', w.supervisor, {
      items: [
        { word: ' 最佳 ', level: 'auto_fix', replacement: '优秀' },
        { word: '顶级', level: 'soft_warn' },
        { word: '根治', level: 'hard_block' },
        { word: '根治', level: 'soft_warn' },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({ created: 2, skipped: ['顶级'] });
    const now = await words(w.operator);
    expect(now.find((x) => x.word === '最佳')).toMatchObject({ level: 'auto_fix', replacement: '优秀' });
    expect(now.find((x) => x.word === '顶级')).toMatchObject({ level: 'hard_block' });
    expect(now.find((x) => x.word === '根治')).toMatchObject({ level: 'hard_block' });
    const again = await api('POST', '/banned-words/bulk', w.supervisor, { items: [{ word: '最佳', level: 'auto_fix' }] });
    expect(again.body.data).toEqual({ created: 0, skipped: ['最佳'] });

    expect((await api('POST', '/banned-words/bulk', w.operator, { items: [{ word: '甲', level: 'soft_warn' }] })).status).toBe(403);
    const blank = await api('POST', '/banned-words/bulk', w.supervisor, { items: [{ word: '乙', level: 'soft_warn' }, { word: '  ', level: 'soft_warn' }] });
    expect(blank.status).toBe(400);
    expect(blank.body.message).toMatch(/items\/1/);
    expect((await words(w.operator)).some((x) => x.word === '乙')).toBe(false);
    expect((await api('POST', '/banned-words/bulk', w.supervisor, { items: [] })).status).toBe(400);
    // Another workspace holds its own list: the same words are new there.
    expect((await api('POST', '/banned-words/bulk', w.otherAdmin, { items: [{ word: '最佳', level: 'soft_warn' }] })).body.data).toEqual({ created: 1, skipped: [] });
  });

  it('deletes many at once, all or none: foreign ids 404, locked words 403 for a supervisor', async () => {
    const made = await api('POST', '/banned-words/bulk', w.supervisor, {
      items: [
        { word: '速效', level: 'soft_warn' },
        { word: '神药', level: 'hard_block' },
        { word: '国家级', level: 'hard_block', updatable: false },
      ],
    });
    expect(made.body.data.created).toBe(3);
    const byWord = new Map((await words(w.supervisor)).map((x) => [x.word, x.id]));
    const [fast, miracle, national] = [byWord.get('速效')!, byWord.get('神药')!, byWord.get('国家级')!];
    const product = await api('POST', '/products', w.operator, { ...PRODUCT, banned_word_ids: [fast, miracle] });
    const foreignId = (await words(w.otherAdmin))[0]!.id;

    const foreign = await api('POST', '/banned-words/bulk-delete', w.supervisor, { ids: [fast, foreignId] });
    expect(foreign.status).toBe(404);
    const locked = await api('POST', '/banned-words/bulk-delete', w.supervisor, { ids: [fast, national] });
    expect(locked.status).toBe(403);
    expect(locked.body.code).toBe(40300);
    expect((await api('POST', '/banned-words/bulk-delete', w.operator, { ids: [fast] })).status).toBe(403);
    // Nothing was deleted by the refused requests.
    expect((await words(w.supervisor)).filter((x) => [fast, miracle, national].includes(x.id))).toHaveLength(3);

    const done = await api('POST', '/banned-words/bulk-delete', w.supervisor, { ids: [fast, miracle, fast] });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data).toEqual({ deleted: 2 });
    expect((await api('GET', `/products/${product.body.data.id}`, w.operator)).body.data.banned_word_ids).toEqual([]);
    expect((await api('POST', '/banned-words/bulk-delete', w.admin, { ids: [national] })).body.data).toEqual({ deleted: 1 });
    expect((await api('POST', '/banned-words/bulk-delete', w.admin, { ids: [] })).status).toBe(400);
    expect((await api('POST', '/banned-words/bulk-delete', w.admin, { ids: ['1'] })).status).toBe(400);
  });
});
