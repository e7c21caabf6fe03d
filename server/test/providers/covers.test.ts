import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { COVER_TEMPLATES, coverHighlight, coverTemplate, productRuns, taskCoverTemplate, type CoverTemplate } from '../../src/content/cover.js';
import { coverTitleLayout, overlayLayers, overlayText } from '../../src/images/overlay.js';
import { lineFor } from '../../src/modules/notes/service.js';

/**
 * Cover designs (issue #14 item 6): every template keeps its title inside the image and whole,
 * draws the key phrase highlighted, and wraps long titles without cutting them.
 */

/** Cover titles as the model writes them: short, 12 graphemes, figures, Latin, emoji, two parts. */
/** The cover size the service draws (images/normalize.ts). */
const COVER = { width: 1080, height: 1440 };

const TITLES = ['实测7天', '一二三四五六七八九十一二', '早八人的5分钟妆容', 'iPhone16拍照技巧', '这款面霜闭眼入✨', '秋冬好眠｜告别脖子酸', '99%的人都不知道', 'SK-II神仙水真的绝了', 'WWWWWWWWWWWW', '谁懂啊这个枕头！！', '【早C晚A】新手必看'];

describe('coverHighlight and coverTemplate', () => {
  it('highlights what a reader stops for: a marked phrase, a figure, a hook word, the shorter part, else the last words', () => {
    expect(coverHighlight('【干皮救星】面霜')).toBe('干皮救星');
    expect(coverHighlight('实测7天')).toBe('7天');
    expect(coverHighlight('99%的人都不知道')).toBe('99%');
    expect(coverHighlight('3步搞定小户型收纳')).toBe('3步');
    expect(coverHighlight('敷完第二天脸嫩了')).toBe('第二天');
    // A figure inside a Latin word is a model name, not a promise.
    expect(coverHighlight('iPhone16拍照技巧')).toBe('拍照技巧');
    expect(coverHighlight('这款面霜闭眼入✨')).toBe('闭眼入');
    expect(coverHighlight('秋冬好眠｜告别脖子酸')).toBe('告别脖子酸');
    expect(coverHighlight('一觉睡到天亮')).toBe('睡到天亮');
    // Never from inside a word the segmenter split: 小|技巧 of 小技巧, 敷|完 of 敷完.
    expect(coverHighlight('冬季保湿小技巧日常')).toBe('小技巧日常');
    expect(coverHighlight('敷完脸嫩了')).toBe('脸嫩了');
    expect(coverHighlight('早八人的快手早餐')).toBe('快手早餐');
    expect(coverHighlight('！！')).toBeNull();
    expect(coverHighlight('  ')).toBeNull();
    for (const title of TITLES) expect(title).toContain(coverHighlight(title));
  });

  it('gives the sets of one task (and consecutive fission sets) different templates, the same on every call', () => {
    for (const taskId of [1, 2, 3, 41]) {
      const templates = (['A', 'B', 'C'] as const).map((s) => taskCoverTemplate(taskId, s));
      expect(new Set(templates).size).toBe(3);
      expect((['A', 'B', 'C'] as const).map((s) => taskCoverTemplate(taskId, s))).toEqual(templates);
    }
    expect(coverTemplate(7, 1)).not.toBe(coverTemplate(7, 2));
    expect(new Set([1, 2, 3, 4].map((id) => taskCoverTemplate(id, 'A'))).size).toBe(COVER_TEMPLATES.length);
  });
});

