import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import type { DbOrTx } from '../../db/database.js';
import type { NewRow, Row } from '../../db/schema.js';
import { imagePrompt, preferencesInput } from '../../content/prompts.js';
import type { NotesIntentInput } from '../../content/schemas.js';
import { normaliseNote } from '../../content/limits.js';
import { judgedNotes, loadGenerationInputs, publishableNote, viaLedger, type FrameImageRequest } from '../generation/service.js';
import { describeError, failedImage, lineFor, makeSlotImage, syncCovers, type ImageOutcome, type SlotImage } from '../notes/service.js';
import { coverTemplate } from '../../content/cover.js';
import { buildStoryboard, type StoryboardFrame } from '../../content/storyboard.js';
import { STRATEGY_GUIDES } from '../../content/strategies.js';
import { clip } from '../../content/text.js';
import type { JobDefinition } from '../../jobs/types.js';
import { warmImageThreads } from '../../images/threads.js';
import { Semaphore } from '../../providers/reliability.js';
import { ProviderError, providerParams, type Provider } from '../../providers/types.js';
import { errorColumns, failure, type Failure } from '../../http/reasons.js';
import { resolveConnections } from '../api-keys/service.js';
import { pickProductImages } from '../../content/pick-image.js';
import { productForGeneration, productImagesForGeneration } from '../products/service.js';
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
} from '../../content/fission.js';
import { notifyFissionCompleted } from '../webhooks/service.js';
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

/** An image of a set as stored: an image slot of a note (modules/notes). */
export type SetImage = SlotImage;

/** Where a note's images stand; the contract shows only the settled two. */
export const NOTE_PENDING = 'pending';
export const NOTE_DONE = 'image_done';
export const NOTE_FAILED = 'failed';

type FissionRow = repo.FissionRow;

/** A reason the fission cannot be produced that another attempt would not change. */
class FissionFailure extends Error {}

/** generating → failed with the reason; a fission already settled is left as it is. */
export async function failFission(ctx: AppContext, fission: Pick<FissionRow, 'id' | 'workspace_id'>, reason: Failure): Promise<boolean> {
  return repo.updateFissionIf(ctx.db, fission.workspace_id, fission.id, 'generating', { status: 'failed', ...errorColumns(reason, MAX_REASON), updated_at: nowIso(ctx.clock.now()) });
}

/**
 * The connections rule 5 names, per capability: the fission's (else the source task's) recorded
 * connection while it exists, else the workspace's routing, else the source operator's newest.
 */
async function connectionsFor(ctx: AppContext, fission: FissionRow, source: Row<'tasks'>) {
  return resolveConnections(ctx, {
    workspaceId: fission.workspace_id,
    operatorId: source.operator_id,
    recorded: { text: fission.api_key_id ?? source.api_key_id, image: fission.image_key_id ?? source.image_key_id },
  });
}

/** Output budget of the plan: the call's overhead and one package (note, image plan) per note. */
const PLAN_CALL_TOKENS = 500;
const PLAN_TOKENS_PER_PACKAGE = 1600;

