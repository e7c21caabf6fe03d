import { Type } from 'typebox';
import { benchmarkSection, bullet, dataBlock, preferenceSection, productSection, SYSTEM } from './prompts.js';
import { IMAGE_ROLES, NoteSchema, STRATEGIES, type ImageRole, type Note, type NotesIntentInput, type StrategyCode, type JsonSchemaSpec } from './schemas.js';
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
  low: 'Reference level LOW: use the source only for product facts. Every package takes a new angle, a new opening hook, a new body structure and a new image story; no sentence, title formula or paragraph order of the source may be recognisable.',
  mid: 'Reference level MID: keep the source\'s topic and what made it work, but each package changes the angle or the structure (one or the other, clearly) and is written in fresh words; do not reuse sentences.',
  high: 'Reference level HIGH: keep the source\'s structure (title formula, paragraph order, selling-point order) and its image roles in the same order; write every sentence anew with fresh wording and new image scenes; never copy a sentence.',
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
  source: FissionSource;
  packages: FissionPackagePlan[];
}

const ImagePlanItem = Type.Object(
  {
    role: Type.Enum(IMAGE_ROLES, { description: 'storyboard role, exactly as listed for this package' }),
    brief: Type.String({ description: 'what this image shows (scene, subject, mood), without any text in the image' }),
  },
  { additionalProperties: false },
);

const PackageSchema = Type.Object(
  {
    dimension: Type.String({ description: 'what distinguishes this package from the source and the others, 2-12 characters, e.g. 通勤场景 or 成分解析' }),
    ...NoteSchema.properties,
    image_plan: Type.Array(ImagePlanItem),
  },
  { additionalProperties: false },
);

export interface FissionPackage extends Note {
  dimension: string;
  image_plan: Array<{ role: ImageRole; brief: string }>;
}

export interface FissionReply {
  packages: FissionPackage[];
}

/** Exactly `count` packages, each with exactly `images` planned images. */
export function fissionReplySchema(count: number, images: number): JsonSchemaSpec {
  const pkg = { ...PackageSchema, properties: { ...PackageSchema.properties, image_plan: Type.Array(ImagePlanItem, { minItems: images, maxItems: images }) } };
  return {
    name: 'fission',
    schema: Type.Object({ packages: Type.Array(pkg, { minItems: count, maxItems: count }) }, { additionalProperties: false }) as unknown as Record<string, unknown>,
  };
}

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
    `Source note (strategy ${source.strategy ?? '-'}, angle ${source.angle_label || '-'}):`,
    `Title: ${source.title}`,
    source.content,
    `Tags: ${source.tags.join(' ') || '(none)'}`,
    `Image roles: ${source.image_roles.join(', ') || '(no images)'}`,
  ].join('\n');
}

/** System and user prompt of the fission call. */
export function fissionPrompt(input: FissionIntentInput): { system: string; prompt: string } {
  const packages = input.packages.map((p) => {
    const guide = STRATEGY_GUIDES[p.strategy];
    return [
      `Package ${p.seq}: strategy ${guide.code} ${guide.name}. Title formula: ${guide.titleFormula}`,
      bullet(guide.guidance),
      `image_plan: exactly ${p.image_roles.length} images with these roles in this order: ${p.image_roles.join(', ')}`,
    ].join('\n');
  });
  const prompt = [
    `Fission: turn the source note below into ${input.count} complete, publishable note package${input.count > 1 ? 's' : ''} for the same product.`,
    REFERENCE_GUIDANCE[input.reference_level],
    input.count > 1 ? 'The packages must differ from each other in angle (dimension), opening and image story.' : '',
    '',
    dataBlock([`Theme of the day: ${input.theme}`, sourceSection(input.source), productSection(input), benchmarkSection(input), preferenceSection(input)]),
    '',
    ...packages,
    '',
    input.avoid_words.length > 0 ? `Never use these words: ${input.avoid_words.join('、')}` : '',
    `Reply as {"packages": [...]} with exactly ${input.count} package${input.count > 1 ? 's' : ''} in the order above; each package has:`,
    '- dimension: 2-12 characters naming what distinguishes this package (its angle, scene or audience)',
    '- angle_label: 2-8 characters naming its angle',
    '- title: at most 20 characters, may include one emoji',
    '- content: 200-600 characters, line breaks between short paragraphs, 3-8 emoji, ends with a question or call to comment',
    '- tags: 5-10 topic tags without #',
    '- cover_title: at most 12 characters, the headline drawn on the cover image',
    '- image_brief: one or two sentences on the look of all images of this package; the photos contain no text',
    '- image_plan: the images listed for the package, each {role, brief}; brief describes that one photo, without any text in it',
  ].filter((line, i, all) => line !== '' || all[i - 1] !== '');
  return { system: SYSTEM, prompt: prompt.join('\n') };
}