describe('cover title layout', () => {
  it('keeps every run inside the room of its template, the whole title drawn, the key phrase on one line', () => {
    for (const template of COVER_TEMPLATES) {
      for (const title of TITLES) {
        const highlight = coverHighlight(title);
        const layout = coverTitleLayout(template, COVER, title, { highlight });
        const runs = layout.lines.flatMap((l) => l.runs);
        for (const run of runs) {
          expect(run.x, `${template} ${title}`).toBeGreaterThanOrEqual(0);
          expect(run.x + run.width, `${template} ${title}`).toBeLessThanOrEqual(layout.maxWidth + 1);
        }
        const drawn = runs.map((r) => r.text).join('');
        expect(drawn.endsWith('…'), `${template} ${title}`).toBe(false);
        expect(drawn).toBe(title.replace(/✨/u, '').replace(template === 'band' ? /^$/ : /｜/u, ''));
        const marked = layout.lines.map((l) => l.runs.filter((r) => r.highlighted).map((r) => r.text).join('')).filter(Boolean);
        // On one line where it fits one; a phrase wider than a line is marked on each of its lines.
        expect(marked.join(''), `${template} ${title}`).toBe(highlight);
        if (title !== 'WWWWWWWWWWWW') expect(marked, `${template} ${title}`).toHaveLength(1);
      }
    }
  });

  const lines = (layout: ReturnType<typeof coverTitleLayout>) => layout.lines.map((l) => l.runs.map((r) => r.text).join(''));

  it('sets a 大字报 as large as the title allows, in even lines, between words, and a two-part title as two lines', () => {
    const short = coverTitleLayout('poster', COVER, '实测7天', { highlight: '7天' });
    const long = coverTitleLayout('poster', COVER, '一二三四五六七八九十一二', { highlight: null });
    expect(short.lines).toHaveLength(1);
    expect(short.fontSize).toBe(200);
    expect(lines(long).join('')).toBe('一二三四五六七八九十一二');
    // Two even lines of six: three lines at 156 px took 61% of the cover (issue 29); in the upper 40% two lines are set larger than three.
    expect(lines(long)).toEqual(['一二三四五六', '七八九十一二']);
    expect(long.fontSize).toBeGreaterThanOrEqual(124);
    // 急救 and 脸嫩 are never torn apart, and the key phrase keeps its line.
    expect(lines(coverTitleLayout('poster', COVER, '5分钟急救干皮', { highlight: '5分钟' }))).toEqual(['5分钟', '急救干皮']);
    // Three lines of it at 200 px would reach 60% of the cover: two lines in the upper 40%.
    expect(lines(coverTitleLayout('poster', COVER, '敷完第二天脸嫩了', { highlight: '第二天' }))).toEqual(['敷完第二天', '脸嫩了']);
    expect(lines(coverTitleLayout('sticker', COVER, '敷完第二天脸嫩了', { highlight: '第二天' }))).toEqual(['敷完第二天', '脸嫩了']);
    expect(lines(coverTitleLayout('sticker', COVER, '秋冬好眠｜告别脖子酸', { highlight: '告别脖子酸' }))).toEqual(['秋冬好眠', '告别脖子酸']);
    // No character alone on a line, the middle one included: a smaller size takes 小 along.
    expect(lines(coverTitleLayout('poster', COVER, '冬季保湿小技巧日常', { highlight: '技巧日常' }))).toEqual(['冬季保湿小', '技巧日常']);
    // The size follows the image: half as wide, half as large.
    expect(coverTitleLayout('poster', { width: 540, height: 720 }, '实测7天', { highlight: '7天' }).fontSize).toBe(100);
  });
});