/** The `fission.generate` job. A fission that is no longer generating is left alone (a duplicate or late job). */
export async function runFission(ctx: AppContext, fissionId: number, signal?: AbortSignal): Promise<void> {
  const fission = await repo.findFissionById(ctx.db, fissionId);
  if (!fission || fission.status !== 'generating') return;
  const ws = fission.workspace_id;
  const source = await repo.findSourceTask(ctx.db, ws, fission.source_task_id);
  if (!source) {
    await failFission(ctx, fission, failure('failure.source_gone'));
    return;
  }
  const routes = await connectionsFor(ctx, fission, source);
  if (!routes.text) {
    await failFission(ctx, fission, failure('failure.fission_no_text_connection'));
    return;
  }
  const imageKeyId = routes.image?.creds.keyId ?? null;
  if (fission.api_key_id !== routes.text.creds.keyId || fission.image_key_id !== imageKeyId) {
    await repo.updateFissionIf(ctx.db, ws, fissionId, 'generating', {
      api_key_id: routes.text.creds.keyId,
      image_key_id: imageKeyId,
      provider: routes.text.creds.provider,
      updated_at: nowIso(ctx.clock.now()),
    });
  }
  const provider = ctx.providers.forCredentials(routes.text.creds);
  const imageProvider = routes.image ? ctx.providers.forCredentials(routes.image.creds) : null;
  if (imageProvider) warmImageThreads();

  let notes = await repo.notesOf(ctx.db, ws, fissionId);
  if (notes.length === 0) {
    try {
      await planNotes(ctx, fission, source, provider, signal);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (!(err instanceof FissionFailure || err instanceof ProviderError)) throw err;
      ctx.log.warn({ fissionId, err: describeError(err) }, 'fission could not be planned');
      await failFission(ctx, fission, err instanceof ProviderError ? failure('failure.fission_call', { detail: describeError(err), ...providerParams(err) }) : failure('failure.other', { detail: describeError(err) }));
      return;
    }
    notes = await repo.notesOf(ctx.db, ws, fissionId);
  }

  const scene = await imageScene(ctx, source);
  const pool = new Semaphore(ctx.config.generation.imageConcurrency);
  // Contract rule 2: one set after another; inside a set, images in parallel.
  const images = await repo.imagesOf(ctx.db, ws, fissionId);
  for (const note of notes) {
    if (signal?.aborted) throw signal.reason;
    // Images already settled (made or failed) in an interrupted run stay as they are.
    const pending = images.filter((i) => i.note_id === note.id && i.status === 'pending');
    if (pending.length > 0) await illustrate(ctx, imageProvider, fission, pending, scene, pool, signal);
  }
  // Settles a fission whose notes all settled before a crash (or that has none).
  await ctx.db.transaction().execute((trx) => settleFission(trx, ctx, fission));
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
  const product = await productForGeneration(ctx, ws, source.product_id);
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
    preferences: preferencesInput(inputs.preferences),
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
      maxTokens: PLAN_CALL_TOKENS + PLAN_TOKENS_PER_PACKAGE * fission.fanout_count,
      signal,
    });
    return result.json as FissionReply;
  });
  if (reply.packages.length < fission.fanout_count) throw new FissionFailure(`the reply held ${reply.packages.length} of ${fission.fanout_count} packages`);

  // Like a task's texts, a hard-blocked or over-long package gets one rewrite (its own ledger entry).
  const drafts = await Promise.all(
    packages.map(async (plan, i) => {
      const pkg = reply.packages[i]!;
      const note = normaliseNote(pkg, plan.strategy);
      const notesInput: NotesIntentInput = {
        strategy: plan.strategy,
        strategy_name: plan.strategy_name,
        count: 1,
        seed: `fission:${fission.id}:${plan.seq}`,
        product: input.product,
        theme: input.theme,
        benchmarks: input.benchmarks,
        preferences: input.preferences,
        avoid_words: input.avoid_words,
      };
      const { checked } = await publishableNote(provider, {
        matcher,
        input: notesInput,
        note,
        ledger: (call) => viaLedger(ctx, ws, `fission:${fission.id}:rewrite:${plan.seq}`, call),
        signal,
        onRewriteFailed: (err) => ctx.log.warn({ fissionId: fission.id, seq: plan.seq, err: describeError(err) }, 'automatic rewrite of a package failed'),
      });
      return { plan, pkg, note, checked, input: notesInput };
    }),
  );
  const subject = { productName: product.name, category: product.category, sellingPoints: product.selling_points, theme: source.theme };
  // A package the judge flags with unsupported claims gets one rewrite, like a task's note.
  const judged = await judgedNotes(provider, {
    matcher,
    subject,
    drafts,
    ledger: {
      score: (call) => viaLedger(ctx, ws, `fission:${fission.id}:score`, call),
      rewrite: (i) => (call) => viaLedger(ctx, ws, `fission:${fission.id}:claims-rewrite:${drafts[i]!.plan.seq}`, call),
      rescore: (call) => viaLedger(ctx, ws, `fission:${fission.id}:rescore`, call),
    },
    signal,
    onJudgeFailed: (err) => ctx.log.warn({ fissionId: fission.id, err: describeError(err) }, 'judge failed; heuristic scores used'),
    onRewriteFailed: (i, err) => ctx.log.warn({ fissionId: fission.id, seq: drafts[i]!.plan.seq, err: describeError(err) }, 'rewrite of a package with unsupported claims failed'),
  });

  const at = nowIso(ctx.clock.now());
  const planned = drafts.map(({ plan, pkg, note }, i) => {
    const { checked, scored } = judged[i]!;
    const frames = buildStoryboard({
      strategy: plan.strategy,
      imageCount: plan.image_roles.length,
      roles: plan.image_roles,
      note: { ...note, title: checked.note.title, cover_title: checked.note.cover_title },
      productName: product.name,
      productCategory: product.category,
      productAppearance: product.appearance,
      sellingPoints: product.selling_points,
      theme: source.theme,
      matcher,
    });
    const shot = (j: number) => clip((pkg.image_plan[j]?.brief ?? '').replace(/\s+/g, ' '), 300);
    const images = frames.map((frame) => ({
      workspace_id: ws,
      task_id: null,
      fission_id: fission.id,
      generation: 1,
      seq: frame.seq,
      role: frame.role,
      strategy: plan.strategy,
      prompt: '',
      brief: frame.brief,
      overlay: json(frame.overlay),
      status: 'pending' as const,
      file_key: null,
      mime: null,
      is_selected: false,
      is_regen: false,
      ai_visual_score: null,
      ai_visual_note: null,
      raw_file_key: null,
      raw_mime: null,
      lettered_title: null,
      error: null,
      error_kind: null,
      instruction: null,
      created_at: at,
      updated_at: at,
    }));
    const { score, verdict, summary } = scored;
    const row: NewRow<'text_candidates'> = {
      workspace_id: ws,
      task_id: null,
      fission_id: fission.id,
      generation: 1,
      slot: plan.seq - 1,
      strategy: plan.strategy,
      angle_label: note.angle_label,
      ...checked.note,
      tags: json(checked.note.tags),
      image_brief: note.image_brief,
      source: 'ai',
      score: json(score),
      score_total: score.total,
      banned_word_status: checked.status,
      banned_hits: json(checked.hits),
      is_selected: false,
      verdict,
      summary,
      edited: false,
      dimension: clip(pkg.dimension.replace(/\s+/g, ' '), 20) || plan.strategy_name,
      image_plan: json(frames.map((frame, j) => ({ role: frame.role, brief: shot(j) }))),
      image_status: NOTE_PENDING,
      created_at: at,
      updated_at: at,
    };
    return { note: row, images };
  });
  await ctx.db.transaction().execute((trx) => repo.insertPlan(trx, ws, fission.id, planned));
}

