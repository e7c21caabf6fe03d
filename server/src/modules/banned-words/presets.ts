import type { BannedLevel } from '../../db/schema.js';

export interface BannedPreset {
  name: string;
  title: string;
  description: string;
  words: Array<{ word: string; level: BannedLevel; replacement?: string }>;
}

const hard = (...words: string[]) => words.map((word) => ({ word, level: 'hard_block' as const }));
const warn = (...words: string[]) => words.map((word) => ({ word, level: 'soft_warn' as const }));
const fix = (pairs: Record<string, string>) =>
  Object.entries(pairs).map(([word, replacement]) => ({ word, level: 'auto_fix' as const, replacement }));

/**
 * Built-in word lists a supervisor imports in one call. `ad-law` follows Article 9(3) of the
 * PRC Advertising Law (no "national-level", "highest-level", "best" or similar absolute terms)
 * and the market regulators' common lists of extreme words; `health-claims` covers the medical
 * and efficacy claims ordinary goods and cosmetics may not make. Clear violations block; words
 * with a harmless everyday sense (最, 首发) only warn; superlatives with a neutral paraphrase are
 * rewritten. Imported words are `updatable: false`: only an admin may weaken the legal baseline.
 */
export const BANNED_PRESETS: BannedPreset[] = [
  {
    name: 'ad-law',
    title: '广告法极限词',
    description: 'Absolute and superlative claims forbidden by the Advertising Law (最, 第一, 顶级, 国家级, 100% …)',
    words: [
      ...hard(
        '国家级', '世界级', '最高级', '最高级别', '全网第一', '销量第一', '排名第一', '全国第一', '世界第一',
        '行业第一', '第一品牌', 'NO.1', 'TOP1', '唯一', '独一无二', '绝无仅有', '史无前例', '万能', '100%',
        '百分之百', '顶级', '顶尖', '极品', '至尊', '王牌', '领袖品牌', '国家免检', '质量免检', '特供', '专供',
        '老字号', '驰名商标', '零风险', '无效退款', '永不反弹', '绝对', '终极', '全球首发', '全国首家',
      ),
      ...warn('最', '第一', '首个', '首选', '首发', '独家', '史上', '空前', '绝后', '必买', '必备', '秒杀', '抢疯', '限时', '仅此一次'),
      ...fix({
        '最好': '很好',
        '最佳': '优秀',
        '最优': '优秀',
        '最强': '很强',
        '最便宜': '实惠',
        '最低价': '优惠价',
        '最受欢迎': '很受欢迎',
        '最舒服': '很舒服',
        '完美': '出色',
        '无敌': '超赞',
      }),
    ],
  },
  {
    name: 'health-claims',
    title: '医疗功效用语',
    description: 'Medical and efficacy claims ordinary goods and cosmetics may not make (治疗, 根治, 药用 …)',
    words: [
      ...hard(
        '治疗', '根治', '治愈', '疗效', '药用', '处方', '抗癌', '防癌', '消炎', '杀菌', '除菌', '抗菌',
        '无副作用', '无毒', '祛斑', '祛痘', '除皱', '激素', '医用级', '药妆', '排毒', '溶脂', '减肥', '瘦身',
      ),
      ...warn('修复', '再生', '激活', '敏感肌专用', '孕妇可用', '婴儿可用', '纯天然', '零添加'),
      ...fix({ '美白': '提亮', '速效': '快速见效', '立竿见影': '效果明显' }),
    ],
  },
];

export function findPreset(name: string): BannedPreset | undefined {
  return BANNED_PRESETS.find((p) => p.name === name);
}
