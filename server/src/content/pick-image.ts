/**
 * Which product image suits a storyboard role (used by image generation as the reference
 * image). Each image carries a free-text `scene` label; a role matches scenes containing one of
 * its keywords (Chinese or English, case-insensitive):
 *
 * | role    | meaning in the storyboard     | scene keywords                                                        |
 * | ------- | ----------------------------- | --------------------------------------------------------------------- |
 * | hook    | cover, first glance           | 封面 首图 主图 氛围 场景 生活 模特 cover hero lifestyle scene mood model |
 * | pain    | the problem before            | 痛点 问题 困扰 使用前 before problem pain                              |
 * | proof   | effect, evidence, comparison  | 效果 对比 前后 实测 测评 使用后 after result comparison proof test review |
 * | quality | texture, detail, material     | 细节 质感 特写 材质 成分 做工 detail close texture material ingredient macro |
 * | credit  | trust: certificates, brand    | 证书 资质 认证 检测 报告 包装 品牌 专利 certificate award report packaging brand patent |
 * | convert | the offer, what you get       | 价格 优惠 套装 组合 全家福 赠品 购买 price offer bundle set gift buy     |
 * | main    | the product itself            | 主图 正面 白底 产品 单品 main front white product packshot             |
 *
 * English keywords match at the start of a word (`sets` matches `set`, `sunset` does not).
 * The image with the most keyword matches comes first (ties: the primary, then the oldest). When
 * no scene matches, the primary image comes first; with no primary, the oldest.
 */
export type StoryboardRole = 'hook' | 'pain' | 'proof' | 'quality' | 'credit' | 'convert' | 'main';

export const ROLE_SCENE_KEYWORDS: Record<StoryboardRole, readonly string[]> = {
  hook: ['封面', '首图', '主图', '氛围', '场景', '生活', '模特', 'cover', 'hero', 'lifestyle', 'scene', 'mood', 'model'],
  pain: ['痛点', '问题', '困扰', '使用前', 'before', 'problem', 'pain'],
  proof: ['效果', '对比', '前后', '实测', '测评', '使用后', 'after', 'result', 'comparison', 'proof', 'test', 'review'],
  quality: ['细节', '质感', '特写', '材质', '成分', '做工', 'detail', 'close', 'texture', 'material', 'ingredient', 'macro'],
  credit: ['证书', '资质', '认证', '检测', '报告', '包装', '品牌', '专利', 'certificate', 'award', 'report', 'packaging', 'brand', 'patent'],
  convert: ['价格', '优惠', '套装', '组合', '全家福', '赠品', '购买', 'price', 'offer', 'bundle', 'set', 'gift', 'buy'],
  main: ['主图', '正面', '白底', '产品', '单品', 'main', 'front', 'white', 'product', 'packshot'],
};

export interface PickableImage {
  id: number;
  scene: string;
  is_primary: boolean;
}

const KEYWORD_MATCHERS = Object.fromEntries(
  Object.entries(ROLE_SCENE_KEYWORDS).map(([role, keywords]) => [
    role,
    keywords.map((k) => {
      if (!/^[a-z]+$/.test(k)) return (scene: string) => scene.includes(k);
      const wordStart = new RegExp(`(^|[^a-z])${k}`);
      return (scene: string) => wordStart.test(scene);
    }),
  ]),
) as Record<StoryboardRole, Array<(scene: string) => boolean>>;

/**
 * Up to `max` product images for the image model (0 where it takes none): the role's best
 * first, then the others in the same order of preference (Seedream and Qwen image editing take
 * several).
 */
export function pickProductImages<T extends PickableImage>(images: readonly T[], role: StoryboardRole, max: number): T[] {
  const matchers = KEYWORD_MATCHERS[role];
  const rank = (image: T) => {
    const scene = image.scene.toLowerCase();
    return matchers.reduce((n, matches) => (matches(scene) ? n + 1 : n), 0);
  };
  // Stable: equal ranks keep primary-then-oldest order.
  const ordered = [...images].sort((a, b) => Number(b.is_primary) - Number(a.is_primary) || a.id - b.id);
  const ranks = new Map(ordered.map((image) => [image, rank(image)]));
  return ordered.sort((a, b) => ranks.get(b)! - ranks.get(a)!).slice(0, Math.max(0, max));
}
