import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, nowIso } from '../../src/db/codec.js';
import { configWorld, PRODUCT, type ConfigWorld } from './setup.js';

describe('products', () => {
  let w: ConfigWorld;
  beforeAll(async () => {
    w = await configWorld();
  });
  afterAll(async () => w?.server.close());
  const api = (method: string, path: string, token: string, body?: unknown) => w.server.request(method, `/api/v1${path}`, { token, body });

  it('creates, reads, replaces and lists with q search; operators write', async () => {
    const created = await api('POST', '/products', w.operator, PRODUCT);
    expect(created.status).toBe(200);
    const p = created.body.data;
    expect(p).toMatchObject({ ...PRODUCT, banned_word_ids: [] });
    expect(p.workspace_id).toBeGreaterThan(0);
    expect(p.created_at).toMatch(/Z$/);
    expect((await api('GET', `/products/${p.id}`, w.operator)).body.data).toEqual(p);

    const replaced = await api('PUT', `/products/${p.id}`, w.operator, { name: 'Cloud Cream 100%_x', category: '护肤', source: 'preset' });
    expect(replaced.body.data).toMatchObject({ id: p.id, name: 'Cloud Cream 100%_x', source: 'preset', selling_points: [], style_tone: null, custom_prompt: null });

    await api('POST', '/products', w.operator, { ...PRODUCT, name: '通勤背包' });
    await api('POST', '/products', w.operator, { ...PRODUCT, name: 'cloudy bag' });
    const search = await api('GET', '/products?q=CLOUD', w.operator);
    expect(search.body.data.items.map((i: any) => i.name).sort()).toEqual(['Cloud Cream 100%_x', 'cloudy bag']);
    // % and _ are literal characters, not wildcards.
    expect((await api('GET', '/products?q=' + encodeURIComponent('%_'), w.operator)).body.data.items.map((i: any) => i.name)).toEqual(['Cloud Cream 100%_x']);
    expect((await api('GET', '/products?q=' + encodeURIComponent('背包'), w.operator)).body.data.total).toBe(1);
    const paged = await api('GET', '/products?page=2&page_size=2', w.operator);
    expect(paged.body.data).toMatchObject({ total: 3, page: 2, page_size: 2 });
    expect(paged.body.data.items).toHaveLength(1);
  });

  it('validates the body', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ ...PRODUCT, name: undefined }, /name/],
      [{ ...PRODUCT, category: '' }, /category/],
      [{ ...PRODUCT, source: 'imported' }, /source/],
      [{ ...PRODUCT, selling_points: 'one' }, /selling_points/],
      [{ ...PRODUCT, banned_word_ids: ['x'] }, /banned_word_ids/],
      [{ ...PRODUCT, name: '   ' }, /name/],
    ];
    for (const [body, field] of cases) {
      const res = await api('POST', '/products', w.operator, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe(40000);
      expect(res.body.message).toMatch(field);
    }
    expect((await api('GET', '/products/abc', w.operator)).status).toBe(400);
    expect((await api('GET', '/products/999999', w.operator)).status).toBe(404);
  });

  it('appearance: kept on create, replaced or cleared by PUT, refused over 300 characters', async () => {
    const look = '白色磨砂圆罐，银色旋盖，罐身印有“云朵柔雾”四个字，乳白色霜体';
    const created = await api('POST', '/products', w.operator, { ...PRODUCT, appearance: `  ${look}  ` });
    expect(created.status).toBe(200);
    expect(created.body.data.appearance).toBe(look);
    const id = created.body.data.id;
    expect((await api('GET', `/products/${id}`, w.operator)).body.data.appearance).toBe(look);

    const changed = await api('PUT', `/products/${id}`, w.operator, { ...PRODUCT, appearance: '透明玻璃瓶，金色滴管' });
    expect(changed.body.data.appearance).toBe('透明玻璃瓶，金色滴管');
    // PUT replaces the whole profile (the contract's update): a body without it clears it, as with custom_prompt.
    expect((await api('PUT', `/products/${id}`, w.operator, { ...PRODUCT, appearance: '   ' })).body.data.appearance).toBeNull();
    expect((await api('POST', '/products', w.operator, PRODUCT)).body.data.appearance).toBeNull();

    expect((await api('POST', '/products', w.operator, { ...PRODUCT, appearance: '瓶'.repeat(300) })).status).toBe(200);
    for (const [method, path] of [['POST', '/products'], ['PUT', `/products/${id}`]] as const) {
      const tooLong = await api(method, path, w.operator, { ...PRODUCT, appearance: '瓶'.repeat(301) });
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.code).toBe(40000);
      expect(tooLong.body.message).toMatch(/appearance/);
    }
    expect((await api('GET', `/products/${id}`, w.operator)).body.data.appearance).toBeNull();
  });

  it('banned_word_ids must be this workspace’s words; the 400 names the bad ids', async () => {
    const mine = await api('POST', '/banned-words', w.supervisor, { word: '顶级', level: 'hard_block' });
    const theirs = await api('POST', '/banned-words', w.otherAdmin, { word: '顶级', level: 'hard_block' });
    const ok = await api('POST', '/products', w.operator, { ...PRODUCT, banned_word_ids: [mine.body.data.id, mine.body.data.id] });
    expect(ok.body.data.banned_word_ids).toEqual([mine.body.data.id]);
    const bad = await api('POST', '/products', w.operator, { ...PRODUCT, banned_word_ids: [mine.body.data.id, theirs.body.data.id, 987654] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain(`${theirs.body.data.id}, 987654`);
    const badPut = await api('PUT', `/products/${ok.body.data.id}`, w.operator, { ...PRODUCT, banned_word_ids: [theirs.body.data.id] });
    expect(badPut.status).toBe(400);
  });

  it('delete: refused with 409 while tasks refer to the product, else removed', async () => {
    const used = (await api('POST', '/products', w.operator, PRODUCT)).body.data;
    const me = await api('GET', '/auth/me', w.operator);
    const now = nowIso();
    await w.server.ctx.db
      .insertInto('tasks')
      .values({
        workspace_id: used.workspace_id,
        product_id: used.id,
        operator_id: me.body.data.id,
        theme: 't',
        text_count: 1,
        image_count: 0,
        track: 'ai',
        status: 'pending_selection',
        need_product_image: false,
        overlay_text: true,
        progress: json(null),
        created_at: now,
        updated_at: now,
      } as any)
      .execute();
    const refused = await api('DELETE', `/products/${used.id}`, w.operator);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe(40900);
    expect((await api('GET', `/products/${used.id}`, w.operator)).status).toBe(200);

    const free = (await api('POST', '/products', w.operator, PRODUCT)).body.data;
    expect((await api('DELETE', `/products/${free.id}`, w.operator)).status).toBe(200);
    expect((await api('GET', `/products/${free.id}`, w.operator)).status).toBe(404);
  });

  it('JSON export: an attachment of this workspace’s products with benchmarks and images; not shadowed by /products/:id', async () => {
    const p = (await api('POST', '/products', w.operator, { ...PRODUCT, name: '导出产品 "引号"' })).body.data;
    await api('POST', `/products/${p.id}/benchmarks`, w.operator, { highlights: '亮点一', link_url: 'https://example.com/n/1' });
    await api('POST', '/products', w.otherAdmin, { ...PRODUCT, name: 'other-ws-product' });
    const res = await api('GET', '/products/export', w.operator);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="products-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const names = res.body.products.map((x: any) => x.name);
    expect(names).toContain('导出产品 "引号"');
    expect(names).not.toContain('other-ws-product');
    const exported = res.body.products.find((x: any) => x.id === p.id);
    expect(exported.benchmarks).toEqual([expect.objectContaining({ highlights: '亮点一', link_url: 'https://example.com/n/1' })]);
    expect(exported.images).toEqual([]);
    expect((await api('GET', '/products/export', w.otherAdmin)).body.products.map((x: any) => x.name)).toEqual(['other-ws-product']);
  });

  it('every id route of another workspace is a 404', async () => {
    const p = (await api('POST', '/products', w.operator, PRODUCT)).body.data;
    const o = w.otherAdmin;
    for (const [method, path, body] of [
      ['GET', `/products/${p.id}`],
      ['PUT', `/products/${p.id}`, PRODUCT],
      ['DELETE', `/products/${p.id}`],
      ['GET', `/products/${p.id}/benchmarks`],
      ['POST', `/products/${p.id}/benchmarks`, { highlights: 'x' }],
      ['GET', `/products/${p.id}/images`],
    ] as Array<[string, string, unknown?]>) {
      const res = await api(method, path, o, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe(40400);
    }
    expect((await api('GET', `/products/${p.id}`, w.operator)).status).toBe(200);
  });
});
