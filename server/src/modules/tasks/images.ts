import { callerOf } from '../../providers/caller.js';
import type { AppContext } from '../../context.js';
import type { Framing } from '../../images/normalize.js';
import { taskCoverTemplate } from '../../content/cover.js';
import type { StrategyCode } from '../../content/schemas.js';
import type { StoryboardFrame } from '../../content/storyboard.js';
import { json, nowIso } from '../../db/codec.js';
import type { DbOrTx } from '../../db/database.js';
import type { Row } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { InvalidImageError } from '../../images/normalize.js';
import { normalizeImageInThread } from '../../images/threads.js';
import { sniffImageMime } from '../../images/probe.js';
import { errorColumns, failure, NO_ERROR } from '../../http/reasons.js';
import { assertNoHardBlock } from '../banned-words/service.js';
import { IMAGE_EXTENSION, letterImage } from '../generation/service.js';
import { recordAudit } from '../audit/service.js';
import { lineFor, queuedImagesJob, syncCovers as syncNoteCovers, type ImageOutcome, type QueuedImages } from '../notes/service.js';
import { recordSignal } from '../preferences/service.js';
import { runTaskAction, type TaskRow } from './lifecycle.js';
import * as repo from './repository.js';
import { imageCandidateView } from './views.js';

/**
 * The operator's work on single images (contract-decisions §8): regenerate one image with an
 * optional instruction, replace one with the team's own photo, retry the images that failed, and
 * keep every cover lettered with the cover title of the text its set ships with.
 */

type ImageRow = Row<'image_candidates'>;
type Overlay = StoryboardFrame['overlay'];

// ---- covers ------------------------------------------------------------------------------------

/**
 * Each set's cover title: that of the set's selected text, else of its best-scored text (the
 * earliest of equals). A hard-blocked text never ships, so its cover title is never drawn
 * (contract-decisions §9). A set without such texts has none, and its covers keep the storyboard's.
 */
export async function coverTitles(db: DbOrTx, workspaceId: number, taskId: number): Promise<Map<StrategyCode, string>> {
  const texts = await repo.listTextCandidates(db, workspaceId, taskId);
  const chosen = new Map<StrategyCode, (typeof texts)[number]>();
  for (const text of texts) {
    if (!text.strategy || text.banned_word_status === 'hard_block') continue;
    const current = chosen.get(text.strategy);
    const better =
      !current ||
      (text.is_selected && !current.is_selected) ||
      (text.is_selected === current.is_selected && (text.score_total > current.score_total || (text.score_total === current.score_total && text.id < current.id)));
    if (better) chosen.set(text.strategy, text);
  }
  return new Map([...chosen].map(([strategy, text]) => [strategy, text.cover_title]));
}

/**
 * Each cover of the task lettered with its set's cover title (notes/service syncCovers): called
 * wherever a task's images are shown or packed, so a new selection or an edited cover title shows.
 */
export async function syncCovers(ctx: AppContext, workspaceId: number, taskId: number, knownTask?: Pick<TaskRow, 'id' | 'overlay_text'>): Promise<void> {
  const task = knownTask ?? (await repo.findTask(ctx.db, workspaceId, taskId));
  if (!task?.overlay_text) return;
  const images = await repo.listImageCandidates(ctx.db, workspaceId, task.id);
  if (!images.some((i) => i.status === 'done' && i.raw_file_key)) return;
  const titles = await coverTitles(ctx.db, workspaceId, task.id);
  await syncNoteCovers(ctx, workspaceId, images, (image) => ({ title: titles.get(image.strategy), template: taskCoverTemplate(task.id, image.strategy) }));
}

/** How the slot's image is lettered (when the task letters its images) in its set's template; null when nothing is drawn. */
function letteringOf(task: Pick<TaskRow, 'id' | 'overlay_text'>, strategy: StrategyCode, line: Overlay) {
  return task.overlay_text && line ? { line, template: taskCoverTemplate(task.id, strategy) } : null;
}

// ---- regenerate, upload, retry ----------------------------------------------------------------

/**
 * Queues a new image of the candidate's slot (same set, seq and role), made by the `task.images`
 * job with the frame's prompt and the operator's instruction; the replaced image stays a
 * candidate. A `regenerate` preference signal (−1) is recorded for the image.
 */
