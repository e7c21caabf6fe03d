import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import type { NewRow, Row, ScoreJson } from '../../db/schema.js';
import type { BannedStatus } from '../../generation/banned-words.js';
import { checkNote, type StoredBannedHit } from '../../generation/evaluate.js';
import { loadGenerationInputs } from '../../generation/inputs.js';
import { imagePrompt } from '../../generation/prompts.js';
import * as genRepo from '../../generation/repository.js';
import { generationOptions } from '../../generation/run.js';
import type { ImageRole, StrategyCode } from '../../generation/schemas.js';
import { PASS_LINE } from '../../generation/scoring.js';
import { generateFrameImage, letterFrameImage, normaliseNote, scoreNotes, viaLedger, type FrameImageRequest } from '../../generation/steps.js';
import { buildStoryboard, type StoryboardFrame } from '../../generation/storyboard.js';
import { STRATEGY_GUIDES } from '../../generation/strategies.js';
import { clip } from '../../generation/text.js';
import type { JobHandler } from '../../jobs/types.js';
import { Semaphore } from '../../providers/reliability.js';
import { ProviderError, type Provider } from '../../providers/types.js';
import { resolveProviderCredentials } from '../api-keys/service.js';
import { pickProductImage } from '../products/pick-image.js';
import { productImagesForGeneration } from '../products/service.js';
import {
  DEFAULT_IMAGES_PER_SET,
  fissionPrompt,
  fissionReplySchema,
  MAX_IMAGES_PER_SET,
  packageImageRoles,
  packageStrategies,
  type FissionIntentInput,
  type FissionReply,
  type FissionSource,
} from './plan.js';
import * as repo from './repository.js';

/**
 * The fission pipeline (jobs `fission.generate` and `fission.retry-images`): one structured
 * call yields every package, each is banned-word checked and scored like a task's text, then
 * the sets are illustrated one after another, each set's images in parallel up to
 * GENERATION_IMAGE_CONCURRENCY. Every step persists before the next and every paid result goes
 * through the provider_calls ledger, so a run after a crash continues where the last one
 * stopped and pays for nothing twice.
 */

const MAX_REASON = 500;

/** An image of a set as stored: what it needs to be made again, and how it came out. */
export interface SetImage {
  seq: number;
  role: ImageRole;
  strategy: StrategyCode;
  /** The full frame direction sent to the image model. */
  brief: string;
  overlay: StoryboardFrame['overlay'];
  file_key?: string;
  mime?: string;
  /** Why the last attempt failed; the marker retry-images looks for. */
  error?: string;
  /** Queued for a retry (the error marker is taken off while it runs). */
  retrying?: boolean;
}

/** The `note` column: the package as published, plus the internal scoring keys (rule 4). */
export interface StoredNote {
  angle_label: string;
  title: string;
  content: string;
  tags: string[];
  cover_title: string;
  image_brief: string;
  image_plan: Array<{ role: ImageRole; brief: string }>;
  _score: ScoreJson & { verdict: string; summary: string };
  _passed: boolean;
  _block: { status: BannedStatus; hits: StoredBannedHit[] };
}

export const HELPER_KEYS = ['_score', '_passed', '_block'] as const;

/** Notes waiting for (or in the middle of) their images; the contract shows only the settled two. */
export const NOTE_PENDING = 'pending';
export const NOTE_DONE = 'image_done';
export const NOTE_FAILED = 'failed';

type FissionRow = repo.FissionRow;
type NoteRow = repo.FissionNoteRow;

/** A reason the fission cannot be produced that another attempt would not change. */
class FissionFailure extends Error {}

function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return clip(message.replace(/\s+/g, ' '), MAX_REASON);
}

const imagesOf = (note: Pick<NoteRow, 'images'>) => note.images as unknown as SetImage[];

/** generating → failed with the reason; a fission already settled is left as it is. */
export async function failFission(ctx: AppContext, fissionId: number, reason: string): Promise<boolean> {
  return repo.updateFissionIf(ctx.db, fissionId, 'generating', { status: 'failed', error: clip(reason, MAX_REASON), updated_at: nowIso(ctx.clock.now()) });
}