// ---- images ----------------------------------------------------------------------------------

interface ImageScene {
  productName: string;
  productAppearance: string | null;
  overlay: boolean;
  theme: string;
  productImages: Awaited<ReturnType<typeof productImagesForGeneration>>;
}

async function imageScene(ctx: AppContext, source: Row<'tasks'>): Promise<ImageScene> {
  const product = await productForGeneration(ctx, source.workspace_id, source.product_id);
  return {
    productName: product?.name ?? '',
    productAppearance: product?.appearance ?? null,
    overlay: source.overlay_text,
    theme: source.theme,
    productImages: product ? await productImagesForGeneration(ctx, source.workspace_id, product.id) : [],
  };
}

/**
 * Makes the given images of one set, in parallel up to the pool's limit, settling each outcome
 * (a file, or an error marker) as soon as it is known. Only failures of our own infrastructure
 * (database, storage) escape, for the job to retry.
 */
async function illustrate(
  ctx: AppContext,
  provider: Provider | null,
  fission: FissionRow,
  images: SetImage[],
  scene: ImageScene,
  pool: Semaphore,
  signal?: AbortSignal,
): Promise<void> {
  const outcomes = await Promise.allSettled(
    images.map(async (image) => {
      // A photo goes along only where the model takes one; otherwise no prompt claims a reference.
      const references = pickProductImages(scene.productImages, image.role, provider?.referenceImages ?? 0);
      const note = await repo.findNoteById(ctx.db, image.note_id!);
      const noteSeq = note ? repo.seqOf(note) : image.note_id!;
      // A cover carries its note's cover title as it is now: the operator may have edited it before a retry.
      const line = note ? lineFor(image, note.cover_title) : image.overlay;
      const frame: StoryboardFrame = { seq: image.seq, role: image.role, brief: image.brief, overlay: line };
      const request: FrameImageRequest = {
        workspaceId: fission.workspace_id,
        callKey: `fission:${fission.id}:image:${noteSeq}:${image.seq}`,
        frame,
        prompt: imagePrompt(frame, { name: scene.productName, appearance: scene.productAppearance }, references.length > 0),
        input: {
          purpose: 'storyboard-image',
          strategy: image.strategy,
          role: image.role,
          seq: image.seq,
          seed: `fission:${fission.id}:${noteSeq}:${image.seq}`,
          product_name: scene.productName,
          theme: scene.theme,
          brief: image.brief,
        },
        references,
        overlay: scene.overlay,
        signal,
        // The pool bounds provider calls only: normalising the reply and lettering hold no slot.
        slot: (work) => pool.run(work, signal),
      };
      const lettering = scene.overlay && line ? { line, template: coverTemplate(fission.id, noteSeq) } : null;
      const outcome = await makeSlotImage(ctx, provider, request, lettering, (reason) =>
        ctx.log.warn({ fissionId: fission.id, seq: noteSeq, image: image.seq, role: image.role, err: reason }, 'fission image failed'),
      );
      await settleImage(ctx, fission, image, outcome);
    }),
  );
  if (signal?.aborted) throw signal.reason;
  const broken = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (broken) throw broken.reason;
}