export async function regenerateImage(ctx: AppContext, auth: AuthUser, taskId: number, candidateId: number, instruction: string | undefined) {
  const wish = instruction?.trim() || null;
  if (wish) {
    const task = await repo.findTask(ctx.db, auth.workspaceId, taskId);
    if (!task) throw fail('task.not_found');
    await assertNoHardBlock(ctx, auth.workspaceId, task.product_id, [wish]);
  }
  const queued = await runTaskAction(ctx, auth, taskId, 'regenerate_image', async (trx, task, now) => {
    const source = await repo.findImageCandidate(trx, auth.workspaceId, taskId, candidateId);
    if (!source) throw fail('image.not_found');
    if (source.status === 'pending') throw fail('image.still_pending');
    const stamp = nowIso(now);
    const row = await repo.insertImageCandidate(trx, {
      ...slotOf(source),
      variant: await repo.nextImageVariant(trx, auth.workspaceId, taskId, source),
      source: 'ai',
      status: 'pending',
      file_key: null,
      mime: null,
      prompt: source.prompt,
      instruction: wish,
      is_selected: false,
      is_regen: true,
      ai_visual_score: null,
      ai_visual_note: null,
      created_at: stamp,
      updated_at: stamp,
    });
    if (!row) throw fail('image.queue_race');
    await recordSignal(trx, {
      workspaceId: auth.workspaceId,
      productId: task.product_id,
      taskId: task.id,
      userId: auth.userId,
      type: 'regenerate',
      candidateId: source.id,
      candidateKind: 'image',
      strategy: source.strategy,
      at: now,
    });
    const audit = [{ kind: 'generation' as const, action: 'regenerate_image', detail: { candidate_id: row.id, replaces: source.id, strategy: source.strategy, seq: source.seq, instruction: wish } }];
    return { result: row, events: [], audit };
  });
  await enqueueImages(ctx, auth.workspaceId, taskId, [queued.id]);
  return { queued: true as const };
}

/** The columns a new image of the same slot copies from an image of it. */
function slotOf(image: ImageRow) {
  return {
    workspace_id: image.workspace_id,
    task_id: image.task_id,
    generation: image.generation,
    strategy: image.strategy,
    role: image.role,
    seq: image.seq,
    brief: image.brief,
    overlay: json(image.overlay),
  };
}

export interface UploadFields {
  strategy?: string | undefined;
  seq?: string | undefined;
  role?: string | undefined;
  /** `crop` (default) or `pad`: how a picture of another ratio becomes 3:4. */
  fit?: string | undefined;
  /** With `crop`: where the 3:4 window sits along the axis that is cut, 0 to 1 (0.5: centre). */
  focus?: string | undefined;
  /** With `pad`: the colour around the picture, #rrggbb (white by default). */
  background?: string | undefined;
}

