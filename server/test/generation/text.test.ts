import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileBannedWords } from '../../src/content/banned-words.js';
import { buildStoryboard } from '../../src/content/storyboard.js';
import { clip, clipWords, length, STANDS_ALONE } from '../../src/content/text.js';

describe('clipWords: labels cut between words', () => {
  it('cuts Chinese between dictionary words and never ends on a hanging particle', () => {
    expect(clip('秋冬换季护肤的小烦恼', 9)).toBe('秋冬换季护肤的小烦');
    expect(clipWords('秋冬换季护肤的小烦恼', 9)).toBe('秋冬换季护肤');
    expect(clipWords('夏天出门旅行必备的好物', 10)).toBe('夏天出门旅行必备');
    expect(clipWords('补水！保湿！', 5)).toBe('补水！保湿');
  });

  it('cuts English at spaces, never inside a word, and drops the space it ends on', () => {
    expect(clipWords('Hello wonderful world', 12)).toBe('Hello');
    expect(clipWords('Lightweight daily sunscreen for oily skin', 17)).toBe('Lightweight daily');
  });

  it('keeps mixed Latin and Chinese tokens whole, symbols included', () => {
    expect(clip('防晒霜SPF50+清爽不油腻', 7)).toBe('防晒霜SPF5');
    expect(clipWords('防晒霜SPF50+清爽不油腻', 7)).toBe('防晒霜');
    expect(clipWords('防晒霜SPF50+清爽不油腻', 10)).toBe('防晒霜SPF50+');
    expect(clipWords('SPF50+ PA++++ 清爽防晒喷雾', 14)).toBe('SPF50+ PA++++');
    expect(clipWords('品牌｜晚安面膜旗舰款', 3)).toBe('品牌');
  });

  it('counts graphemes, as a reader sees them, and never splits an emoji sequence or a flag', () => {
    const family = '👨‍👩‍👧';
    expect(length(family)).toBe(1);
    expect(length('😮‍💨🇨🇳👍🏻é')).toBe(4);
    expect(length('熬夜党救星！SPF50+')).toBe(12);
    expect(clipWords(`${family}全家出门旅行必备`, 4)).toBe(`${family}全家`);
    expect(clipWords(`👍🏻好物推荐合集`, 3)).toBe('👍🏻好物');
    expect(clipWords(`${family}${family}`, 1)).toBe(family);
    expect(clipWords('秋冬必备😮‍💨🇨🇳好物', 5)).toBe('秋冬必备😮‍💨');
  });

  it('counts as the segmenter does over the whole text, however plain and joining units mix', () => {
    const whole = new Intl.Segmenter('zh', { granularity: 'grapheme' });
    const segmenterCount = (text: string) => [...whole.segment(text)].length;
    // Units counted one each beside others of their kind, and units that join or break otherwise:
    // joiners, selectors, skin tones, flags' halves, combining marks (the CJK tone mark 〪
    // included), Hangul jamo, CR, Indic letters with a virama, lone surrogates.
    const plain = ['a', ' ', '\n', '中', '，', '！', '〰', '©', 'é', '＋', '。'];
    const joining = ['😮', '‍', '💨', '️', '🏻', '🇨', '🇳', '\u0301', '\u302a', '\u302e', 'ᄀ', 'ᅡ', 'ᆨ', '\r', 'क', '्', 'ष', '\ud83d', '\u00ad', '\u200b'];
    const text = fc.array(fc.oneof(fc.constantFrom(...plain), fc.constantFrom(...joining)), { maxLength: 30 }).map((units) => units.join(''));
    const countsAsTheSegmenter = (t: string) => {
      expect(length(t)).toBe(segmenterCount(t));
    };
    fc.assert(fc.property(text, countsAsTheSegmenter), { numRuns: 2000 });
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), countsAsTheSegmenter), { numRuns: 2000 });
    expect(length('中\u302a')).toBe(1);
    expect(length('换季皮肤干到起皮真的崩溃😭😭\n质地清爽不黏腻💧✨')).toBe(24);
    expect(length('换季皮肤干到起皮真的崩溃😭\r\n质地清爽不黏腻💧')).toBe(22);
  });

  it('counts only characters that no break rule joins to another of the kind without the segmenter', () => {
    // No rule joins two such characters when each breaks from itself, from a letter on either
    // side and from a following line feed: what joins is a mark or joiner after anything, a
    // prefix before anything, two flag halves, Hangul jamo with each other, and CR with LF.
    const whole = new Intl.Segmenter('zh', { granularity: 'grapheme' });
    const count = (text: string) => [...whole.segment(text)].length;
    const alone = new RegExp(`^[${STANDS_ALONE}]$`, 'u');
    const joined: string[] = [];
    let checked = 0;
    for (let cp = 0; cp <= 0x1ffff; cp++) {
      const c = String.fromCodePoint(cp);
      if (!alone.test(c)) continue;
      checked += 1;
      if (count(c + c) !== 2 || count(`a${c}`) !== 2 || count(`${c}a`) !== 2 || count(`${c}\n`) !== 2) joined.push(cp.toString(16));
    }
    expect(joined).toEqual([]);
    expect(checked).toBeGreaterThan(30_000);
  });

  it('cuts a single word longer than the limit between whole characters', () => {
    expect(clipWords('Supercalifragilisticexpialidocious', 10)).toBe('Supercalif');
    expect(clipWords('Supercalifragilistic is long', 10)).toBe('Supercalif');
    expect(clipWords('的的的的的的', 3)).toBe('的的的');
  });

  it('leaves text that fits alone apart from trimming, and adds no ellipsis', () => {
    expect(clipWords('  熬夜急救  ', 14)).toBe('熬夜急救');
    expect(clipWords('晚安面膜', 4)).toBe('晚安面膜');
    expect(clipWords('晚安面膜深层补水', 6)).not.toMatch(/…|\.\.\./);
  });

  it('always returns a prefix of the trimmed text within the limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 1, max: 20 }), (text, max) => {
        const out = clipWords(text, max);
        expect(length(out)).toBeLessThanOrEqual(max);
        expect(text.trim().startsWith(out)).toBe(true);
      }),
    );
  });
});

describe('storyboard overlays', () => {
  it('never draw a cut line: a long cover title becomes a whole phrase, a long caption is left out', () => {
    const frames = buildStoryboard({
      strategy: 'B',
      imageCount: 3,
      note: {
        title: '油皮夏天｜轻薄防晒霜推荐',
        cover_title: '油皮夏天也能用的轻薄防晒霜推荐',
        image_brief: '海边',
        angle_label: '油皮',
        image_plan: [
          { role: 'hook', brief: '海边', caption: '' },
          { role: 'proof', brief: '质地', caption: '全家出门旅行必备的好物清单推荐' },
          { role: 'convert', brief: '收尾', caption: '出门前抹一层' },
        ],
      },
      productName: '氨基酸温和洁面乳敏感肌专用大容量装',
      sellingPoints: ['全家出门旅行必备的好物清单推荐'],
      theme: '油皮夏天也能用的轻薄防晒霜推荐',
      matcher: compileBannedWords([]),
    });
    expect(frames.map((f) => [f.role, f.overlay?.text ?? null])).toEqual([
      ['hook', '油皮夏天｜轻薄防晒霜推荐'],
      ['proof', null],
      ['convert', '出门前抹一层'],
    ]);
  });
});
