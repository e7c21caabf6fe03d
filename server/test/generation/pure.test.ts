import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileBannedWords } from '../../src/content/banned-words.js';
import { NotesDeltaExtractor } from '../../src/content/deltas.js';
import { checkNote, evaluateNote, hitsByField, noteDocument } from '../../src/content/evaluate.js';
import { fromJudge, heuristicScore, normaliseScore, PASS_LINE, realClaims, SCORE_MAX, verdictFor } from '../../src/content/scoring.js';
import { buildStoryboard, NEGATIVE_PROMPT, storyboardRoles, type StoryboardFrame } from '../../src/content/storyboard.js';
import { imageStrategies, slotsByStrategy, strategyOfSlot } from '../../src/content/strategies.js';
import { STRATEGIES } from '../../src/content/schemas.js';

const NO_WORDS = compileBannedWords([]);
const DIMENSIONS = ['title', 'emotion', 'selling', 'keyword', 'compliance'] as const;

function expectValidScore(score: Record<string, number>) {
  for (const d of DIMENSIONS) {
    expect(Number.isInteger(score[d])).toBe(true);
    expect(score[d]).toBeGreaterThanOrEqual(0);
    expect(score[d]).toBeLessThanOrEqual(SCORE_MAX[d]);
  }
  expect(score.total).toBe(DIMENSIONS.reduce((sum, d) => sum + score[d]!, 0));
  expect(score.total).toBeLessThanOrEqual(100);
}


/** The line a frame letters (its highlight and kept phrases are tested in test/providers/covers.test.ts). */
const line = (f: StoryboardFrame) => f.overlay && { kind: f.overlay.kind, text: f.overlay.text };

describe('round-robin spread (contract-decisions §6)', () => {
  it('spreads text_count over A, B, C by slot', () => {
    const counts = (n: number) => Object.fromEntries(slotsByStrategy(n).map((s) => [s.strategy, s.slots.length]));
    expect(counts(1)).toEqual({ A: 1 });
    expect(counts(2)).toEqual({ A: 1, B: 1 });
    expect(counts(3)).toEqual({ A: 1, B: 1, C: 1 });
    expect(counts(7)).toEqual({ A: 3, B: 2, C: 2 });
    expect(slotsByStrategy(7).find((s) => s.strategy === 'A')!.slots).toEqual([0, 3, 6]);
    expect([0, 1, 2, 3, 4].map(strategyOfSlot)).toEqual(['A', 'B', 'C', 'A', 'B']);
  });

  it('gives images to min(3, text_count) sets', () => {
    expect(imageStrategies(1)).toEqual(['A']);
    expect(imageStrategies(2)).toEqual(['A', 'B']);
    expect(imageStrategies(30)).toEqual(['A', 'B', 'C']);
  });
});

