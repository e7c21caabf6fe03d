import { Type } from 'typebox';
import { avoidSection, benchmarkSection, dataBlock, IMAGE_PLAN_ITEM, NOTE_FIELDS, productSection, strategyRules, SYSTEM, teamSection } from './prompts.js';
import { ImagePlanItemSchema, NoteSchema, type ImagePlanItem, STRATEGIES, type ImageRole, type Note, type NotesIntentInput, type StrategyCode, type JsonSchemaSpec, memoizedSpec } from './schemas.js';
import { STRATEGY_GUIDES } from './strategies.js';
import { storyboardRoles } from './storyboard.js';

/**
 * The one structured call of a fission (contract rule 1): its input, its prompt and the reply
 * schema holding all N note packages. Shared with the offline provider, which answers the
 * `fission` intent from this input.
 */

export const REFERENCE_LEVELS = ['low', 'mid', 'high'] as const;
export type ReferenceLevel = (typeof REFERENCE_LEVELS)[number];

/** Images per set when the source task asked for none: a note package always has images. */
export const DEFAULT_IMAGES_PER_SET = 3;
export const MAX_IMAGES_PER_SET = 9;

/** How closely the new notes follow the source, told to the model word for word. */
export const REFERENCE_GUIDANCE: Record<ReferenceLevel, string> = {
  low: '参考程度：低。源笔记只用来了解产品事实。每个笔记包都换新的角度、新的开头钩子、新的正文结构和新的配图故事；不能让人认出源笔记的句子、标题公式或段落顺序。',
  mid: '参考程度：中。保留源笔记的话题和它有效的地方，但每个笔记包要明显改变角度或结构（二选一），用全新的文字；不要复用句子。',
  high: '参考程度：高。保留源笔记的结构（标题公式、段落顺序、卖点顺序）和配图角色的顺序；每一句都重新写，配图换新的画面；不要照抄任何一句。',
};

export interface FissionSource {
  strategy: StrategyCode | null;
  angle_label: string;
  title: string;
  content: string;
  tags: string[];
  /** Roles of the source set's images, by seq. */
  image_roles: ImageRole[];
}

export interface FissionPackagePlan {
  seq: number;
  strategy: StrategyCode;
  strategy_name: string;
  image_roles: ImageRole[];
}

/** Input of the `fission` intent: what the prompt says, as data. */
export interface FissionIntentInput {
  /** Stable per fission, so `local` answers the same on a re-run. */
  seed: string;
  count: number;
  reference_level: ReferenceLevel;
  product: NotesIntentInput['product'];
  theme: string;
  benchmarks: NotesIntentInput['benchmarks'];
  preferences: NotesIntentInput['preferences'];
  avoid_words: string[];
  account?: NotesIntentInput['account'];
  source: FissionSource;
  packages: FissionPackagePlan[];
}


const PackageSchema = Type.Object(
  {
    dimension: Type.String({ description: 'what distinguishes this package from the source and the others, 2-12 characters, e.g. 通勤场景 or 成分解析' }),
    ...NoteSchema.properties,
    image_plan: Type.Array(ImagePlanItemSchema),
  },
  { additionalProperties: false },
);

export interface FissionPackage extends Note {
  dimension: string;
  image_plan: ImagePlanItem[];
}

export interface FissionReply {
  packages: FissionPackage[];
}

/** Exactly `count` packages, each with exactly `images` planned images. */
export const fissionReplySchema = memoizedSpec((count: number, images: number): JsonSchemaSpec => {
  const pkg = { ...PackageSchema, properties: { ...PackageSchema.properties, image_plan: Type.Array(ImagePlanItemSchema, { minItems: images, maxItems: images }) } };
  return {
    name: 'fission',
    schema: Type.Object({ packages: Type.Array(pkg, { minItems: count, maxItems: count }) }, { additionalProperties: false }) as unknown as Record<string, unknown>,
  };
});

/**
 * The strategy each set is written in. High keeps the source's; mid starts from it and rotates;
 * low starts from the next one, so even a single package leaves the source's way of persuading.
 */
export function packageStrategies(level: ReferenceLevel, source: StrategyCode | null, count: number): StrategyCode[] {
  const start = STRATEGIES.indexOf(source ?? 'A');
  if (level === 'high') return Array.from({ length: count }, () => STRATEGIES[start]!);
  const offset = level === 'low' ? 1 : 0;
  return Array.from({ length: count }, (_, i) => STRATEGIES[(start + offset + i) % STRATEGIES.length]!);
}

/** Image roles of each set: at level high the source's own board (when it has one), else the strategy's storyboard. */
export function packageImageRoles(level: ReferenceLevel, strategy: StrategyCode, source: FissionSource, imagesPerSet: number): ImageRole[] {
  if (level === 'high' && source.image_roles.length > 0) return source.image_roles.slice(0, MAX_IMAGES_PER_SET);
  return storyboardRoles(strategy, imagesPerSet);
}

function sourceSection(source: FissionSource): string {
  return [
    `源笔记（写法 ${source.strategy ?? '-'}，角度 ${source.angle_label || '-'}）：`,
    `标题：${source.title}`,
    source.content,
    `标签：${source.tags.join(' ') || '（无）'}`,
    `配图角色：${source.image_roles.join(', ') || '（无配图）'}`,
  ].join('\n');
}

/** System and user prompt of the fission call. */
export function fissionPrompt(input: FissionIntentInput): { system: string; prompt: string } {
  const packages = input.packages.map((p) => {
    const guide = STRATEGY_GUIDES[p.strategy];
    return [
      `笔记包 ${p.seq}：写法 ${guide.code} ${guide.name}。${guide.purpose}`,
      strategyRules(p.strategy),
      `image_plan：正好 ${p.image_roles.length} 张图，角色依次为：${p.image_roles.join(', ')}`,
    ].join('\n');
  });
  const plural = input.count > 1;
  const prompt = [
    `裂变：把下面的源笔记改写成 ${input.count} 个完整、可直接发布的笔记包，产品不变。`,
    REFERENCE_GUIDANCE[input.reference_level],
    plural ? '各个笔记包之间的角度（dimension）、开头和配图故事也要互不相同。' : '',
    '',
    teamSection(input, null),
    '',
    dataBlock([`今日主题：${input.theme}`, sourceSection(input.source), productSection(input), benchmarkSection(input)]),
    '',
    ...packages,
    '',
    avoidSection(input.avoid_words),
    `输出 {"packages": [...]}，按上面的顺序正好 ${input.count} 个；每个包含：`,
    '- dimension：2-12 个字，说明这个包和源笔记及其他包的区别（角度、场景或人群）',
    NOTE_FIELDS,
    `- image_plan：上面列出的每张图依次一项 ${IMAGE_PLAN_ITEM}`,
  ].filter((line, i, all) => line !== '' || (i > 0 && all[i - 1] !== ''));
  return { system: SYSTEM, prompt: prompt.join('\n') };
}
