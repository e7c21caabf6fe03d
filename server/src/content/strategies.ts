import { STRATEGIES, type ImageRole, type StrategyCode } from './schemas.js';

/**
 * The three strategy sets. Each is a different way of persuading, not a variation in wording: the
 * body's order, the title formulas, the worked example and the pictures' look all change with it.
 * A writer imitates the shape of an example more than any rule, so each set gets its own
 * structure and one complete note written that way (docs/content.md, "What the writer is asked").
 */
export interface Strategy {
  code: StrategyCode;
  name: string;
  /** What the set is for, in one line (Chinese, like every writer prompt). */
  purpose: string;
  /** The body's order, step by step: this set's own skeleton. */
  structure: string[];
  /** Title patterns of this set, each with an example; none is "X｜Y", the shape every set used to share. */
  titleFormulas: string[];
  /**
   * One complete note of the set, about an invented product of another category (its profile
   * given with it), so the writer copies the shape and not the facts; it states only what that
   * profile says.
   */
  example: { profile: string; title: string; cover_title: string; content: string; tags: string[] };
  /** Middle storyboard roles in order of importance (hook opens and convert closes every board). */
  emphasis: Array<Exclude<ImageRole, 'hook' | 'convert' | 'main'>>;
  /**
   * The light, palette and people of the set's pictures (image models read English best). Each
   * frame is drawn by a separate call, so "the same person" must be described, not referred to.
   */
  look: { light: string; palette: string; people: string };
}

