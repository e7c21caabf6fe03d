import { describe, expect, it } from 'vitest';
import type { NotesIntentInput, StrategyCode } from '../../src/content/schemas.js';
import { length } from '../../src/content/text.js';
import { composeNotes } from '../../src/providers/local/notes.js';

/**
 * The offline writer over sample products × themes (issue 14 item 7): every text is checked
 * against the defects seen in its earlier output. Template-based writing is fine; a slot that
 * yields a broken or non-compliant sentence is not.
 */
const PRODUCTS: Array<NotesIntentInput['product']> = [
  { name: '晚安冻膜', category: '护肤', selling_points: ['玻尿酸补水', '免洗'], style_tone: '活泼亲切，像闺蜜安利的感觉', text_angles: ['熬夜党', '懒人护肤'], custom_prompt: null },
  { name: '316不锈钢保温杯 500ml', category: '家居', selling_points: ['一键开盖', '杯身轻'], style_tone: null, text_angles: ['宿舍党', '通勤'], custom_prompt: null },
  { name: '城市轻量双肩包', category: '箱包', selling_points: ['可放14寸电脑'], style_tone: '干净利落', text_angles: [], custom_prompt: null },
];
const THEMES = ['周末野餐带什么一杯咖啡和零食', '换季护肤', '开学季', '最近的通勤日常'];
const AVOID = ['最', '第一', '根治'];

/** The defects of the earlier output, each as a pattern no sentence may match. */
const DEFECTS: Array<[string, RegExp]> = [
  ['angle label used as a pain point', /终于不再|告别(熬夜党|宿舍党|通勤|懒人)/u],
  ['tone field pasted verbatim', /整体是.*的感觉/u],
  ['everyday word scrubbed', /(?<![最])近的|^近/u],
  ['invented number of days or findings', /\d+天|\d+个(真相|变化|重点)/u],
  ['before/after promise', /前后对比|一周回到/u],
  ['placeholder left over', /[{}]|undefined|null/u],
  ['doubled punctuation', /[，。！？]{2}|的的/u],
];

describe('local demo provider writes grammatical, compliant Chinese', () => {
  it('no slot of any sample product × theme produces a known defect', () => {
    let checked = 0;
    for (const product of PRODUCTS) {
      for (const theme of THEMES) {
        for (const strategy of ['A', 'B', 'C'] as StrategyCode[]) {
          const input: NotesIntentInput = {
            strategy, strategy_name: strategy, count: 3, seed: `${product.name}/${theme}/${strategy}`, product, theme, benchmarks: [],
            preferences: { recent_preference: '', reject_reasons: [], style_examples: [] }, avoid_words: AVOID, image_roles: ['hook', 'pain', 'convert'],
          };
          for (const note of composeNotes(input).notes) {
            const sentences = [note.title, note.cover_title, ...note.content.split(/\n+/), ...note.image_plan.map((p) => p.caption)].filter(Boolean);
            for (const sentence of sentences) {
              for (const [defect, pattern] of DEFECTS) expect(pattern.test(sentence), `${defect}: ${sentence}`).toBe(false);
              checked += 1;
            }
            expect(length(note.title)).toBeLessThanOrEqual(20);
            expect(length(note.cover_title)).toBeLessThanOrEqual(12);
            // A theme tag is the whole theme or absent, never a cut one.
            for (const tag of note.tags) expect(theme.startsWith(tag) && tag !== theme && tag.length > 4, `cut theme tag: ${tag}`).toBe(false);
            expect(note.content).toContain(theme.includes('最近') ? '最近' : '');
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
  });
});
