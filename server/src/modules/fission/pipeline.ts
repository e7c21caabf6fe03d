import { callerOf } from '../../providers/caller.js';
import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import type { DbOrTx } from '../../db/database.js';
import type { NewRow, Row } from '../../db/schema.js';
import { preferencesInput } from '../../content/prompts.js';
import type { NotesIntentInput } from '../../content/schemas.js';
import { normaliseNote } from '../../content/limits.js';
import { judgedNotes, loadGenerationInputs, publishableNote, viaLedger } from '../generation/service.js';
import { describeError, makeQueuedImages, queuedImagesJob, syncCovers, type ImageOutcome, type QueuedImages, type SlotImage } from '../notes/service.js';
import { coverTemplate } from '../../content/cover.js';
import { buildStoryboard } from '../../content/storyboard.js';
import { STRATEGY_GUIDES } from '../../content/strategies.js';
import { clip } from '../../content/text.js';
import type { JobDefinition } from '../../jobs/types.js';
import { warmImageThreads } from '../../images/threads.js';
import { ProviderError, providerParams, type Provider } from '../../providers/types.js';
import { errorColumns, failure, type Failure } from '../../http/reasons.js';
import { resolveConnections } from '../api-keys/service.js';
import { productForGeneration } from '../products/service.js';
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
  const provider = ctx.providers.forCredentials(routes.text.creds, { caller: callerOf(fission) });
  if (routes.image) warmImageThreads();

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

  // Contract rule 2: one set after another; inside a set, images in parallel. Images already
  // settled (made or failed) in an interrupted run stay as they are.
  for (const note of notes) {
    if (signal?.aborted) throw signal.reason;
    await makeQueuedImages(ctx, await queuedImagesOf(ctx, fission, note, 'pending'), signal);
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
  const { inputs, matcher } = await loadGenerationInputs(ctx, source, Math.max(source.generation, 1), product, fission.account_id);

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
    ...(inputs.account ? { account: inputs.account } : {}),
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
        ledger: (call, suffix = '') => viaLedger(ctx, ws, `fission:${fission.id}:rewrite:${plan.seq}${suffix}`, call),
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
      rewrite: (i) => (call, suffix = '') => viaLedger(ctx, ws, `fission:${fission.id}:claims-rewrite:${drafts[i]!.plan.seq}${suffix}`, call),
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

/**
 * The images of a note in `status` (`pending`: the generation's, `retrying`: queued for a retry)
 * as the one path of every note's queued images makes them (notes/service makeQueuedImages):
 * drawn with the source task operator's connection (rule 5), under the ledger keys
 * `fission:<id>:image:<set>:<seq>`, each settling its note and the fission as it lands.
 */
async function queuedImagesOf(ctx: AppContext, fission: FissionRow, note: repo.FissionNoteRow, status: 'pending' | 'retrying'): Promise<QueuedImages> {
  const ws = fission.workspace_id;
  const [images, source] = await Promise.all([repo.imagesOf(ctx.db, ws, fission.id, note.id), repo.findSourceTask(ctx.db, ws, fission.source_task_id)]);
  const seq = repo.seqOf(note);
  return {
    workspaceId: ws,
    images: images.filter((image) => image.status === status),
    scene: source
      ? { operatorId: source.operator_id, imageKeyId: fission.image_key_id ?? source.image_key_id, productId: source.product_id, theme: source.theme, overlay: source.overlay_text, caller: callerOf(fission) }
      : failure('failure.source_gone'),
    slot: (image) => ({
      // The note as read now: the operator may have edited its cover title before a retry.
      coverTitle: note.cover_title,
      callKey: `fission:${fission.id}:image:${seq}:${image.seq}`,
      seed: `fission:${fission.id}:${seq}:${image.seq}`,
      template: coverTemplate(fission.id, seq),
    }),
    settle: (image, outcome) => settleImage(ctx, fission, image, outcome),
    log: { fissionId: fission.id, seq },
  };
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

/** The images of a note queued for a retry; undefined once the note or its fission is gone. */
async function retryingImagesOf(ctx: AppContext, noteId: number): Promise<QueuedImages | undefined> {
  const note = await repo.findNoteById(ctx.db, noteId);
  const fission = note && (await repo.findFission(ctx.db, note.workspace_id, note.fission_id!));
  return note && fission ? queuedImagesOf(ctx, fission, note, 'retrying') : undefined;
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

/** A batch's planned fission: the same work in the `bulk` lane, so a batch never holds the slots people's own fissions need. */
export const fissionBulkJob: JobDefinition = { ...fissionGenerateJob, kind: 'fission.generate-bulk', lane: 'bulk', findStale: repo.findStaleBulkFissions };

/** The `fission.retry-images` job (the note id): makes the note's images queued for a retry again. */
export const fissionRetryImagesJob = queuedImagesJob({ kind: 'fission.retry-images', findStale: repo.findStaleRetries, queuedOf: retryingImagesOf });