export const STRATEGY_GUIDES: Record<StrategyCode, Strategy> = {
  A: {
    code: 'A',
    name: '痛点共鸣',
    purpose: '让目标读者看到自己的困扰，相信这个产品懂他。',
    structure: [
      '开头：第一人称，一个具体时间和地点里的困扰（几点、在哪、什么感受），两三句，不铺垫。',
      '试过的办法：一两个常见做法，以及为什么没用，让读者觉得"我也是"。',
      '转折：产品出场，每个卖点对应上面的一个困扰，写成用的时候的样子。',
      '诚实：一个小缺点，说清楚适合谁、不适合谁。',
      '结尾：问读者自己的处境，不是泛泛的"你们觉得呢"。',
    ],
    titleFormulas: [
      '处境 + 具体困扰 + 怎么办（例：「空调房待一天嘴唇干到起皮怎么办」）',
      '反问戳中困扰（例：「为什么桌上放了水杯还是觉得干？」）',
      '人群 + 困扰 + 我的办法（例：「工位小的打工人，我这样对付干燥」）',
    ],
    example: {
      profile: '桌面加湿器（虚构示例）；卖点：水箱 300ml、两档出雾、USB 供电',
      title: '空调房待一天嘴唇干到起皮怎么办',
      cover_title: '空调房干到起皮？',
      content: [
        '上周连着三天在办公室改方案，空调从早开到晚。下午四点照镜子，嘴唇起了一圈皮，脸颊也绷得发紧，唇膏涂了两次还是干。',
        '我试过在桌上放一杯水，第二天就忘了换；也想过买台大加湿器，可工位只有一臂宽，根本放不下。',
        '后来换了这台桌面加湿器。它比我的水杯高不了多少，USB 插在显示器上就能用，不用再找插座。水箱是 300ml，我早上到公司加满一次。出雾有两档，开会的时候我调回小档。',
        '说个不足：水箱不大，开大档的话下午要再加一次水。想照顾整个办公室的话它不够用；只想让自己这一小块别那么干，刚刚好。',
        '你们的空调房，先干的是嘴唇还是眼睛？',
      ].join('\n\n'),
      tags: ['办公室好物', '空调房', '桌面加湿器', '打工人日常', '嘴唇干', '加湿器推荐'],
    },
    emphasis: ['pain', 'proof', 'quality', 'credit'],
    look: {
      light: 'soft, slightly cool morning daylight from one window',
      palette: 'muted neutrals: off-white, pale grey and a little soft blue',
      people: 'at most one person, a young Chinese adult of the note\'s audience, in the same plain light-grey top with the same hairstyle in every frame; the face mostly out of frame or turned away (hands, shoulders, back)',
    },
  },
  B: {
    code: 'B',
    name: '实测种草',
    purpose: '像认真用过的人一样，把看得见、摸得到的细节和优缺点讲清楚。',
    structure: [
      '开头一句结论：值不值、适合谁，先给答案。',
      '分点实测：用 ①②③ 编号，每点一个小标题加两三句：拿到手的样子和规格、怎么用、用起来的细节；每点只写看得见、摸得到的。',
      '缺点单独一段，至少一句真话。',
      '适合谁、不适合谁，各一句。',
      '结尾问读者还想了解哪一点。',
    ],
    titleFormulas: [
      '品类词 + 实测 + 笔记自己的结构（例：「陶瓷滤杯实测：3个细节说清值不值」）',
      '品类词 + 值不值 + 真实感受（例：「陶瓷滤杯值得买吗？说说我的真实感受」）',
      '品类词 + 优缺点（例：「陶瓷滤杯的优点和缺点，我都写在这了」）',
    ],
    example: {
      profile: '陶瓷手冲滤杯（虚构示例）；卖点：陶瓷材质、1-2 人份、底部单孔',
      title: '陶瓷滤杯实测：3个细节说清值不值',
      cover_title: '滤杯值不值？3点说清',
      content: [
        '先说结论：一个人在家冲咖啡、不想折腾器材的话，这只陶瓷滤杯值得放进购物车；追求出品稳定的老手可以再看看。',
        '① 拿到手的样子\n陶瓷的，拿在手里有分量，架在杯子上很稳。大小是 1-2 人份，我平时冲一杯刚好。',
        '② 怎么用\n折好滤纸放进去，先倒一点热水闷一会儿，再慢慢绕圈注水。底部是单孔，我注水慢一点就好控制。',
        '③ 洗起来\n倒掉滤纸，用水冲一下就好，没有难洗的缝。',
        '缺点也说：陶瓷怕摔，放进水槽的时候要小心；出门带着也不方便。',
        '适合一两个人在家喝、想要简单步骤的人；不适合经常带出门、或一次要冲一大壶的人。',
        '你冲咖啡的时候，更在意味道还是省事？',
      ].join('\n\n'),
      tags: ['手冲咖啡', '陶瓷滤杯', '咖啡器具', '新手手冲', '在家做咖啡', '滤杯测评'],
    },
    emphasis: ['proof', 'credit', 'quality', 'pain'],
    look: {
      light: 'bright, even daylight with soft shadows, like a table by a large window',
      palette: 'white and light wood, the product\'s own colours the only accent',
      people: 'hands only, never a face: the same hands with short natural nails and the same plain white sleeve in every frame',
    },
  },
  C: {
    code: 'C',
    name: '场景生活',
    purpose: '让读者想身处某个具体的生活片刻，产品是这个片刻里自然的一部分。',
    structure: [
      '开头定格一个时刻：星期几、几点、在哪、和谁、什么心情，像日记的第一句。',
      '顺着时间往下写这个片刻，产品在其中一个动作里自然出现，不要列清单。',
      '把一两个卖点写成场景里的细节瞬间：声音、气味、手感或光线。',
      '收在这一刻的感受上，不总结、不喊口号。',
      '结尾问读者会怎么过这样的时刻。',
    ],
    titleFormulas: [
      '时间 + 场景 + 一件小事（例：「下班后的周五晚上，给自己点一支蜡烛」）',
      '场景 + 感受（例：「雨天窝在家的下午，原来可以这么安静」）',
      '人群 + 生活方式（例：「一个人住以后，我开始认真过周末」）',
    ],
    example: {
      profile: '香薰蜡烛（虚构示例）；卖点：木质灯芯（燃烧时有轻微噼啪声）、无花果香调、玻璃杯身',
      title: '下班后的周五晚上，给自己点一支蜡烛',
      cover_title: '周五晚上的一支蜡烛',
      content: [
        '周五晚上八点，进门先把外套挂好，手机扔在沙发另一头。',
        '这几天过得很满，到家什么都不想做。我去厨房烧了壶水，顺手把茶几上那支蜡烛点上。',
        '它是木质灯芯，火苗起来以后有很轻的噼啪声，像一个小小的壁炉。我关掉大灯，只留一盏落地灯，玻璃杯身映着一圈暖黄的光。',
        '无花果的香味是慢慢出来的，混着刚泡好的茶，闻起来有点像夏天傍晚的院子。我窝在沙发上看了半集纪录片，什么也没想。',
        '你下班以后，会给自己留一段什么都不做的时间吗？',
      ].join('\n\n'),
      tags: ['下班后的生活', '香薰蜡烛', '周末仪式感', '独居生活', '居家氛围', '放松时刻'],
    },
    emphasis: ['quality', 'pain', 'proof', 'credit'],
    look: {
      light: 'warm, low evening light and one warm floor lamp',
      palette: 'warm and natural: cream, honey-coloured wood and muted green',
      people: 'at most one person, seen from behind, from the side or at a distance, with the same hairstyle and the same relaxed beige clothes in every frame',
    },
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
