import { STRATEGIES, type ImageRole, type StrategyCode } from './schemas.js';

/**
 * The three strategy sets. Each is a different way of persuading, not a variation in wording:
 * the guidance, the title formula and the storyboard emphasis all change with it.
 */
export interface Strategy {
  code: StrategyCode;
  name: string;
  /** What the texts of this set do, told to the model. */
  guidance: string[];
  titleFormula: string;
  /** Middle storyboard roles in order of importance (hook opens and convert closes every board). */
  emphasis: Array<Exclude<ImageRole, 'hook' | 'convert' | 'main'>>;
  /** Visual direction added to every image prompt of the set. */
  visualStyle: string;
}

export const STRATEGY_GUIDES: Record<StrategyCode, Strategy> = {
  A: {
    code: 'A',
    name: '痛点共鸣',
    guidance: [
      'Open with a concrete, relatable frustration of the target reader in the first person ("我也曾…").',
      'Name the pain precisely, show why the usual fixes fail, then present the product as the turn.',
      'Every selling point answers one pain; end with relief and an invitation to comment.',
    ],
    titleFormula: '痛点 + 转折/结果 (e.g. 「熬夜脸救星｜一周回到素颜自信」)',
    emphasis: ['pain', 'proof', 'quality', 'credit'],
    visualStyle: 'emotional before/after mood, soft natural light, a person in a real everyday moment',
  },
  B: {
    code: 'B',
    name: '实测种草',
    guidance: [
      'Write as a hands-on review: what was tested, for how long, under which conditions.',
      'Give numbers, comparisons and specific observations; credit honest drawbacks to stay credible.',
      'Selling points appear as evidence (test result, ingredient, spec), never as bare claims.',
    ],
    titleFormula: '数字/实测 + 结论 (e.g. 「实测28天｜3个变化太明显」)',
    emphasis: ['proof', 'credit', 'quality', 'pain'],
    visualStyle: 'clean product-review look, close-ups of texture and details, neutral background, comparison layouts',
  },
  C: {
    code: 'C',
    name: '场景生活',
    guidance: [
      'Paint one specific scene of daily life (time, place, mood) the reader wants to be in.',
      'The product fits naturally into the scene; selling points show up as moments, not lists.',
      'Aspirational but attainable tone; end with how it feels to live that way.',
    ],
    titleFormula: '场景 + 感受 (e.g. 「周末露营｜随手一拍都是氛围感」)',
    emphasis: ['quality', 'pain', 'proof', 'credit'],
    visualStyle: 'lifestyle photography, the product in use in a styled real-life scene, warm aspirational atmosphere',
  },
};

/**
 * contract-decisions §6: text_count texts spread round-robin over A, B, C. Slot i (the position
 * inside a generation) belongs to strategy i mod 3, so 7 gives A slots 0, 3, 6; B 1, 4; C 2, 5.
 */
export function strategyOfSlot(slot: number): StrategyCode {
  return STRATEGIES[slot % STRATEGIES.length]!;
}

export function slotsByStrategy(textCount: number): Array<{ strategy: StrategyCode; slots: number[] }> {
  return STRATEGIES.map((strategy, i) => ({
    strategy,
    slots: Array.from({ length: textCount }, (_, slot) => slot).filter((slot) => slot % STRATEGIES.length === i),
  })).filter((set) => set.slots.length > 0);
}

/** Strategy sets that get images: those with texts, or min(3, text_count) sets on the import track. */
export function imageStrategies(textCount: number): StrategyCode[] {
  return STRATEGIES.slice(0, Math.min(STRATEGIES.length, Math.max(0, textCount)));
}