describe('storyboard roles for image_count 0..9', () => {
  const ORDER = ['hook', 'pain', 'proof', 'quality', 'credit', 'convert'];
  for (const strategy of STRATEGIES) {
    it(`strategy ${strategy}`, () => {
      expect(storyboardRoles(strategy, 0)).toEqual([]);
      expect(storyboardRoles(strategy, 1)).toEqual(['main']);
      for (let n = 2; n <= 9; n++) {
        const roles = storyboardRoles(strategy, n);
        expect(roles).toHaveLength(n);
        expect(roles[0]).toBe('hook');
        expect(roles[n - 1]).toBe('convert');
        expect(roles).not.toContain('main');
        // Narrative order is kept, and every one of the six roles appears from six images on.
        const positions = roles.map((r) => ORDER.indexOf(r));
        expect([...positions].sort((a, b) => a - b)).toEqual(positions);
        if (n >= 6) expect(new Set(roles)).toEqual(new Set(ORDER));
      }
    });
  }

  it('differs by strategy emphasis', () => {
    expect(storyboardRoles('A', 3)).toEqual(['hook', 'pain', 'convert']);
    expect(storyboardRoles('B', 3)).toEqual(['hook', 'proof', 'convert']);
    expect(storyboardRoles('C', 3)).toEqual(['hook', 'quality', 'convert']);
    expect(storyboardRoles('B', 6)).toEqual(['hook', 'pain', 'proof', 'quality', 'credit', 'convert']);
  });

  it('frames carry seq from 1, the cover title on the cover, the plan\'s shot and its caption written as copy', () => {
    const frames = buildStoryboard({
      strategy: 'A',
      imageCount: 4,
      note: {
        title: '熬夜党的救星',
        cover_title: '熬夜脸救星',
        image_brief: '同一个女生，深夜书桌前',
        angle_label: '熬夜急救',
        image_plan: [
          { role: 'hook', brief: '台灯下的女生拿着面膜', caption: '随便' },
          { role: 'pain', brief: '凌晨一点揉眼睛', caption: '熬到凌晨脸发干？' },
          { role: 'proof', brief: '啫喱质地挑在指尖', caption: '痛点 ·' },
          { role: 'convert', brief: '面膜摆在床头', caption: '睡前最后一步就它' },
        ],
      },
      productName: '晚安面膜',
      productCategory: '护肤',
      sellingPoints: ['玻尿酸深层补水'],
      theme: '换季护肤',
      matcher: NO_WORDS,
    });
    expect(frames.map((f) => [f.seq, f.role])).toEqual([[1, 'hook'], [2, 'pain'], [3, 'proof'], [4, 'convert']]);
    expect(frames.map(line)).toEqual([
      { kind: 'cover', text: '熬夜脸救星' },
      { kind: 'caption', text: '熬到凌晨脸发干？' },
      // An internal label is never printed.
      null,
      { kind: 'caption', text: '睡前最后一步就它' },
    ]);
    // Each frame its own shot and framing; the set's look and the product in words on every one.
    expect(new Set(frames.map((f) => f.brief)).size).toBe(4);
    expect(frames[1]!.brief).toContain('Shot: 凌晨一点揉眼睛.');
    for (const f of frames) {
      expect(f.brief).toContain('同一个女生，深夜书桌前');
      expect(f.brief).toContain('Product: 晚安面膜 (护肤).');
    }
    expect(frames[2]!.brief).toContain('never a before/after comparison');
    expect(buildStoryboard({ strategy: 'C', imageCount: 1, note: null, productName: 'P', sellingPoints: [], theme: '露营', matcher: NO_WORDS })[0]).toMatchObject({ seq: 1, role: 'main', overlay: { kind: 'cover', text: '露营' } });
  });

  it('without a plan there are no captions: no selling point, product name or angle label is printed', () => {
    const frames = buildStoryboard({
      strategy: 'B',
      imageCount: 4,
      note: { title: '晚安面膜真实用后感', cover_title: '真实用后感', image_brief: '浴室', angle_label: '熬夜急救' },
      productName: '晚安面膜',
      sellingPoints: ['玻尿酸深层补水'],
      theme: '换季护肤',
      matcher: NO_WORDS,
    });
    expect(frames.map(line)).toEqual([{ kind: 'cover', text: '真实用后感' }, null, null, null]);
  });

  it('what the model wrote for the pictures is held to the banned words: captions dropped, shots left out, cover titles not drawn', () => {
    const matcher = compileBannedWords([
      { word: '医用级', level: 'hard_block', replacement: null },
      { word: '微信', level: 'hard_block', replacement: null },
      { word: '最', level: 'soft_warn', replacement: null },
      { word: '最佳', level: 'auto_fix', replacement: '优秀' },
    ]);
    const board = (coverTitle: string) =>
      buildStoryboard({
        strategy: 'B',
        imageCount: 6,
        note: {
          title: '敏感肌面霜真实用后感',
          cover_title: coverTitle,
          image_brief: '浴室，加微信看更多',
          angle_label: '修护',
          image_plan: [
            { role: 'hook', brief: '[hook] 面霜放在洗手台', caption: '' },
            { role: 'pain', brief: '[pain] 換季臉發紅的早晨', caption: '医用级修护才安心' },
            { role: 'proof', brief: '对比拼图：使用前后肌肤状态', caption: '加 微 信领小样' },
            { role: 'quality', brief: '[quality] 医用级质地特写', caption: '最温和的质地' },
            { role: 'credit', brief: '[credit] 手拿面霜', caption: '最佳搭档' },
            { role: 'convert', brief: 'split-screen before and after', caption: '睡前抹一层' },
          ],
        },
        productName: '云朵面霜',
        sellingPoints: [],
        theme: '敏感肌',
        matcher,
      });
    const frames = board('医用级修护面霜');
    // Lettered only where nothing is left to break: auto-fix applied, a warning or a block drops the line.
    expect(frames.map(line)).toEqual([null, null, null, null, { kind: 'caption', text: '优秀搭档' }, { kind: 'caption', text: '睡前抹一层' }]);
    // A before/after, split-screen or blocked shot is left out: the frame's role direction stands alone.
    expect(frames[1]!.brief).toContain('Shot: [pain]');
    for (const i of [2, 3, 5]) expect(frames[i]!.brief).not.toContain('Shot:');
    for (const f of frames) {
      expect(f.brief).not.toMatch(/使用前后|before and after|医用级|微信/);
      // The set look broke a word: the neutral look from the theme replaces it.
      expect(f.brief).toContain('a real everyday scene for 敏感肌');
    }
    expect(line(board('温和不刺激')[0]!)).toEqual({ kind: 'cover', text: '温和不刺激' });
  });

  it('the negative prompt names garbled lettering, fabricated efficacy evidence and deformations, within DashScope’s 500 characters', () => {
    for (const word of ['乱码文字', '水印', 'logo', '使用前后对比', '医疗或临床场景', '多余的手指或肢体']) expect(NEGATIVE_PROMPT).toContain(word);
    expect([...NEGATIVE_PROMPT].length).toBeLessThanOrEqual(500);
  });
});