describe('covers of issue 29: the subject left free, the product name whole, the highlight stated', () => {
  /** Covers as notes letter them: the product name inside, long titles, two parts. */
  const NAMED: Array<[title: string, product: string]> = [
    ['云朵柔雾保湿面霜帮了大忙', '云朵柔雾保湿面霜'],
    ['山茶花精华液帮了大忙', '山茶花精华液'],
    ['晨光保温杯帮了大忙', '晨光保温杯'],
    ['换季用山茶花精华液', '山茶花精华液 30ml'],
    ['一二三四五六七八九十一二', '无关的产品'],
    ['秋冬好眠｜告别脖子酸', '护颈枕'],
  ];
  const lines = (layout: ReturnType<typeof coverTitleLayout>) => layout.lines.map((l) => l.runs.map((r) => r.text).join(''));
  /** Where a title may break: between the words of a dictionary segmentation, at its bar, or between Latin letters and Chinese. */
  const wordEnds = (text: string) => {
    const ends = new Set<number>();
    let at = 0;
    for (const { segment } of new Intl.Segmenter('zh', { granularity: 'word' }).segment(text)) ends.add((at += segment.length));
    return ends;
  };

  it('the drawn block of every template ends within the upper 40% of the cover, three lines included', () => {
    for (const template of COVER_TEMPLATES) {
      for (const title of [...TITLES, ...NAMED.map(([t]) => t)]) {
        const [layer] = overlayLayers(1080, 1440, { title, template, highlight: coverHighlight(title) });
        expect(layer!.top + layer!.height, `${template} ${title}`).toBeLessThanOrEqual(0.4 * 1440);
        expect(Number(/height="(\d+)"/.exec(layer!.svg)![1])).toBe(layer!.height);
      }
    }
  });

  it('breaks a title only between words and never inside the product name', () => {
    for (const template of COVER_TEMPLATES) {
      for (const [title, product] of NAMED) {
        const keep = productRuns(title, product);
        const set = lines(coverTitleLayout(template, COVER, title, { highlight: coverHighlight(title, { keep }), keep }));
        const flat = title.replace(template === 'band' ? /^$/ : /｜/u, '');
        expect(set.join(''), `${template} ${title}`).toBe(flat);
        for (const name of keep) expect(set.some((line) => line.includes(name)), `${template} ${title}: ${set.join('/')}`).toBe(true);
        const ends = wordEnds(flat);
        let at = 0;
        for (const line of set.slice(0, -1)) expect(ends.has((at += line.length)), `${template} ${title}: ${set.join('/')}`).toBe(true);
      }
    }
    expect(productRuns('云朵柔雾保湿面霜帮了大忙', '云朵柔雾保湿面霜')).toEqual(['云朵柔雾保湿面霜']);
    expect(productRuns('换季用山茶花精华液', '山茶花精华液 30ml')).toEqual(['山茶花精华液']);
    expect(productRuns('晨光里的一杯茶', '晨光保温杯')).toEqual([]);
  });

  it('highlights only a figure the note states, and never a piece of the product name or a place word', () => {
    expect(coverHighlight('3天告别干皮', { stated: '换季用了一阵子，干皮舒服多了' })).toBe('告别干皮');
    expect(coverHighlight('3天告别干皮', { stated: '连用3天以后，起皮少了' })).toBe('3天');
    // A second figure the note does state is taken over an invented first one.
    expect(coverHighlight('7天换来2个习惯', { stated: '养成了2个习惯' })).toBe('2个');
    expect(coverHighlight('山茶花精华液帮了大忙', { keep: ['山茶花精华液'] })).toBe('帮了大忙');
    expect(coverHighlight('晨光保温杯用后感', { keep: ['晨光保温杯'] })).toBe('用后感');
    expect(coverHighlight('宿舍里常备')).toBe('常备');
    expect(coverHighlight('洗完脸后常备')).toBe('常备');
  });
});

