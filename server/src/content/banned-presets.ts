import type { BannedLevel } from './banned-words.js';

export interface BannedPreset {
  name: string;
  title: string;
  /** In Chinese, with the rule each list follows (shown in the console). */
  description: string;
  /** Part of the legal baseline every workspace starts with (contract-decisions §9). */
  baseline: boolean;
  /** Words that do not apply to a product of this kind (the medical claims, to medical products). */
  exempt?: (category: string) => boolean;
  words: Array<{ word: string; level: BannedLevel; replacement?: string }>;
}

/**
 * Medicines and medical devices may make the claims other products may not (Advertising Law
 * art. 16–17 regulate rather than forbid them); their categories name what they are.
 */
export function isMedicalCategory(category: string): boolean {
  return /药|医疗器械|医疗用品|处方|诊疗|医院|诊所/.test(category);
}

const hard = (...words: string[]) => words.map((word) => ({ word, level: 'hard_block' as const }));
const warn = (...words: string[]) => words.map((word) => ({ word, level: 'soft_warn' as const }));
const fix = (pairs: Record<string, string>) =>
  Object.entries(pairs).map(([word, replacement]) => ({ word, level: 'auto_fix' as const, replacement }));

/**
 * Built-in word lists a supervisor imports in one call; docs/content.md lists each rule's source.
 * Clear violations block; words with a harmless everyday sense (最, 首发, 私信) only warn; a word
 * is auto-fixed only where the replacement reads as a drop-in and makes no claim itself (最佳 →
 * 优秀), never into another claim (速效 is blocked, not turned into 快速见效), and never where
 * the everyday sense is common (最好提前 is advice, so 最好 warns). The matcher already spares
 * everyday words (最近, 第一次: content/banned-words.ts EVERYDAY_WORDS). Imported words are
 * `updatable: false`: only an admin may weaken the legal baseline. The baseline lists (absolute
 * claims, medical claims, diversion) are active in every workspace from its first minute.
 */
export const BANNED_PRESETS: BannedPreset[] = [
  {
    name: 'ad-law',
    baseline: true,
    title: '广告法极限词',
    description: '《广告法》第九条第（三）项禁止使用"国家级""最高级""最佳"等用语，以及市场监管部门常见的极限词清单（最、第一、顶级、100%……）。',
    words: [
      ...hard(
        '国家级', '世界级', '最高级', '最高级别', '全网第一', '销量第一', '排名第一', '全国第一', '世界第一',
        '行业第一', '第一品牌', 'NO.1', 'TOP1', '唯一', '独一无二', '绝无仅有', '史无前例', '万能', '100%',
        '百分之百', '顶级', '顶尖', '极品', '至尊', '王牌', '领袖品牌', '国家免检', '质量免检', '特供', '专供',
        '老字号', '驰名商标', '零风险', '无效退款', '永不反弹', '绝对', '终极', '全球首发', '全国首家', '全网最',
      ),
      ...warn('最', '第一', '首个', '首选', '首发', '独家', '史上', '空前', '绝后', '必买', '必备', '秒杀', '抢疯', '限时', '仅此一次', '最好', '完美'),
      ...fix({
        '最佳': '优秀',
        '最优': '优秀',
        '最强': '很强',
        '最低价': '优惠价',
        '最受欢迎': '很受欢迎',
        '最舒服': '很舒服',
        '无敌': '超赞',
      }),
    ],
  },
  {
    name: 'health-claims',
    baseline: true,
    exempt: isMedicalCategory,
    title: '医疗与功效宣称',
    description:
      '《广告法》第十七条（非医疗、药品、医疗器械广告不得涉及疾病治疗功能、不得使用医疗用语）、第十八条与第二十八条（功效、安全性的断言或保证）；《化妆品监督管理条例》第三十七条（不得明示或暗示医疗作用）与第十六条（祛斑美白、防脱发等属特殊化妆品，须注册后方可宣称）；普通食品不得宣称保健或疾病预防治疗功能（《食品安全法》第七十一条、第七十三条）。',
    words: [
      ...hard(
        '治疗', '根治', '治愈', '疗效', '药用', '处方', '抗癌', '防癌', '消炎', '杀菌', '除菌', '抗菌', '抗病毒',
        '无副作用', '无毒', '祛斑', '淡斑', '祛痘', '除皱', '去皱', '抗皱', '抗衰老', '逆龄', '冻龄', '激素', '医用级',
        '医学护肤', '药妆', '排毒', '溶脂', '减肥', '瘦身', '燃脂', '丰胸', '增高', '壮阳', '生发', '防脱', '防脱发',
        '育发', '降血糖', '降血压', '降血脂', '降三高', '增强免疫力', '提高免疫力', '抗过敏', '脱敏', '速效', '立竿见影',
        '一次见效', '药到病除', '包治',
      ),
      ...warn('修复', '再生', '激活', '敏感肌专用', '孕妇可用', '婴儿可用', '纯天然', '零添加', '美白', '预防', '养生', '调理'),
    ],
  },
  {
    name: 'xhs-diversion',
    baseline: true,
    title: '小红书站外引流',
    description:
      '《小红书社区公约》与社区规范禁止站外引流：笔记中不得留联系方式（微信、QQ、手机号）、二维码、外部链接，不得引导到其他平台交易。明确的引流词拦截，单独提到平台名称或"私信"只提示。',
    words: [
      ...hard(
        '微信', '薇信', '威信', 'V信', 'VX', 'WX', '加V', '加微', '微信号', 'QQ号', '扣扣', '手机号', '二维码', '扫码',
        '进群', '加群', '私我', '私信我', '滴滴我', '戳我主页', '主页链接', '淘口令', '口令', '复制链接', '链接在评论区', '拼团链接',
      ),
      ...warn('加我', '私信', '私聊', '链接', '淘宝', '天猫', '京东', '拼多多', '抖音', '快手', '闲鱼', '公众号', '小程序', '直播间', '下单', '购买链接', '官网'),
    ],
  },
  {
    name: 'xhs-inducement',
    baseline: false,
    title: '小红书诱导互动',
    description:
      '《小红书社区公约》禁止诱导点赞、关注、评论、收藏、转发，以及以利益诱导好评（《电子商务法》第十七条、《反不正当竞争法》第八条禁止"好评返现"类虚构或诱导评价）。',
    words: [
      ...hard(
        '评论区扣1', '扣1', '扣666', '好评返现', '晒图返现', '返现', '集赞', '点赞抽奖', '转发抽奖', '关注抽奖', '评论抽奖', '抽奖',
        '关注领取', '关注送', '点赞送', '免费送', '0元购', '零元购', '转发锦鲤',
      ),
      ...warn('求关注', '求点赞', '点赞关注', '一键三连', '关注我', '记得点赞', '点个赞', '评论区见'),
    ],
  },
];

export function findPreset(name: string): BannedPreset | undefined {
  return BANNED_PRESETS.find((p) => p.name === name);
}

export const LEGAL_BASELINE: BannedPreset[] = BANNED_PRESETS.filter((p) => p.baseline);