describe('scoring', () => {
  const scoreInput = fc.record({
    title: fc.string({ maxLength: 40 }),
    content: fc.string({ maxLength: 800 }),
    tags: fc.array(fc.string({ maxLength: 12 }), { maxLength: 12 }),
    productName: fc.string({ maxLength: 20 }),
    sellingPoints: fc.array(fc.string({ maxLength: 20 }), { maxLength: 6 }),
    theme: fc.string({ maxLength: 20 }),
    bannedHits: fc.array(fc.record({ level: fc.constantFrom('soft_warn' as const, 'hard_block' as const) }), { maxLength: 5 }),
  });

  it('heuristic scores are integers within their maxima and the total is their sum', () => {
    fc.assert(
      fc.property(scoreInput, (input) => {
        const { score, verdict } = heuristicScore(input);
        expectValidScore(score as unknown as Record<string, number>);
        expect(verdict).toBe(verdictFor(score.total));
      }),
      { numRuns: 500 },
    );
  });

  it('holds on Chinese-looking texts too', () => {
    const zh = fc.string({ unit: fc.constantFrom(...'我爱这款面膜真的绝了补水熬夜救星！？😀✨1234 \n#'.split('')), maxLength: 600 });
    fc.assert(
      fc.property(zh, zh, fc.array(zh, { maxLength: 4 }), (title, content, points) => {
        expectValidScore(heuristicScore({ title, content, tags: [], productName: '面膜', sellingPoints: points, theme: '补水', bannedHits: [] }).score as unknown as Record<string, number>);
      }),
      { numRuns: 300 },
    );
  });

  it('judge replies are clamped, summed, and never exceed the checked compliance', () => {
    const anyNumber = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ noNaN: false }));
    fc.assert(
      fc.property(scoreInput, fc.record({ title: anyNumber, emotion: anyNumber, selling: anyNumber, keyword: anyNumber, compliance: anyNumber }), (input, raw) => {
        const heuristic = heuristicScore(input);
        const judged = fromJudge({ index: 0, summary: ' ok ', issues: [], unsupported_claims: [], ...raw }, heuristic, input.bannedHits);
        expectValidScore(judged.score as unknown as Record<string, number>);
        expect(judged.score.compliance).toBeLessThanOrEqual(heuristic.score.compliance);
        expect(judged.verdict).toBe(verdictFor(judged.score.total));
      }),
      { numRuns: 500 },
    );
  });

  it('rewards a well-made note over an empty one, and the pass line is 80', () => {
    const good = heuristicScore({
      title: '熬夜党救星｜7天补水绝了✨',
      content:
        '换季皮肤干到起皮真的崩溃😭\n试了晚安面膜，玻尿酸深层补水，第二天起来脸超级舒服！\n质地清爽不黏腻，敷完直接睡，懒人也能坚持💧\n温和无刺激，敏感肌也安心～\n你们换季护肤有什么烦恼？评论区聊聊🥰',
      tags: ['换季护肤', '补水面膜', '晚安面膜', '熬夜急救', '敏感肌'],
      productName: '晚安面膜',
      sellingPoints: ['玻尿酸深层补水', '质地清爽不黏腻', '温和无刺激'],
      theme: '换季护肤',
      bannedHits: [],
    });
    const empty = heuristicScore({ title: '', content: '', tags: [], productName: '晚安面膜', sellingPoints: ['补水'], theme: '换季', bannedHits: [] });
    expect(good.score.total).toBeGreaterThanOrEqual(PASS_LINE);
    expect(good.verdict).toBe('通过');
    expect(empty.score.total).toBeLessThan(20);
    expect(normaliseScore({ title: 30, emotion: -2, selling: 12.6 })).toEqual({ title: 25, emotion: 0, selling: 13, keyword: 0, compliance: 0, total: 38 });
  });

  it('never rewards an emotion word the workspace bans (治愈 under the medical-claim list)', () => {
    const input = { title: '周末小记', content: '这支香薰很治愈，闻着开心。', tags: [], productName: '香薰', sellingPoints: [], theme: '周末', bannedHits: [] };
    const free = heuristicScore(input).score.emotion;
    const banned = heuristicScore({ ...input, bannedHits: [{ level: 'hard_block' as const, word: '治愈' }] }).score.emotion;
    // 开心 keeps its 3 points; 治愈's 3 go.
    expect(free - banned).toBe(3);
  });

  it('a judge answering "无" or "none" names no claim, and closes no gate (contract-decisions §9)', () => {
    expect(realClaims(['无', ' none ', '没有。', 'N/A', '—', '', '暂无'])).toEqual([]);
    expect(realClaims(['无明显刺激', '7天淡纹'])).toEqual(['无明显刺激', '7天淡纹']);
    const input = { title: '熬夜党救星｜7天补水绝了✨', content: '玻尿酸补水，质地清爽不黏腻，敏感肌也安心～真的开心😀', tags: ['补水'], productName: '面膜', sellingPoints: ['玻尿酸补水'], theme: '补水', bannedHits: [] };
    const judge = { index: 0, summary: '整体自然真实，可以发布', issues: [], title: 24, emotion: 23, selling: 23, keyword: 18, compliance: 5 };
    const heuristic = heuristicScore(input);
    const clean = fromJudge({ ...judge, unsupported_claims: ['无'] }, heuristic);
    expect(clean.score.total).toBe(24 + 23 + 23 + 18 + Math.min(5, heuristic.score.compliance));
    expect(clean.summary).toBe('整体自然真实，可以发布');
    const flagged = fromJudge({ ...judge, unsupported_claims: ['7天淡纹'] }, heuristic);
    expect(flagged.score.total).toBeLessThan(PASS_LINE);
    expect(flagged.summary).toContain('7天淡纹');
  });
});