/** The key rule 5 names: the source task's recorded key while it exists, else its operator's newest, else the workspace's. */
async function credentialsFor(ctx: AppContext, fission: FissionRow, source: Row<'tasks'>) {
  return resolveProviderCredentials(ctx, {
    workspaceId: fission.workspace_id,
    operatorId: source.operator_id,
    preferredKeyId: fission.api_key_id ?? source.api_key_id,
  });
}

/** The `fission.generate` job. A fission that is no longer generating is left alone (a duplicate or late job). */
export async function runFission(ctx: AppContext, fissionId: number, signal?: AbortSignal): Promise<void> {
  const fission = await repo.findFissionById(ctx.db, fissionId);
  if (!fission || fission.status !== 'generating') return;
  const ws = fission.workspace_id;
  const source = await repo.findSourceTask(ctx.db, ws, fission.source_task_id);
  if (!source) {
    await failFission(ctx, fissionId, 'the source task no longer exists');
    return;
  }
  const creds = await credentialsFor(ctx, fission, source);
  if (!creds) {
    await failFission(ctx, fissionId, 'the workspace has no API key: add one under API keys, then create the fission again');
    return;
  }
  if (fission.api_key_id !== creds.keyId) {
    await repo.updateFissionIf(ctx.db, fissionId, 'generating', { api_key_id: creds.keyId, provider: creds.provider, updated_at: nowIso(ctx.clock.now()) });
  }
  const provider = ctx.providers.forCredentials(creds);

  let notes = await repo.notesOf(ctx.db, ws, fissionId);
  if (notes.length === 0) {
    try {
      await planNotes(ctx, fission, source, provider, signal);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (!(err instanceof FissionFailure || err instanceof ProviderError)) throw err;
      ctx.log.warn({ fissionId, err: describe(err) }, 'fission could not be planned');
      await failFission(ctx, fissionId, err instanceof ProviderError ? `the fission call failed: ${describe(err)}` : describe(err));
      return;
    }
    notes = await repo.notesOf(ctx.db, ws, fissionId);
  }

  const scene = await imageScene(ctx, source);
  const pool = new Semaphore(generationOptions(ctx.config.env).imageConcurrency);
  // Contract rule 2: one set after another; inside a set, images in parallel.
  for (const note of notes) {
    if (signal?.aborted) throw signal.reason;
    if (note.status !== NOTE_PENDING) continue;
    // Elements already settled (made or failed) in an interrupted run stay as they are.
    await illustrate(ctx, provider, fission, note, scene, pool, (image) => !image.file_key && !image.error, signal);
    await settleNote(ctx, note.id, NOTE_PENDING);
  }
  await settleFission(ctx, fission);
}

// ---- plan ------------------------------------------------------------------------------------

/**
 * The source content: its selected text (the best-scored one), else its best text, and the roles
 * of that set's images by seq (the selected ones when any is selected).
 */
async function sourceOf(ctx: AppContext, source: Row<'tasks'>): Promise<FissionSource | undefined> {
  const texts = await repo.sourceTexts(ctx.db, source.workspace_id, source.id);
  const selected = texts.filter((t) => t.is_selected);
  const pool = selected.length > 0 ? selected : texts;
  const best = pool.reduce<(typeof pool)[number] | undefined>((a, b) => (!a || b.score_total > a.score_total || (b.score_total === a.score_total && b.id > a.id) ? b : a), undefined);
  if (!best) return undefined;
  const images = best.strategy ? await repo.sourceImages(ctx.db, source.workspace_id, source.id, best.strategy) : [];
  const chosen = images.some((i) => i.is_selected) ? images.filter((i) => i.is_selected) : images;
  const roles = new Map(chosen.map((i) => [i.seq, i.role]));
  return {
    strategy: best.strategy,
    angle_label: best.angle_label,
    title: best.title,
    content: best.content,
    tags: best.tags,
    image_roles: [...roles].sort(([a], [b]) => a - b).map(([, role]) => role),
  };
}