/**
 * One image's outcome and everything that follows from it, in one transaction under the note's
 * row lock: the note settles once none of its images is pending or queued (image_done with an
 * image, failed without), and the fission once none of its notes is pending (contract-decisions
 * §6: completed with an image_done note, failed without). A reader never sees an image whose
 * note or fission has not caught up.
 */
async function settleImage(ctx: AppContext, fission: FissionRow, image: SetImage, outcome: ImageOutcome): Promise<void> {
  const ws = fission.workspace_id;
  const at = nowIso(ctx.clock.now());
  await ctx.db.transaction().execute(async (trx) => {
    const noteId = image.note_id!;
    if (!(await repo.lockNote(trx, ctx.dialect, ws, noteId))) return;
    await repo.updateImage(trx, ws, image.id, { ...outcome, updated_at: at });
    const counts = await repo.imageStatusCounts(trx, ws, fission.id, noteId);
    if ((counts.get('pending') ?? 0) + (counts.get('retrying') ?? 0) === 0) {
      await repo.updateNote(trx, ws, noteId, { image_status: (counts.get('done') ?? 0) > 0 ? NOTE_DONE : NOTE_FAILED, updated_at: at });
    }
    await settleFission(trx, ctx, fission);
  });
}

/** The fission's status from its notes, once none is pending; a settled fission moves only when a retry changes the answer. Runs in the caller's transaction. */
async function settleFission(db: DbOrTx, ctx: AppContext, fission: FissionRow): Promise<void> {
  const counts = await repo.noteStatusCounts(db, fission.workspace_id, fission.id);
  if ((counts.get(NOTE_PENDING) ?? 0) > 0) return;
  const done = counts.get(NOTE_DONE) ?? 0;
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const status = done > 0 ? 'completed' : 'failed';
  const error = done > 0 ? null : total === 0 ? 'no note was produced' : `none of the ${total} sets got an image; retry their images`;
  const moved = await repo.updateFissionIf(db, fission.workspace_id, fission.id, ['generating', status === 'completed' ? 'failed' : 'completed'], {
    status,
    error,
    updated_at: nowIso(ctx.clock.now()),
  });
  // The team hears of it in the same transaction (contract-decisions §10).
  if (moved && status === 'completed') await notifyFissionCompleted(db, fission.workspace_id, fission.id);
}

