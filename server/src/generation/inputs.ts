import type { AppContext } from '../context.js';
import type { Row } from '../db/schema.js';
import { allWords } from '../modules/banned-words/repository.js';
import { bannedWordMatcherFor } from '../modules/banned-words/service.js';
import { preferenceContextForGeneration } from '../modules/preferences/service.js';
import { productImagesForGeneration } from '../modules/products/service.js';
import type { BannedWordMatcher } from './banned-words.js';
import type { GenerationInputs } from './prompts.js';
import * as repo from './repository.js';

/** Words listed in a prompt at most: the matcher still checks every word of the library. */
const MAX_AVOID_WORDS = 200;

export interface LoadedInputs {
  inputs: GenerationInputs;
  matcher: BannedWordMatcher;
  productImages: Awaited<ReturnType<typeof productImagesForGeneration>>;
}

/**
 * Everything one generation reads, in the task's workspace. The preference context comes from
 * its per-generation snapshot, so a resumed run prompts exactly as the first attempt did and
 * reuses its paid results.
 */
export async function loadGenerationInputs(
  ctx: AppContext,
  task: Row<'tasks'>,
  generation: number,
  product: Row<'products'>,
): Promise<LoadedInputs> {
  const ws = task.workspace_id;
  const [benchmarks, preferences, matcher, words, productImages] = await Promise.all([
    repo.findBenchmarks(ctx.db, ws, product.id, task.benchmark_ids),
    preferenceContextForGeneration(ctx, { id: task.id, workspaceId: ws, productId: product.id, generation }),
    bannedWordMatcherFor(ctx, ws),
    allWords(ctx.db, ws),
    productImagesForGeneration(ctx, ws, product.id),
  ]);
  return {
    inputs: {
      taskId: task.id,
      generation,
      theme: task.theme,
      product: {
        name: product.name,
        category: product.category,
        selling_points: product.selling_points,
        style_tone: product.style_tone,
        text_angles: product.text_angles,
        custom_prompt: product.custom_prompt,
      },
      benchmarks: benchmarks.map((b) => ({ highlights: b.highlights, features: b.features })),
      preferences,
      // Hard blocks first: if the list is cut, the words that would block a text stay in it.
      avoidWords: words
        .filter((w) => w.level !== 'auto_fix')
        .sort((a, b) => Number(b.level === 'hard_block') - Number(a.level === 'hard_block') || a.word.localeCompare(b.word))
        .slice(0, MAX_AVOID_WORDS)
        .map((w) => w.word),
    },
    matcher,
    productImages,
  };
}