async function planNotes(ctx: AppContext, fission: FissionRow, source: Row<'tasks'>, provider: Provider, signal?: AbortSignal): Promise<void> {
  const ws = fission.workspace_id;
  const product = await genRepo.findProduct(ctx.db, ws, source.product_id);
  if (!product) throw new FissionFailure('the product of the source task no longer exists');
  const from = await sourceOf(ctx, source);
  if (!from) throw new FissionFailure('the source task has no text to start from');
  const { inputs, matcher } = await loadGenerationInputs(ctx, source, Math.max(source.generation, 1), product);

  const level = fission.reference_level;
  const perSet = Math.min(MAX_IMAGES_PER_SET, source.image_count > 0 ? source.image_count : DEFAULT_IMAGES_PER_SET);
  const packages = packageStrategies(level, from.strategy, fission.fanout_count).map((strategy, i) => ({
    seq: i + 1,
    strategy,
    strategy_name: STRATEGY_GUIDES[strategy].name,
    image_roles: packageImageRoles(level, strategy, from, perSet),
  }));
  const input: FissionIntentInput = {
    seed: `fission:${fission.id}`,
    count: fission.fanout_count,
    reference_level: level,
    product: inputs.product,
    theme: inputs.theme,
    benchmarks: inputs.benchmarks,
    preferences: {
      recent_preference: inputs.preferences.recent_preference,
      reject_reasons: inputs.preferences.reject_reasons,
      style_examples: inputs.preferences.style_examples,
    },
    avoid_words: inputs.avoidWords,
    source: from,
    packages,
  };
  const imageCount = packages[0]!.image_roles.length;
  // Contract rule 1: one call, all N packages, validated against the schema by the provider layer.
  const reply = await viaLedger(ctx, ws, `fission:${fission.id}:plan`, async () => {
    const result = await provider.generateText({
      ...fissionPrompt(input),
      intent: { kind: 'fission', input },
      schema: fissionReplySchema(fission.fanout_count, imageCount),
      signal,
    });
    return result.json as FissionReply;
  });
  if (reply.packages.length < fission.fanout_count) throw new FissionFailure(`the reply held ${reply.packages.length} of ${fission.fanout_count} packages`);

  const drafts = packages.map((plan, i) => {
    const pkg = reply.packages[i]!;
    const note = normaliseNote(pkg, plan.strategy);
    return { plan, pkg, note, checked: checkNote(matcher, note) };
  });
  const subject = { productName: product.name, sellingPoints: product.selling_points, theme: source.theme };
  const scored = await scoreNotes(provider, {
    matcher,
    subject,
    notes: drafts.map((d) => d.checked.note),
    ledger: (call) => viaLedger(ctx, ws, `fission:${fission.id}:score`, call),
    signal,
    onJudgeFailed: (err) => ctx.log.warn({ fissionId: fission.id, err: describe(err) }, 'judge failed; heuristic scores used'),
  });

  const at = nowIso(ctx.clock.now());
  const rows: NewRow<'fission_notes'>[] = drafts.map(({ plan, pkg, note, checked }, i) => {
    const frames = buildStoryboard({
      strategy: plan.strategy,
      imageCount: plan.image_roles.length,
      roles: plan.image_roles,
      note: { ...note, title: checked.note.title, cover_title: checked.note.cover_title },
      productName: product.name,
      sellingPoints: product.selling_points,
      theme: source.theme,
    });
    const shot = (j: number) => clip((pkg.image_plan[j]?.brief ?? '').replace(/\s+/g, ' '), 300);
    const images: SetImage[] = frames.map((frame, j) => ({
      seq: frame.seq,
      role: frame.role,
      strategy: plan.strategy,
      brief: shot(j) ? `${frame.brief} Shot: ${shot(j)}` : frame.brief,
      overlay: frame.overlay,
    }));
    const { score, verdict, summary } = scored[i]!;
    const stored: StoredNote = {
      angle_label: note.angle_label,
      ...checked.note,
      image_brief: note.image_brief,
      image_plan: frames.map((frame, j) => ({ role: frame.role, brief: shot(j) })),
      _score: { ...score, verdict, summary },
      _passed: score.total >= PASS_LINE,
      _block: { status: checked.status, hits: checked.hits },
    };
    return {
      workspace_id: ws,
      fission_id: fission.id,
      seq: plan.seq,
      note: json(stored),
      images: json(images),
      score: score.total,
      passed: score.total >= PASS_LINE,
      needs_optimization: score.total < PASS_LINE,
      dimension: clip(pkg.dimension.replace(/\s+/g, ' '), 20) || plan.strategy_name,
      status: NOTE_PENDING,
      created_at: at,
      updated_at: at,
    };
  });
  // One statement: all N notes or none, so progress.total never shows a half-written plan.
  await repo.insertNotes(ctx.db, rows);
}