// ---- covers ----------------------------------------------------------------------------------

/** Each cover of the fission's `images` lettered with its note's cover title as it is now (notes/service syncCovers); true when one changed. */
export function syncFissionCovers(ctx: AppContext, fission: Pick<FissionRow, 'id' | 'workspace_id'>, images: SetImage[], notes: repo.FissionNoteRow[]): Promise<boolean> {
  const byId = new Map(notes.map((row) => [row.id, row]));
  return syncCovers(ctx, fission.workspace_id, images, (image) => {
    const note = byId.get(image.note_id!);
    return note && { title: note.cover_title, template: coverTemplate(fission.id, repo.seqOf(note)) };
  });
}

// ---- retry -----------------------------------------------------------------------------------

/**
 * The `fission.retry-images` job (the note id): makes the images queued for a retry again, with
 * the source task operator's key (rule 5); each settles its note and the fission as it lands.
 */
export async function retryFissionImages(ctx: AppContext, noteId: number, signal?: AbortSignal): Promise<void> {
  const note = await repo.findNoteById(ctx.db, noteId);
  const fission = note && (await repo.findFission(ctx.db, note.workspace_id, note.fission_id!));
  if (!note || !fission) return;
  const queued = (await repo.imagesOf(ctx.db, fission.workspace_id, fission.id, noteId)).filter((i) => i.status === 'retrying');
  if (queued.length === 0) return;
  const source = await repo.findSourceTask(ctx.db, fission.workspace_id, fission.source_task_id);
  const routes = source && (await connectionsFor(ctx, fission, source));
  if (!source || !routes?.image) {
    await giveUpRetry(ctx, noteId, failure(source ? 'failure.no_image_connection' : 'failure.source_gone'));
    return;
  }
  const provider = ctx.providers.forCredentials(routes.image.creds);
  const pool = new Semaphore(ctx.config.generation.imageConcurrency);
  await illustrate(ctx, provider, fission, queued, await imageScene(ctx, source), pool, signal);
}

/** Images still queued for a retry get an error marker back, so they can be retried again. */
async function giveUpRetry(ctx: AppContext, noteId: number, reason: Failure): Promise<void> {
  const note = await repo.findNoteById(ctx.db, noteId);
  const fission = note && (await repo.findFission(ctx.db, note.workspace_id, note.fission_id!));
  if (!note || !fission) return;
  for (const image of await repo.imagesOf(ctx.db, fission.workspace_id, fission.id, noteId)) {
    if (image.status !== 'retrying') continue;
    await settleImage(ctx, fission, image, failedImage(failure('failure.retry', { detail: reason.message, because: reason.reason })));
  }
}

export const fissionGenerateJob: JobDefinition = {
  kind: 'fission.generate',
  leases: 'fission_tasks',
  findStale: repo.findStaleFissions,
  run: (ctx, fissionId, job) => runFission(ctx, fissionId, job.signal),
  onFailed: async (ctx, fissionId, reason) => {
    const fission = await repo.findFissionById(ctx.db, fissionId);
    if (fission) await failFission(ctx, fission, failure('failure.fission_stopped', { detail: reason }));
  },
};

export const fissionRetryImagesJob: JobDefinition = {
  kind: 'fission.retry-images',
  findStale: repo.findStaleRetries,
  run: (ctx, noteId, job) => retryFissionImages(ctx, noteId, job.signal),
  onFailed: (ctx, noteId, reason) => giveUpRetry(ctx, noteId, failure('failure.other', { detail: reason })),
};