/** The framing the form asks for, or the 400 naming the field. */
function framingOf(fields: UploadFields): Framing | undefined {
  const fit = fields.fit?.trim() || 'crop';
  if (fit !== 'crop' && fit !== 'pad') throw fail('validation.one_of', { field: 'fit', allowed: ['crop', 'pad'] });
  if (fit === 'pad') {
    const background = fields.background?.trim() || undefined;
    if (background !== undefined && !/^#[0-9a-fA-F]{6}$/.test(background)) throw fail('validation.pattern', { field: 'background', pattern: '^#[0-9a-fA-F]{6}$' });
    return { fit, ...(background ? { background } : {}) };
  }
  const raw = fields.focus?.trim();
  if (!raw) return undefined;
  const focus = Number(raw);
  if (!/^\d(\.\d+)?$/.test(raw) || focus > 1) throw fail('validation.invalid', { field: 'focus', detail: 'must be a number from 0 to 1' });
  return { fit, focus };
}

/**
 * The team's own photo as a new image of a slot: checked by its bytes, turned upright, cropped to
 * 3:4 and stripped of metadata (normalizeImage, in an image thread), lettered like the generated image of the slot.
 * The slot must exist in the task's latest generation that has it (seq and role as shown).
 */
export async function uploadImage(ctx: AppContext, auth: AuthUser, taskId: number, data: Buffer, fields: UploadFields) {
  const strategy = fields.strategy?.trim();
  if (strategy !== 'A' && strategy !== 'B' && strategy !== 'C') throw fail('image.strategy');
  const seq = Number(fields.seq);
  if (!/^\d{1,3}$/.test(fields.seq?.trim() ?? '') || seq < 1) throw fail('image.seq');
  const role = fields.role?.trim();
  if (!role) throw fail('validation.required', { field: 'role' });

  const framing = framingOf(fields);

  const task = await repo.findTask(ctx.db, auth.workspaceId, taskId);
  if (!task) throw fail('task.not_found');
  if (!sniffImageMime(data)) throw fail('upload.not_image');
  let normalised;
  try {
    normalised = await normalizeImageInThread(data, framing ? { framing } : {});
  } catch (err) {
    if (err instanceof InvalidImageError) throw fail('upload.unusable_image', { detail: err.message });
    throw err;
  }
  const raw = await ctx.storage.put(normalised.data, { contentType: normalised.mime, extension: IMAGE_EXTENSION[normalised.mime] ?? 'jpg' });
  // Lettering needs the slot's line, read again inside the action; drawing happens before it so
  // the transaction (SQLite's only connection) holds no image work.
  const slot = await latestSlot(ctx.db, auth.workspaceId, taskId, strategy, seq);
  if (!slot) throw fail('image.slot_not_found', { slot: `${strategy}${seq}` });
  if (slot.role !== role) throw fail('image.slot_role', { slot: `${strategy}${seq}`, role: slot.role, given: role });
  const lettering = letteringOf(task, strategy, lineFor(slot, (await coverTitles(ctx.db, auth.workspaceId, taskId)).get(strategy)));
  const drawn = lettering ? await letterImage(ctx, { file_key: raw.key, mime: normalised.mime }, lettering.line, lettering.template) : null;

  const row = await runTaskAction(ctx, auth, taskId, 'upload_image', async (trx, _task, now) => {
    const current = await latestSlot(trx, auth.workspaceId, taskId, strategy, seq);
    if (!current) throw fail('image.slot_not_found', { slot: `${strategy}${seq}` });
    const stamp = nowIso(now);
    const inserted = await repo.insertImageCandidate(trx, {
      ...slotOf(current),
      variant: await repo.nextImageVariant(trx, auth.workspaceId, taskId, current),
      source: 'upload',
      status: 'done',
      file_key: drawn?.file_key ?? raw.key,
      mime: drawn?.mime ?? normalised.mime,
      raw_file_key: drawn ? raw.key : null,
      raw_mime: drawn ? normalised.mime : null,
      lettered_title: lettering?.line.text ?? null,
      prompt: '',
      instruction: null,
      is_selected: false,
      is_regen: false,
      ai_visual_score: null,
      ai_visual_note: null,
      created_at: stamp,
      updated_at: stamp,
    });
    if (!inserted) throw fail('image.store_race');
    // The team's own picture replaces the slot's: where the task has a selection (what ships),
    // it takes the slot's place in it, so every package ships it; without one the newest
    // version of each slot ships anyway.
    const stored = (await repo.taskHasSelectedImage(trx, auth.workspaceId, taskId)) ? await repo.selectOnlyInSlot(trx, auth.workspaceId, inserted) : inserted;
    const view = imageCandidateView(ctx, stored);
    const audit = [{ kind: 'edit' as const, action: 'upload_image', detail: { candidate_id: inserted.id, replaces: current.id, strategy, seq, selected: Boolean(stored.is_selected) } }];
    return { result: view, events: [{ name: 'image_candidate', data: view }], audit };
  });
  return row;
}

/** The slot's image of the task's latest generation that has the slot (any variant: they share the frame). */
async function latestSlot(db: DbOrTx, workspaceId: number, taskId: number, strategy: StrategyCode, seq: number) {
  const images = await repo.listImageCandidates(db, workspaceId, taskId);
  return images
    .filter((i) => i.strategy === strategy && i.seq === seq)
    .sort((a, b) => b.generation - a.generation || a.variant - b.variant)[0];
}

/**
 * Queues again the images of the latest generation that failed, or only `candidateIds` of them
 * (a retry names what it retries: one tile's 重试 retries that tile). Nothing failed: nothing
 * queued, `{queued: false}` (contract-decisions §8).
 */
export async function retryImages(ctx: AppContext, auth: AuthUser, taskId: number, candidateIds?: readonly number[]) {
  const retried = await runTaskAction(ctx, auth, taskId, 'retry_images', async (trx, task, now) => {
    const allFailed = await repo.failedImagesOfGeneration(trx, auth.workspaceId, taskId, task.generation);
    const wanted = candidateIds ? new Set(candidateIds) : undefined;
    for (const id of wanted ?? []) if (!allFailed.some((i) => i.id === id)) throw fail('image.not_failed', { id });
    const failed = wanted ? allFailed.filter((i) => wanted.has(i.id)) : allFailed;
    if (failed.length === 0) return { result: [], events: [] };
    const stamp = nowIso(now);
    for (const image of failed) {
      await repo.updateImageCandidate(trx, auth.workspaceId, image.id, { status: 'pending', ...NO_ERROR, error_kind: null, updated_at: stamp });
    }
    return { result: failed, events: [] };
  });
  if (retried.length === 0) return { queued: false, count: 0, candidate_ids: [], failed_roles: [] };
  await enqueueImages(ctx, auth.workspaceId, taskId, retried.map((i) => i.id));
  return { queued: true, count: retried.length, candidate_ids: retried.map((i) => i.id), failed_roles: [...new Set(retried.map((i) => i.role))] };
}

/** Only the task id is queued; should the queue refuse it, the queued images fail at once (retry-images queues them again). */
async function enqueueImages(ctx: AppContext, workspaceId: number, taskId: number, ids: number[]) {
  try {
    await ctx.queue.enqueue(taskImagesJob.kind, taskId);
  } catch (err) {
    ctx.log.error({ err, taskId }, 'could not queue the images');
    const reason = failure('failure.images_queue_unavailable');
    await ctx.events.commit(taskId, async (trx) => {
      for (const id of ids) await repo.updateImageCandidate(trx, workspaceId, id, { status: 'failed', ...errorColumns(reason), updated_at: nowIso(ctx.clock.now()) });
      return { result: undefined, events: [] };
    });
    throw fail('image.not_queued', { detail: reason.message });
  }
}

// ---- the task.images job ---------------------------------------------------------------------

/**
 * The task's queued images (regenerated or retried) as the one path of every note's queued
 * images makes them (notes/service makeQueuedImages): drawn with the task's connection, each
 * paid through the ledger under its own row's key, each settling with its `image_candidate`
 * event on the task's stream.
 */
async function queuedImagesOf(ctx: AppContext, taskId: number): Promise<QueuedImages | undefined> {
  const task = await repo.findTaskById(ctx.db, taskId);
  if (!task) return undefined;
  const images = await repo.pendingImagesOf(ctx.db, task.workspace_id, task.id);
  const titles = images.length > 0 ? await coverTitles(ctx.db, task.workspace_id, task.id) : new Map<StrategyCode, string>();
  return {
    workspaceId: task.workspace_id,
    images,
    // A person asked for these images (regenerate, retry), even on a batch's task: they go first.
    scene: { operatorId: task.operator_id, imageKeyId: task.image_key_id, productId: task.product_id, theme: task.theme, overlay: task.overlay_text, caller: callerOf({ workspace_id: task.workspace_id, batch_id: null }) },
    slot: (image) => {
      const key = `task:${task.id}:image-row:${image.id}`;
      return { coverTitle: titles.get(image.strategy), callKey: key, seed: key, template: taskCoverTemplate(task.id, image.strategy) };
    },
    settle: (image, outcome, drawn) => settle(ctx, task, image.id, outcome, drawn && { strategy: image.strategy, seq: image.seq, ...drawn }),
    log: { taskId: task.id },
  };
}

/** An image's outcome stored with its event; a drawn one adds its call to the audit trail (`drawn`: what was asked of whom). */
async function settle(ctx: AppContext, task: TaskRow, imageId: number, change: ImageOutcome, drawn?: Record<string, unknown>) {
  await ctx.events.commit(task.id, async (trx) => {
    const now = ctx.clock.now();
    const row = await repo.updateImageCandidate(trx, task.workspace_id, imageId, { ...change, updated_at: nowIso(now) });
    if (row && drawn && change.status === 'done') {
      await recordAudit(trx, { workspaceId: task.workspace_id, taskId: task.id, userId: null, now }, [
        { kind: 'generation', action: 'image_prompt', detail: { generation: row.generation, candidate_id: row.id, ...drawn } },
      ]);
    }
    return { result: undefined, events: row ? [{ name: 'image_candidate', data: imageCandidateView(ctx, row) }] : [] };
  });
}

/** The `task.images` job (the task id): makes every queued image of the task. */
export const taskImagesJob = queuedImagesJob({ kind: 'task.images', findStale: repo.findStaleImages, queuedOf: queuedImagesOf });
