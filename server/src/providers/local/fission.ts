import type { ImageRole } from '../../content/schemas.js';
import type { FissionIntentInput, FissionReply } from '../../content/fission.js';
import { composeNote } from './notes.js';

/** Chinese shot descriptions per storyboard role, for the offline image plan. */
const SHOTS: Record<ImageRole, string> = {
  main: '产品正面主图，干净背景，主体居中',
  hook: '吸睛封面：产品在真实场景中的氛围大图，上方留白',
  pain: '使用前的小烦恼场景，人物情绪真实',
  proof: '产品质地、规格或真实使用中的手部特写（不做使用前后对比）',
  quality: '材质与细节微距特写',
  credit: '真实手持或包装细节，可信的测评氛围',
  convert: '整洁好看的产品收尾图，留出呼吸感',
};

/** Lines printed on the images: short copy a reader understands, never an internal label. */
const CAPTIONS: Record<Exclude<ImageRole, 'hook' | 'main'>, string> = {
  pain: '你是不是也这样？',
  proof: '细节都在这里',
  quality: '近看质感',
  credit: '真实上手分享',
  convert: '按需入手就好',
};

/** What each package leans on, so the sets differ even where the strategy repeats (N > 3). */
const FOCUS = ['真实体验', '细节实测', '生活场景', '人群痛点', '对比种草'];

/** The fission pipeline's input (other shapes under kind `fission` are filled from their schema). */
export function isFissionInput(input: unknown): input is FissionIntentInput {
  const given = input as Partial<FissionIntentInput> | null;
  return typeof given === 'object' && given !== null && Array.isArray(given.packages) && typeof given.source === 'object' && given.source !== null && typeof given.product === 'object';
}

/**
 * The offline answer to a `fission` intent: one composed note per planned package, in the
 * package's strategy voice, with a distinct focus per package and the planned image roles.
 * At reference level high every package keeps the source's tags first, as its structure.
 */
export function composeFission(input: FissionIntentInput): FissionReply {
  return {
    packages: input.packages.map((plan, i) => {
      const note = composeNote(
        {
          strategy: plan.strategy,
          strategy_name: plan.strategy_name,
          count: input.count,
          seed: `${input.seed}/set/${plan.seq}`,
          product: input.product,
          theme: input.theme,
          benchmarks: input.benchmarks,
          preferences: input.preferences,
          avoid_words: input.avoid_words,
        },
        { index: i },
      );
      const sourceTags = input.source.tags.filter((t) => !input.avoid_words.some((w) => w && t.includes(w)));
      const tags = input.reference_level === 'high' ? [...new Set([...sourceTags, ...note.tags])].slice(0, 10) : note.tags;
      return {
        ...note,
        tags,
        dimension: `${plan.strategy_name}·${FOCUS[i % FOCUS.length]}`,
        image_plan: plan.image_roles.map((role) => ({
          role,
          brief: `${SHOTS[role]}（${note.angle_label}）`,
          caption: role === 'hook' || role === 'main' ? note.cover_title : CAPTIONS[role],
        })),
      };
    }),
  };
}