describe('cover templates drawn', () => {
  type Rgb = [number, number, number];
  const flat = (rgb: Rgb) => sharp({ create: { width: 1080, height: 1440, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } }).png().toBuffer();

  /** The pixels of `image` (PNG) matching `match`, and the box they span. */
  async function ink(image: Buffer, match: (p: Rgb) => boolean) {
    const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const box = { count: 0, minX: Infinity, maxX: -1, minY: Infinity, maxY: -1 };
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const i = (y * info.width + x) * 3;
        if (!match([data[i]!, data[i + 1]!, data[i + 2]!])) continue;
        box.count++;
        box.minX = Math.min(box.minX, x);
        box.maxX = Math.max(box.maxX, x);
        box.minY = Math.min(box.minY, y);
        box.maxY = Math.max(box.maxY, y);
      }
    }
    return box;
  }

  const near = (target: Rgb, tolerance = 40) => (p: Rgb) => Math.abs(p[0] - target[0]) + Math.abs(p[1] - target[1]) + Math.abs(p[2] - target[2]) <= tolerance;
  /** Per template: the background to draw on, the colour of the plain title text, and the highlight's own colour. */
  const LOOK: Record<CoverTemplate, { background: Rgb; text: Rgb; highlight: Rgb }> = {
    poster: { background: [90, 140, 120], text: [27, 27, 27], highlight: [255, 212, 0] },
    sticker: { background: [90, 140, 120], text: [32, 32, 32], highlight: [255, 36, 66] },
    band: { background: [150, 150, 150], text: [255, 255, 255], highlight: [255, 216, 77] },
  };
  const layerHeight = (template: CoverTemplate, title: string, highlight: string | null) =>
    Number(/height="(\d+)"/.exec(overlayLayers(1080, 1440, { title, template, highlight })[0]!.svg)![1]);

  for (const template of COVER_TEMPLATES) {
    it(`${template}: the title inside the image and whole, the key phrase highlighted`, async () => {
      const look = LOOK[template];
      const background = await flat(look.background);
      for (const title of ['实测7天', '一二三四五六七八九十一二', 'iPhone16拍照技巧', 'WWWWWWWWWW好物']) {
        const highlight = coverHighlight(title);
        const out = await overlayText(background, { title, template, highlight }, { format: 'png' });
        expect([out.width, out.height]).toEqual([1080, 1440]);
        const text = await ink(out.data, near(look.text));
        const top = layerHeight(template, title, highlight);
        // Inside the image with room to spare, and inside its layer, clear of the layer's lower edge: nothing cut.
        expect(text.count, `${template} ${title}`).toBeGreaterThan(2000);
        expect(text.minX, `${template} ${title}`).toBeGreaterThanOrEqual(40);
        expect(text.maxX, `${template} ${title}`).toBeLessThanOrEqual(1040);
        expect(text.minY, `${template} ${title}`).toBeGreaterThanOrEqual(40);
        expect(text.maxY, `${template} ${title}`).toBeLessThan(top - 20);
        expect((await ink(out.data, near(look.highlight))).count, `${template} ${title}`).toBeGreaterThan(2000);
      }
      // Without a key phrase nothing is drawn in the highlight's colour.
      const plain = await overlayText(background, { title: '实测7天', template, highlight: null }, { format: 'png' });
      expect((await ink(plain.data, near(look.highlight))).count).toBe(0);
    });
  }

  it('draws the quiet band when no template is named, as before', async () => {
    const background = await flat([150, 150, 150]);
    const unnamed = await overlayText(background, { title: '实测7天', highlight: '7天' }, { format: 'png' });
    const band = await overlayText(background, { title: '实测7天', template: 'band', highlight: '7天' }, { format: 'png' });
    expect(unnamed.data.equals(band.data)).toBe(true);
  });
});

describe('the line of a cover whose title an operator edits (notes/service lineFor)', () => {
  const planned = { kind: 'cover' as const, text: '云朵柔雾保湿面霜帮了大忙', highlight: '帮了大忙', keep: ['云朵柔雾保湿面霜'] };
  const cover = { role: 'hook' as const, overlay: planned };

  it('keeps the planned line, highlight and product run while the title is unchanged', () => {
    expect(lineFor(cover, '云朵柔雾保湿面霜帮了大忙')).toEqual(planned);
    expect(lineFor(cover, undefined)).toEqual(planned);
  });

  it('keeps the product name whole in an edited title that still names it, and highlights only what the title says', () => {
    const line = lineFor(cover, '云朵柔雾保湿面霜3天救急');
    expect(line).toMatchObject({ kind: 'cover', text: '云朵柔雾保湿面霜3天救急', keep: ['云朵柔雾保湿面霜'] });
    expect('云朵柔雾保湿面霜3天救急').toContain(line!.highlight!);
    expect(line!.highlight).not.toContain('帮了大忙');
    expect(lineFor(cover, '换季急救就靠它')).toMatchObject({ text: '换季急救就靠它', keep: [] });
  });

  it('draws a slide’s caption as planned, whatever the cover title', () => {
    const slide = { role: 'proof' as const, overlay: { kind: 'caption' as const, text: '含神经酰胺' } };
    expect(lineFor(slide, '别的标题')).toEqual(slide.overlay);
  });
});
