import type { FissionIntentInput, FissionReply } from '../../content/fission.js';
import { composeNote } from './notes.js';
import { imagePlan } from './plan.js';

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
        image_plan: imagePlan(plan.image_roles, note),
      };
    }),
  };
}