// ---- images ----------------------------------------------------------------------------------

interface ImageScene {
  productName: string;
  overlay: boolean;
  theme: string;
  productImages: Awaited<ReturnType<typeof productImagesForGeneration>>;
}

async function imageScene(ctx: AppContext, source: Row<'tasks'>): Promise<ImageScene> {
  const product = await genRepo.findProduct(ctx.db, source.workspace_id, source.product_id);
  return {
    productName: product?.name ?? '',
    overlay: source.overlay_text,
    theme: source.theme,
    productImages: product ? await productImagesForGeneration(ctx, source.workspace_id, product.id) : [],
  };
}

/**
 * Makes the set's images that `pick` selects, in parallel up to the pool's limit, writing each
 * outcome into the note as soon as it is known (a file, or an error marker). Only failures of
 * our own infrastructure (database, storage) escape, for the job to retry.
 */
async function illustrate(
  ctx: AppContext,
  provider: Provider,
  fission: FissionRow,
  note: NoteRow,
  scene: ImageScene,
  pool: Semaphore,
  pick: (image: SetImage) => boolean,
  signal?: AbortSignal,
): Promise<void> {
  const outcomes = await Promise.allSettled(
    imagesOf(note)
      .filter(pick)
      .map(async (image) => {
        const reference = pickProductImage(scene.productImages, image.role);
        const frame: StoryboardFrame = { seq: image.seq, role: image.role, brief: image.brief, overlay: image.overlay };
        const request: FrameImageRequest = {
          workspaceId: fission.workspace_id,
          callKey: `fission:${fission.id}:image:${note.seq}:${image.seq}`,
          frame,
          prompt: imagePrompt(frame, scene.productName, reference !== null),
          input: {
            purpose: 'storyboard-image',
            strategy: image.strategy,
            role: image.role,
            seq: image.seq,
            seed: `fission:${fission.id}:${note.seq}:${image.seq}`,
            product_name: scene.productName,
            theme: scene.theme,
            brief: image.brief,
          },
          reference,
          overlay: scene.overlay,
          signal,
        };
        let outcome: Partial<SetImage>;
        try {
          // The pool bounds provider calls only: normalising the reply and lettering hold no slot.
          const raw = await generateFrameImage(ctx, provider, { ...request, slot: (work) => pool.run(work, signal) });
          const file = await letterFrameImage(ctx, raw, frame, scene.overlay);
          outcome = { file_key: file.file_key, mime: file.mime };
        } catch (err) {
          if (signal?.aborted) throw err;
          ctx.log.warn({ fissionId: fission.id, seq: note.seq, image: image.seq, role: image.role, err: describe(err) }, 'fission image failed');
          outcome = { error: `${image.role} image failed: ${describe(err)}` };
        }
        await writeImage(ctx, note.id, image.seq, outcome);
      }),
  );
  if (signal?.aborted) throw signal.reason;
  const broken = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (broken) throw broken.reason;
}

/** Replaces one element's outcome, keeping what it needs to be made again. */
async function writeImage(ctx: AppContext, noteId: number, seq: number, outcome: Partial<SetImage>): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.lockNote(trx, ctx.dialect, noteId);
    if (!row) return;
    const images = imagesOf(row).map((image): SetImage => {
      if (image.seq !== seq) return image;
      const { seq: s, role, strategy, brief, overlay } = image;
      return { seq: s, role, strategy, brief, overlay, ...outcome };
    });
    await repo.updateNote(trx, noteId, { images: json(images), updated_at: nowIso(ctx.clock.now()) });
  });
}