describe('streamed note text', () => {
  it('extracts each note content however the JSON is chunked', () => {
    const notes = fc.array(
      fc.record({ angle_label: fc.string(), title: fc.string(), content: fc.string({ unit: 'grapheme', maxLength: 80 }), tags: fc.array(fc.string(), { maxLength: 3 }), cover_title: fc.string(), image_brief: fc.string() }),
      { minLength: 1, maxLength: 3 },
    );
    fc.assert(
      fc.property(notes, fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }), fc.boolean(), (list, cuts, pretty) => {
        const text = JSON.stringify({ notes: list }, null, pretty ? 2 : undefined);
        const got = new Map<number, string>();
        const extractor = new NotesDeltaExtractor((i, d) => got.set(i, (got.get(i) ?? '') + d));
        let at = 0;
        for (let k = 0; at < text.length; k++) {
          const size = cuts[k % cuts.length]!;
          extractor.push(text.slice(at, at + size));
          at += size;
        }
        list.forEach((note, i) => expect(got.get(i) ?? '').toBe(note.content));
        expect([...got.keys()].every((i) => i < list.length)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('banned words on a note', () => {
  const matcher = compileBannedWords([
    { word: '超级', level: 'auto_fix', replacement: '很' },
    { word: '懒人', level: 'soft_warn', replacement: null },
    { word: '根治', level: 'hard_block', replacement: null },
  ]);

  it('fixes, flags and locates hits in every published part', () => {
    const checked = checkNote(matcher, { title: '超级好用', content: '懒人必备，能根治干皮', tags: ['护肤', '超级推荐'], cover_title: '根治干皮' });
    expect(checked.note).toEqual({ title: '很好用', content: '懒人必备，能根治干皮', tags: ['护肤', '很推荐'], cover_title: '根治干皮' });
    expect(checked.status).toBe('hard_block');
    const doc = noteDocument(checked.note);
    expect(checked.hits.map((h) => [h.word, h.level, doc.slice(h.start, h.end)])).toEqual([
      ['懒人', 'soft_warn', '懒人'],
      ['根治', 'hard_block', '根治'],
      ['根治', 'hard_block', '根治'],
    ]);
  });

  it('places stored hits in the part they are in, with offsets into that part', () => {
    const note = { title: '懒人面霜', content: '真的能根治', tags: ['护肤', '懒人'], cover_title: '根治' };
    // The document is 懒人面霜\n真的能根治\n护肤 懒人\n根治: title 0-4, content 5-10, tags 11-13 and 14-16, cover 17-19.
    const stored = [
      { word: '懒人', level: 'soft_warn' as const, start: 0, end: 2 },
      { word: '根治', level: 'hard_block' as const, start: 8, end: 10 },
      { word: '懒人', level: 'soft_warn' as const, start: 14, end: 16 },
      { word: '根治', level: 'hard_block' as const, start: 17, end: 19 },
    ];
    expect(hitsByField(note, stored)).toEqual([
      { field: 'title', tag_index: null, start: 0, end: 2, word: '懒人', level: 'soft_warn' },
      { field: 'content', tag_index: null, start: 3, end: 5, word: '根治', level: 'hard_block' },
      { field: 'tags', tag_index: 1, start: 0, end: 2, word: '懒人', level: 'soft_warn' },
      { field: 'cover_title', tag_index: null, start: 0, end: 2, word: '根治', level: 'hard_block' },
    ]);
    // Without tags the document still has their (empty) line: 根治\n好\n\n根治, the cover at 6-8.
    expect(hitsByField({ title: '根治', content: '好', tags: [], cover_title: '根治' }, [{ word: '根治', level: 'hard_block', start: 6, end: 8 }])).toEqual([
      { field: 'cover_title', tag_index: null, start: 0, end: 2, word: '根治', level: 'hard_block' },
    ]);
    // What checkNote stores lands on the words it found.
    const checked = checkNote(matcher, note);
    const placed = hitsByField(checked.note, checked.hits);
    const textOf = (h: (typeof placed)[number]) => (h.field === 'tags' ? checked.note.tags[h.tag_index!]! : checked.note[h.field]).slice(h.start, h.end);
    expect(placed.map(textOf)).toEqual(['懒人', '根治', '懒人', '根治']);
  });

  it('takes the most severe status over the parts', () => {
    expect(checkNote(matcher, { title: 't', content: 'c', tags: [], cover_title: 'x' }).status).toBe('pass');
    expect(checkNote(matcher, { title: '超级', content: 'c', tags: [], cover_title: 'x' }).status).toBe('auto_fixed');
    expect(checkNote(matcher, { title: '超级', content: 'c', tags: ['懒人'], cover_title: 'x' }).status).toBe('soft_warn');
    const evaluated = evaluateNote(matcher, { title: '根治', content: '根治', tags: [], cover_title: '' }, { productName: 'p', sellingPoints: [], theme: 't' });
    expect(evaluated.status).toBe('hard_block');
    expect(evaluated.scored.score.compliance).toBe(0);
  });
});
