import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { notesReplySchema, scoreReplySpec, type NotesIntentInput, type NotesReply, type ScoreIntentInput, type ScoreReply } from '../../src/content/schemas.js';
import { heuristicScore } from '../../src/content/scoring.js';
import { length } from '../../src/content/text.js';
import { FEATURES_JSON_SCHEMA } from '../../src/modules/benchmarks/features.js';
import { fissionReplySchema, type FissionIntentInput } from '../../src/content/fission.js';
import { LocalProvider } from '../../src/providers/local/index.js';
import { checkAgainst } from '../../src/providers/structured.js';
import { ProviderError, type JsonSchemaSpec, type ProviderIntent } from '../../src/providers/types.js';

const local = new LocalProvider();

function notesInput(overrides: Partial<NotesIntentInput> = {}): NotesIntentInput {
  return {
    strategy: 'A',
    strategy_name: '痛点共鸣',
    count: 3,
    seed: 'task-7/gen-1/A',
    product: {
      name: '云感记忆棉枕头',
      category: '家居',
      selling_points: ['慢回弹记忆棉', '护颈曲线设计', '可拆洗枕套'],
      style_tone: '温柔治愈',
      text_angles: ['睡醒脖子酸', '翻来覆去睡不着'],
      custom_prompt: null,
    },
    theme: '秋冬好眠',
    benchmarks: [{ highlights: '标题带数字，正文分点', features: null }],
    preferences: { recent_preference: '', reject_reasons: [], style_examples: [] },
    avoid_words: [],
    ...overrides,
  };
}

async function notes(input: NotesIntentInput): Promise<NotesReply['notes']> {
  const result = await local.generateText({ system: 's', prompt: 'p', intent: { kind: 'notes', input }, schema: notesReplySchema(input.count) });
  return (result.json as NotesReply).notes;
}

const CJK = /[\u4e00-\u9fff]/gu;
const EMOJI = /\p{Extended_Pictographic}/u;