/** A set with at least one image is image_done (failed ones keep their markers for a retry); one with none is failed. */
async function settleNote(ctx: AppContext, noteId: number, fromStatus?: string): Promise<void> {
  const row = await repo.findNoteById(ctx.db, noteId);
  if (!row) return;
  const images = imagesOf(row);
  if (images.some((i) => i.retrying || (!i.file_key && !i.error))) return;
  const status = images.some((i) => i.file_key) ? NOTE_DONE : NOTE_FAILED;
  if (status !== row.status) await repo.updateNote(ctx.db, noteId, { status, updated_at: nowIso(ctx.clock.now()) }, fromStatus ?? row.status);
}

/**
 * contract-decisions §6: completed when every note is settled and at least one is image_done,
 * failed when none is. A settled fission moves only when a retry changes that answer.
 */
async function settleFission(ctx: AppContext, fission: FissionRow): Promise<void> {
  const counts = await repo.noteStatusCounts(ctx.db, fission.workspace_id, fission.id);
  if ((counts.get(NOTE_PENDING) ?? 0) > 0) return;
  const done = counts.get(NOTE_DONE) ?? 0;
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const status = done > 0 ? 'completed' : 'failed';
  const error = done > 0 ? null : total === 0 ? 'no note was produced' : `none of the ${total} sets got an image; retry their images`;
  await repo.updateFissionIf(ctx.db, fission.id, ['generating', status === 'completed' ? 'failed' : 'completed'], { status, error, updated_at: nowIso(ctx.clock.now()) });
}

// ---- retry -----------------------------------------------------------------------------------

/**
 * The `fission.retry-images` job (the note id): makes the elements queued for a retry again,
 * with the source task operator's key (rule 5), then settles the note and the fission.
 */
export async function retryFissionImages(ctx: AppContext, noteId: number, signal?: AbortSignal): Promise<void> {
  const note = await repo.findNoteById(ctx.db, noteId);
  if (!note || !imagesOf(note).some((i) => i.retrying)) return;
  const fission = await repo.findFissionById(ctx.db, note.fission_id);
  const source = fission && (await repo.findSourceTask(ctx.db, fission.workspace_id, fission.source_task_id));
  if (!fission || !source) return;
  const creds = await credentialsFor(ctx, fission, source);
  if (!creds) {
    await giveUpRetry(ctx, noteId, 'the workspace has no API key: add one under API keys, then retry');
    return;
  }
  const provider = ctx.providers.forCredentials(creds);
  const pool = new Semaphore(generationOptions(ctx.config.env).imageConcurrency);
  await illustrate(ctx, provider, fission, note, await imageScene(ctx, source), pool, (image) => image.retrying === true, signal);
  await settleNote(ctx, noteId);
  const current = await repo.findFissionById(ctx.db, fission.id);
  if (current && current.status !== 'generating') await settleFission(ctx, current);
}

/** Elements still queued for a retry get their error marker back, so they can be retried again. */
async function giveUpRetry(ctx: AppContext, noteId: number, reason: string): Promise<void> {
  const row = await repo.findNoteById(ctx.db, noteId);
  if (!row) return;
  for (const image of imagesOf(row).filter((i) => i.retrying)) await writeImage(ctx, noteId, image.seq, { error: clip(`retry failed: ${reason}`, MAX_REASON) });
  await settleNote(ctx, noteId);
}

export const fissionGenerateJob: JobHandler = {
  run: (ctx, fissionId, job) => runFission(ctx, fissionId, job.signal),
  onFailed: async (ctx, fissionId, reason) => {
    await failFission(ctx, fissionId, `fission stopped: ${reason}`);
  },
};

export const fissionRetryImagesJob: JobHandler = {
  run: (ctx, noteId, job) => retryFissionImages(ctx, noteId, job.signal),
  onFailed: (ctx, noteId, reason) => giveUpRetry(ctx, noteId, reason),
};
