import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cleanTags,
  enforceLimits,
  fitBody,
  fitCoverTitle,
  limitFlags,
  limitProblems,
  moveHashtags,
  normaliseNote,
  NOTE_LIMITS,
  stripMarkdown,
} from '../../src/content/limits.js';
import { length } from '../../src/content/text.js';

const GRAPHEME_SEGMENTER = new Intl.Segmenter('zh', { granularity: 'grapheme' });
const graphemes = (s: string) => [...GRAPHEME_SEGMENTER.segment(s)].map((g) => g.segment);

/** Chinese, English, emoji with joiners and skin tones, flags, spaces: what notes are made of. */
const PIECES = ['补水', '面膜', '熬夜', '党', '的', '救星', 'SPF50+', 'daily', ' ', '｜', '！', '😮‍💨', '👨‍👩‍👧', '👍🏻', '🇨🇳', '✨', 'é', '秘密武器', '大公开'];
const noteText = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(''));

describe('limits: never cut inside a word or a grapheme', () => {
  it('enforceLimits keeps every part within its limit, as a prefix made of whole graphemes', () => {
    fc.assert(
      fc.property(noteText, noteText, noteText, (title, cover, content) => {
        const out = enforceLimits({ title, cover_title: cover, content, tags: [] });
        expect(length(out.title)).toBeLessThanOrEqual(NOTE_LIMITS.title);
        expect(length(out.cover_title)).toBeLessThanOrEqual(NOTE_LIMITS.cover_title);
        expect(length(out.content)).toBeLessThanOrEqual(NOTE_LIMITS.content);
        // Whole graphemes of the original: no emoji sequence or flag is split.
        const titleGraphemes = graphemes(title.trim());
        expect(graphemes(out.title)).toEqual(titleGraphemes.slice(0, graphemes(out.title).length));
        expect(limitProblems(out)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('a title that fits is left alone; an over-long one is cut between words, not mid-word', () => {
    expect(enforceLimits({ title: '熬夜党的秘密武器大公开😮‍💨', cover_title: '', content: 'x', tags: [] }).title).toBe('熬夜党的秘密武器大公开😮‍💨');
    const long = '换季护肤必看｜熬夜党的秘密武器大公开真的绝了姐妹们';
    const cut = enforceLimits({ title: long, cover_title: '', content: 'x', tags: [] }).title;
    expect(length(cut)).toBeLessThanOrEqual(20);
    expect(cut).not.toMatch(/武器大$/);
    expect(long.startsWith(cut)).toBe(true);
  });

  it('the cover title is a whole phrase that fits before it is ever cut', () => {
    expect(fitCoverTitle('周末野餐带什么保温杯推荐合集', '周末野餐｜保温杯真的好用')).toBe('周末野餐｜保温杯真的好用'.length <= 12 ? '周末野餐｜保温杯真的好用' : '周末野餐');
    expect(fitCoverTitle('', '熬夜急救｜晚安面膜')).toBe('熬夜急救｜晚安面膜');
    expect(fitCoverTitle('换季补水秘诀', '随便')).toBe('换季补水秘诀');
    expect(fitCoverTitle('一二三四五六七八九十十一十二十三', '一二三四五六七八九十十一十二十三十四')).not.toMatch(/十$/);
  });

  it('a long body ends at a whole sentence', () => {
    const sentence = '这款面膜我用了很久，补水效果很稳定。';
    const body = sentence.repeat(80);
    const out = fitBody(body);
    expect(length(out)).toBeLessThanOrEqual(1000);
    expect(out.endsWith('。')).toBe(true);
    expect(length(out)).toBeGreaterThan(900);
  });
});

describe('plain text and tags', () => {
  it('strips Markdown markers and keeps the words', () => {
    const md = '## 我的心得\n**真的好用**，__强推__！\n- 补水\n* 不黏腻\n> 引用一句\n[链接文字](https://example.com)\n`代码`\n---\n*斜体*结束';
    expect(stripMarkdown(md)).toBe('我的心得\n真的好用，强推！\n补水\n不黏腻\n引用一句\n链接文字\n代码\n\n斜体结束');
    // Numbers, emoji bullets and a single asterisk in prose stay.
    expect(stripMarkdown('1. 第一步\n✅ 第二步\n5*3=15')).toBe('1. 第一步\n✅ 第二步\n5*3=15');
  });

  it('moves trailing and inline hashtags into the tags', () => {
    const { content, tags } = moveHashtags('周末去#野餐 真开心！\n推荐给大家～\n\n#野餐[话题]# #周末去哪儿 #保温杯#\n#好物分享');
    expect(content).toBe('周末去野餐 真开心！\n推荐给大家～');
    expect(tags).toEqual(['野餐', '周末去哪儿', '保温杯', '好物分享', '野餐']);
    // Not tags: C#, a bare number.
    expect(moveHashtags('学C#编程，排名#123').content).toBe('学C#编程，排名#123');
  });

  it('tags have no hash, no spaces, no repeats, at most ten', () => {
    expect(cleanTags(['#护肤 分享', '＃护肤分享', ' 好物 ', 'Skin Care', 'skincare', '', '!!', '#周末野餐带什么一杯咖啡和保温杯的故事', '周末野餐带什么一杯咖啡和保温杯的故事和一些零食'])).toEqual([
      '护肤分享',
      '好物',
      'SkinCare',
      // The longer one is shortened between words (no hanging 和) and is then a repeat.
      '周末野餐带什么一杯咖啡和保温杯的故事',
    ]);
    expect(cleanTags(['SPF50+', '<b>粗体</b>', '✨好物✨', '「露营」', 'K-pop'])).toEqual(['SPF50+', 'b粗体b', '✨好物✨', '露营', 'K-pop']);
    expect(cleanTags(Array.from({ length: 15 }, (_, i) => `标签${i}`))).toHaveLength(10);
    fc.assert(
      fc.property(fc.array(noteText, { maxLength: 20 }), (tags) => {
        for (const tag of cleanTags(tags)) {
          expect(tag).not.toMatch(/[\s#＃]/u);
          expect(length(tag)).toBeLessThanOrEqual(NOTE_LIMITS.tag);
        }
      }),
    );
  });

  it('normaliseNote cleans without cutting, and names what is over', () => {
    const note = normaliseNote(
      {
        angle_label: ' 熬夜 急救 ',
        title: '换季护肤必看｜熬夜党的秘密武器大公开真的绝了姐妹们',
        title_options: [],
        cover_title_options: [],
        image_plan: [],
        content: '**重点**：补水\n\n#护肤 #面膜',
        tags: ['#换季'],
        cover_title: '熬夜党的秘密武器大公开啦姐妹',
        image_brief: ' 窗边 ',
      },
      'A',
    );
    expect(note.content).toBe('重点：补水');
    expect(note.tags).toEqual(['换季', '护肤', '面膜']);
    expect(note.title).toBe('换季护肤必看｜熬夜党的秘密武器大公开真的绝了姐妹们');
    expect(limitProblems(note).map((p) => [p.field, p.limit])).toEqual([
      ['title', 20],
      ['cover_title', 12],
    ]);
    expect(limitFlags(note)).toEqual(['话题标签 3 个，建议 5-10 个']);
  });
});