describe('local provider: notes', () => {
  it.each(['A', 'B', 'C'] as const)('strategy %s writes Chinese notes that fit the schema and the platform', async (strategy) => {
    const input = notesInput({ strategy, seed: `task-7/gen-1/${strategy}` });
    const result = await local.generateText({ system: 's', prompt: 'p', intent: { kind: 'notes', input }, schema: notesReplySchema(3) });
    expect(checkAgainst(notesReplySchema(3), result.json).ok).toBe(true);
    const written = (result.json as NotesReply).notes;
    expect(written).toHaveLength(3);
    for (const note of written) {
      expect(length(note.title)).toBeLessThanOrEqual(20);
      expect(note.title.match(CJK)!.length).toBeGreaterThanOrEqual(4);
      // Mostly Chinese: CJK characters dominate the letters.
      const letters = note.content.replace(/[\s\p{P}\p{S}\d]/gu, '');
      expect(note.content.match(CJK)!.length / [...letters].length).toBeGreaterThan(0.8);
      expect(note.content).toContain('\n');
      expect(note.content).toMatch(EMOJI);
      expect(note.content).toContain('云感记忆棉枕头');
      expect(note.tags.length).toBeGreaterThanOrEqual(5);
      expect(note.tags.length).toBeLessThanOrEqual(10);
      for (const tag of note.tags) expect(tag).not.toMatch(/[#\s]/);
      expect(length(note.cover_title)).toBeLessThanOrEqual(12);
      expect(note.image_brief).toMatch(CJK);
    }
    // Selling points are carried into the body.
    expect(written.every((n) => n.content.includes('护颈曲线设计'))).toBe(true);
  });

  it('is deterministic for the same seed and differs across seeds and strategies', async () => {
    const first = await notes(notesInput());
    expect(await notes(notesInput())).toEqual(first);
    expect(await notes(notesInput({ seed: 'task-8/gen-1/A' }))).not.toEqual(first);
    const b = await notes(notesInput({ strategy: 'B', seed: 'task-7/gen-1/B' }));
    expect(b.map((n) => n.title)).not.toEqual(first.map((n) => n.title));
  });

  it('keeps titles within 20 characters even for long names and themes', async () => {
    const long = notesInput({
      product: { ...notesInput().product, name: '超级无敌加长版豪华限定款智能恒温电热毯双人款', text_angles: ['冬天被窝冷冰冰怎么捂都捂不热'] },
      theme: '寒冷冬季夜晚如何温暖入睡的全攻略',
      count: 6,
    });
    for (const strategy of ['A', 'B', 'C'] as const) {
      for (const note of await notes({ ...long, strategy, seed: `long/${strategy}` })) {
        expect(length(note.title)).toBeLessThanOrEqual(20);
        expect(note.title.length).toBeLessThanOrEqual(20);
      }
    }
  });

  it('never uses the words it is told to avoid', async () => {
    const written = await notes(notesInput({ avoid_words: ['救星', '记忆棉', '好物分享'] }));
    for (const note of written) {
      const all = JSON.stringify(note);
      expect(all).not.toContain('救星');
      expect(all).not.toContain('记忆棉');
      expect(all).not.toContain('好物分享');
    }
  });

  it('uses the preference context: the preferred angle first, a cautious line after rejections', async () => {
    const plain = await notes(notesInput({ count: 1 }));
    const steered = await notes(
      notesInput({ count: 1, preferences: { recent_preference: '最近偏好角度：翻来覆去睡不着', reject_reasons: ['语气太夸张'], style_examples: [] } }),
    );
    expect(plain[0]!.angle_label).toBe('睡醒脖子酸');
    expect(steered[0]!.angle_label).toBe('翻来覆去睡不着');
    expect(steered[0]!.content).toContain('因人而异');
    expect(plain[0]!.content).not.toContain('因人而异');
  });

  it('rewrites a blocked note without the blocked words', async () => {
    const [note] = await notes(notesInput({ count: 1 }));
    const rewritten = await notes(notesInput({ count: 1, rewrite: { note: note!, blocked_words: ['枕头'] } }));
    expect(JSON.stringify(rewritten[0])).not.toContain('枕头');
    expect(rewritten[0]!.tags.length).toBeGreaterThan(0);
  });

  it('streams its reply through onDelta', async () => {
    const deltas: string[] = [];
    const result = await local.generateText({ system: 's', prompt: 'p', intent: { kind: 'notes', input: notesInput() }, schema: notesReplySchema(3), onDelta: (d) => deltas.push(d) });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(result.text);
  });
});

describe('local provider: every intent kind answers exactly the schema it is asked for', () => {
  const scoreInput: ScoreIntentInput = {
    product: { name: '云感记忆棉枕头', selling_points: ['慢回弹记忆棉', '护颈曲线设计'] },
    theme: '秋冬好眠',
    texts: [
      { index: 0, title: '睡醒脖子酸？这个枕头救了我😭', content: '说真的，睡醒脖子酸困扰了我好久😭\n慢回弹记忆棉，护颈曲线设计，睡得踏实多了✨', tags: ['好物分享', '睡眠'] },
      { index: 3, title: '枕头', content: '还行。', tags: [] },
    ],
  };
  const fissionInput: FissionIntentInput = {
    seed: 'fission-9',
    count: 2,
    reference_level: 'mid',
    product: notesInput().product,
    theme: '秋冬好眠',
    benchmarks: [],
    preferences: { recent_preference: '', reject_reasons: [], style_examples: [] },
    avoid_words: [],
    source: { strategy: 'A', angle_label: '睡醒脖子酸', title: '睡醒脖子酸？试试它', content: '正文', tags: ['睡眠', '枕头'], image_roles: ['hook', 'pain', 'convert'] },
    packages: [
      { seq: 1, strategy: 'A', strategy_name: '痛点共鸣', image_roles: ['hook', 'pain', 'convert'] },
      { seq: 2, strategy: 'B', strategy_name: '实测种草', image_roles: ['hook', 'proof', 'convert'] },
    ],
  };
  const imageCheck: JsonSchemaSpec = {
    name: 'image_check',
    schema: { type: 'object', properties: { score: { type: 'integer', minimum: 0, maximum: 100 }, note: { type: 'string' } }, required: ['score', 'note'], additionalProperties: false },
  };
  const cases: Array<[string, ProviderIntent, JsonSchemaSpec]> = [
    ['notes', { kind: 'notes', input: notesInput({ count: 4 }) }, notesReplySchema(4)],
    ['notes (rewrite)', { kind: 'notes', input: notesInput({ count: 1, rewrite: { note: { angle_label: '睡醒脖子酸', title: '最好的枕头', title_options: [], cover_title_options: [], image_plan: [], content: '最好的枕头，没有之一', tags: ['枕头', '睡眠', '好物'], cover_title: '最好', image_brief: '枕头' }, blocked_words: ['最好'] } }) }, notesReplySchema(1)],
    ['score', { kind: 'score', input: scoreInput }, scoreReplySpec],
    ['benchmark-analysis', { kind: 'benchmark-analysis', input: { highlights: '标题带数字', link_url: null, page_title: null, has_image: false } }, { name: 'benchmark_features', schema: FEATURES_JSON_SCHEMA }],
    ['fission', { kind: 'fission', input: fissionInput }, fissionReplySchema(2, 3)],
    ['image-check', { kind: 'image-check', input: { role: 'hook' } }, imageCheck],
    ['free', { kind: 'free', input: { purpose: 'anything' } }, imageCheck],
  ];

  it.each(cases)('%s', async (_name, intent, schema) => {
    const result = await local.generateText({ system: 's', prompt: 'p', intent, schema });
    const checked = checkAgainst(schema, result.json);
    expect(checked.ok ? 'valid' : checked.reason).toBe('valid');
    expect(JSON.parse(result.text)).toEqual(result.json);
  });

  it('scores with the deterministic scorer, in the judge shape (no verdict: it follows from the total)', async () => {
    const result = await local.generateText({ system: 's', prompt: 'p', intent: { kind: 'score', input: scoreInput }, schema: scoreReplySpec });
    const reply = result.json as ScoreReply;
    expect(reply.scores.map((s) => s.index)).toEqual([0, 3]);
    for (const [i, text] of scoreInput.texts.entries()) {
      const expected = heuristicScore({ ...text, productName: scoreInput.product.name, sellingPoints: scoreInput.product.selling_points, theme: scoreInput.theme, bannedHits: [] });
      const { index: _index, summary, issues, unsupported_claims, ...dimensions } = reply.scores[i]!;
      expect([issues, unsupported_claims]).toEqual([[], []]);
      const { total: _total, ...expectedDimensions } = expected.score;
      expect(dimensions).toEqual(expectedDimensions);
      expect(summary).toBe(expected.summary);
      expect(reply.scores[i]).not.toHaveProperty('verdict');
    }
  });

  it('fails like a remote model when its written reply does not fit the requested schema', async () => {
    const stricter: JsonSchemaSpec = { name: 'notes', schema: { ...notesReplySchema(2).schema, required: ['notes', 'extra'] } };
    const error = await local.generateText({ system: 's', prompt: 'p', intent: { kind: 'notes', input: notesInput({ count: 2 }) }, schema: stricter }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('bad_output');
  });
});

describe('local provider: short labels', () => {
  it('clips angle labels between words, never on a hanging particle', async () => {
    const [fromTheme] = await notes(notesInput({ count: 1, theme: '秋冬换季护肤', product: { ...notesInput().product, text_angles: [] } }));
    // Without angles the theme itself is the label, named in 「」 where a sentence uses it (issue 29: no 「X的烦恼」 built from a theme of any shape).
    expect(fromTheme!.angle_label).toBe('秋冬换季护肤');
    const [long] = await notes(notesInput({ count: 1, product: { ...notesInput().product, text_angles: ['冬天被窝冷冰冰怎么捂都捂不热'] } }));
    expect(long!.angle_label).toBe('冬天被窝冷冰冰');
    const [particle] = await notes(notesInput({ count: 1, product: { ...notesInput().product, text_angles: ['熬夜党的黑眼圈问题'] } }));
    expect(particle!.angle_label).toBe('熬夜党的黑眼圈');
  });
});

describe('local provider: other structured replies', () => {
  it('judges texts with integer scores inside the maxima', async () => {
    const [note] = await notes(notesInput({ count: 1 }));
    const result = await local.generateText({
      system: 's',
      prompt: 'p',
      intent: { kind: 'score', input: { product: { name: '云感记忆棉枕头', selling_points: ['慢回弹记忆棉'] }, theme: '秋冬好眠', texts: [{ index: 4, title: note!.title, content: note!.content, tags: note!.tags }] } },
      schema: scoreReplySpec,
    });
    const [score] = (result.json as ScoreReply).scores;
    expect(score!.index).toBe(4);
    expect(checkAgainst(scoreReplySpec, result.json).ok).toBe(true);
    expect(score!.title + score!.emotion + score!.selling + score!.keyword + score!.compliance).toBeGreaterThan(0);
  });

  it('fills any other schema by its field names (e.g. the eight benchmark dimensions)', async () => {
    const dims = ['title_formula', 'opening_hook', 'body_structure', 'selling_point_presentation', 'emotion_tone_emoji', 'target_audience', 'topic_tags', 'visual_pacing'];
    const spec: JsonSchemaSpec = {
      name: 'benchmark_features',
      schema: {
        type: 'object',
        properties: Object.fromEntries(dims.map((d) => [d, d === 'topic_tags' ? { type: 'array', items: { type: 'string' }, minItems: 3, maxItems: 8 } : { type: 'string' }])),
        required: dims,
        additionalProperties: false,
      },
    };
    const result = await local.analyzeImage({ system: 's', prompt: 'p', intent: { kind: 'benchmark-analysis', input: { highlights: '开头提问' } }, schema: spec, images: [] });
    expect(checkAgainst(spec, result.json).ok).toBe(true);
    const features = result.json as Record<string, unknown>;
    expect(String(features.opening_hook)).toMatch(CJK);
    expect(features.title_formula).not.toEqual(features.body_structure);
    const tags = features.topic_tags as string[];
    expect(new Set(tags).size).toBe(tags.length);
  });

  it('produces N complete note packages for a fission plan', async () => {
    const spec: JsonSchemaSpec = {
      name: 'fission',
      schema: {
        type: 'object',
        properties: {
          packages: {
            type: 'array',
            minItems: 4,
            maxItems: 4,
            items: {
              type: 'object',
              properties: {
                dimension: { type: 'string' },
                title: { type: 'string' },
                content: { type: 'string' },
                tags: { type: 'array', items: { type: 'string' } },
                image_plan: { type: 'array', items: { type: 'object', properties: { role: { enum: ['hook', 'proof', 'convert'] }, brief: { type: 'string' } }, required: ['role', 'brief'] } },
              },
              required: ['dimension', 'title', 'content', 'tags', 'image_plan'],
            },
          },
        },
        required: ['packages'],
      },
    };
    const result = await local.generateText({ system: 's', prompt: 'p', intent: { kind: 'fission', input: notesInput({ seed: 'fission-1' }) }, schema: spec });
    expect(checkAgainst(spec, result.json).ok).toBe(true);
    const packages = (result.json as { packages: Array<{ title: string; content: string }> }).packages;
    expect(new Set(packages.map((p) => p.title)).size).toBeGreaterThan(1);
    for (const p of packages) {
      expect([...p.title].length).toBeLessThanOrEqual(20);
      expect(p.content).toContain('云感记忆棉枕头');
    }
  });
});

describe('local provider: images', () => {
  const frame = (role: string, seed: string) => ({
    purpose: 'storyboard-image',
    strategy: 'B',
    role,
    seq: 2,
    seed,
    product_name: '云感记忆棉枕头',
    theme: '秋冬好眠',
    brief: 'x',
    overlay: null,
    has_reference_image: false,
  });

  it('renders a 1080×1440 card, the same bytes for the same seed', async () => {
    const a = await local.generateImage({ prompt: 'p', intent: { kind: 'free', input: frame('proof', 's1') } });
    const again = await local.generateImage({ prompt: 'p', intent: { kind: 'free', input: frame('proof', 's1') } });
    const other = await local.generateImage({ prompt: 'p', intent: { kind: 'free', input: frame('proof', 's2') } });
    expect(a).toMatchObject({ width: 1080, height: 1440, mime: 'image/jpeg' });
    const meta = await sharp(a.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 1080, 1440]);
    expect(again.data.equals(a.data)).toBe(true);
    expect(other.data.equals(a.data)).toBe(false);
  });

  it('composites the product reference image into the card', async () => {
    const reference = await sharp({ create: { width: 600, height: 600, channels: 3, background: '#00c800' } }).jpeg().toBuffer();
    const image = await local.generateImage({ prompt: 'p', intent: { kind: 'free', input: frame('hook', 's3') }, referenceImages: [{ data: reference, mime: 'image/jpeg' }] });
    // The middle of the product frame shows the reference photo's green.
    const { data } = await sharp(image.data).extract({ left: 520, top: 700, width: 40, height: 40 }).raw().toBuffer({ resolveWithObject: true });
    const [r, g, b] = [data[0]!, data[1]!, data[2]!];
    expect(g).toBeGreaterThan(170);
    expect(r).toBeLessThan(60);
    expect(b).toBeLessThan(60);
  });
});
