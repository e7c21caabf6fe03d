import { STRATEGIES, type ImageRole, type StrategyCode } from './schemas.js';

/**
 * The three strategy sets. Each is a different way of persuading, not a variation in wording:
 * the guidance, the title formula and the storyboard emphasis all change with it.
 */
export interface Strategy {
  code: StrategyCode;
  name: string;
  /** What the texts of this set do, told to the model (Chinese, like every writer prompt). */
  guidance: string[];
  titleFormula: string;
  /** One short worked example of the set's way of writing: facts only from the product profile, no promised effect. */
  example: { title: string; opening: string };
  /** Middle storyboard roles in order of importance (hook opens and convert closes every board). */
  emphasis: Array<Exclude<ImageRole, 'hook' | 'convert' | 'main'>>;
  /** Visual direction of the set's images (image models read English best). */
  visualStyle: string;
}

export const STRATEGY_GUIDES: Record<StrategyCode, Strategy> = {
  A: {
    code: 'A',
    name: '痛点共鸣',
    guidance: [
      '开头用第一人称写一个目标读者真实会遇到的具体困扰（时间、场景、感受），不要泛泛地说"烦恼"。',
      '说清楚常见做法为什么不够用，再自然地引出产品；每个卖点对应一个困扰，写成使用时的感受。',
      '结尾落在"现在轻松了"的状态，用一个真诚的问题邀请读者聊聊自己的情况。',
    ],
    titleFormula: '具体痛点 + 转变（例：「熬夜后脸发干｜换季我靠它稳住」）',
    example: {
      title: '换季脸干起皮｜我的睡前补水步骤',
      opening: '每年一到换季，我的脸颊就干到上妆卡粉，早上洗完脸都紧绷绷的。试过厚涂面霜，结果闷得难受……',
    },
    emphasis: ['pain', 'proof', 'quality', 'credit'],
    visualStyle: 'emotional and relatable, soft natural light, a real person in an everyday moment that shows the problem, then calm relief',
  },
  B: {
    code: 'B',
    name: '实测种草',
    guidance: [
      '写成亲手使用后的体验分享：怎么用、在什么情况下用、用起来的具体感受和细节。',
      '只写产品资料里有的参数、成分、规格；没有给出的数字、天数、检测结果、对比数据一律不写，也不要编"用了28天"之类的经历数字。',
      '卖点写成可以被看见、摸到的证据（质地、规格、做工、使用步骤），并诚实地说一个小缺点或不适合的人群。',
    ],
    titleFormula: '产品/品类词 + 真实体验结论（例：「晚安面膜用后感｜质地和肤感都说清楚」）',
    example: {
      title: '晚安面膜真实用后感｜优缺点都说',
      opening: '这瓶晚安面膜我是睡前最后一步用的，先说质地：挖出来是透明啫喱，推开很快就化成水……',
    },
    emphasis: ['proof', 'credit', 'quality', 'pain'],
    visualStyle: 'clean hands-on review look, close-ups of texture, packaging and specification details, neutral background, honest lighting',
  },
  C: {
    code: 'C',
    name: '场景生活',
    guidance: [
      '描绘一个具体的生活场景（什么时候、在哪里、和谁、什么心情），让读者想身处其中。',
      '产品自然地出现在场景里，卖点化成场景中的一个个瞬间，不要列清单。',
      '语气向往但可实现，结尾写这样生活的感觉，并问读者会怎么安排自己的场景。',
    ],
    titleFormula: '场景 + 感受（例：「周末露营｜随手一拍都是氛围感」）',
    example: {
      title: '周末野餐｜这样装包轻松又好看',
      opening: '周六下午两点，草地上铺开格子布，我把保温杯和两个三明治往篮子里一放，出门只用五分钟……',
    },
    emphasis: ['quality', 'pain', 'proof', 'credit'],
    visualStyle: 'lifestyle photography, the product in use in a styled real-life scene, warm aspirational but attainable atmosphere',
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
