import type { AppContext } from '../../context.js';
import { coverHighlight, type CoverTemplate } from '../../content/cover.js';
import { evaluateNote, type EvaluatedNote, type NoteText } from '../../content/evaluate.js';
import { withInstruction } from '../../content/instruction.js';
import { cleanTags, distinctTags, limitProblems, publishableBody } from '../../content/limits.js';
import { noteText } from '../../content/note-text.js';
import { pickProductImages } from '../../content/pick-image.js';
import { imagePrompt } from '../../content/prompts.js';
import type { StoryboardFrame } from '../../content/storyboard.js';
import { clip } from '../../content/text.js';
import { json } from '../../db/codec.js';
import type { Row, RowUpdate } from '../../db/schema.js';
import { fail, limitError } from '../../http/errors.js';
import { errorColumns, failure, NO_ERROR, type Failure } from '../../http/reasons.js';
import type { JobDefinition } from '../../jobs/types.js';
import { Semaphore } from '../../providers/reliability.js';
import { ProviderError, providerParams, type Provider } from '../../providers/types.js';
import { lazyZip, type LazyZip, type LazyZipEntry } from '../../zip/lazy-zip.js';
import { resolveConnections } from '../api-keys/service.js';
import { bannedWordMatcherFor } from '../banned-words/service.js';
import { generateFrameImage, IMAGE_EXTENSION, letterImage, reletterCover, type FrameImageRequest, type StoredImage } from '../generation/service.js';
import { productForGeneration, productImagesForGeneration } from '../products/service.js';
import * as repo from './repository.js';

/**
 * The note model (issue 34): a note is its text, score, banned-word result and captions (a
 * `text_candidates` row) with its image slots and their versions (`image_candidates` rows),
 * whether a task's generation wrote it (`task_id`) or a fission of a source note (`fission_id`).
 * The rules a note follows whatever made it are here, once: how an edit is checked and scored,
 * what is drawn on an image and how a cover follows its note's cover title, how queued images
 * are made, which notes may ship and how shipped notes are laid out in a zip. The tasks, fission
 * and delivery modules decide which notes and which images; this says what happens to them.
 */

export type NoteRow = Row<'text_candidates'>;
export type SlotImage = Row<'image_candidates'>;
type Overlay = StoryboardFrame['overlay'];

const MAX_ERROR = 500;

export function describeError(err: unknown): string {
  return clip((err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' '), MAX_ERROR);
}

// ---- text: edit, check, score ----------------------------------------------------------------

export type NoteEvaluator = (note: NoteText) => EvaluatedNote;

/**
 * What a note is checked and scored against: the banned words that apply to its product, and its
 * product and theme (a fission note's are its source task's). Read before the caller's
 * transaction, which on SQLite holds the only connection.
 */
export async function noteEvaluator(ctx: AppContext, workspaceId: number, origin: { product_id: number; theme: string }): Promise<NoteEvaluator> {
  const [matcher, product] = await Promise.all([bannedWordMatcherFor(ctx, workspaceId, origin.product_id), productForGeneration(ctx, workspaceId, origin.product_id)]);
  const subject = { productName: product?.name ?? '', sellingPoints: product?.selling_points ?? [], theme: origin.theme };
  return (note) => evaluateNote(matcher, note, subject);
}

/**
 * A note's text as it would be published (contract-decisions §9): plain body, hashtags moved into
 * the tags, tags cleaned. A part over its limit is refused with 400 naming the limit, except an
 * import's long body, which is kept and flagged in its summary.
 */
export function publishableText(text: { title: string; content: string; tags: string[]; cover_title: string }, keepLongBody: boolean) {
  const body = publishableBody(text.content);
  if (!body.content) throw fail('validation.blank', { field: 'body.content' });
  const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
  const note = { title: oneLine(text.title), content: body.content, cover_title: oneLine(text.cover_title) };
  // The tags given are counted; hashtags moved out of the body join them up to the limit.
  const refused = limitProblems({ ...note, tags: distinctTags(text.tags) }).find((p) => !(keepLongBody && p.field === 'content'));
  if (refused) throw limitError(refused);
  return { ...note, tags: cleanTags([...text.tags, ...body.tags]) };
}

/** The columns a note's text, score and banned-word result are stored in. */
export function evaluatedColumns(evaluated: EvaluatedNote) {
  return {
    title: evaluated.note.title,
    content: evaluated.note.content,
    tags: json(evaluated.note.tags),
    cover_title: evaluated.note.cover_title,
    score: json(evaluated.scored.score),
    score_total: evaluated.scored.score.total,
    verdict: evaluated.scored.verdict,
    summary: evaluated.scored.summary,
    banned_word_status: evaluated.status,
    banned_hits: json(evaluated.hits),
  };
}

export interface NoteEdit {
  title?: string | undefined;
  content?: string | undefined;
  tags?: string[] | undefined;
  cover_title?: string | undefined;
}

/**
 * An operator's edit of a note, a task's or a fission's: the parts not given stay as they are,
 * the whole is made publishable (else 400), checked against the banned words and scored again,
 * since the score and the check are of the text that will be published, not of the one replaced.
 */
export function editedNote(evaluate: NoteEvaluator, note: NoteRow, edit: NoteEdit): { changes: RowUpdate<'text_candidates'>; blocked: boolean } {
  const evaluated = evaluate(
    publishableText(
      { title: edit.title ?? note.title, content: edit.content ?? note.content, tags: edit.tags ?? note.tags, cover_title: edit.cover_title ?? note.cover_title },
      false,
    ),
  );
  return { changes: { ...evaluatedColumns(evaluated), edited: true }, blocked: evaluated.status === 'hard_block' };
}

// ---- shipping: which notes may leave, and the zip they leave in --------------------------------

/**
 * The words that keep a note out of every package and download (contract-decisions §9: a
 * hard-blocked note never ships); none when it may ship. "(unknown)" stands for the words of a
 * note stored without its hits.
 */
export function wordsBlockingShipment(note: Pick<NoteRow, 'banned_word_status' | 'banned_hits'>): string[] {
  if (note.banned_word_status !== 'hard_block') return [];
  const words = [...new Set(note.banned_hits.filter((h) => h.level === 'hard_block').map((h) => h.word))];
  return words.length > 0 ? words : ['(unknown)'];
}

/** A note as a folder of a zip: its text and its images, each read when the zip reaches it. */
/** The images of a slot-set a note ships, as much of each row as the choice reads. */
export interface ShippableImage {
  id: number;
  seq: number;
  generation: number;
  is_selected: boolean;
}

/**
 * The images one note ships: its selected images, or, when none of `images` is selected, all
 * of them; one per slot (seq), the latest generation and then the latest id winning, in slot
 * order. `images` are the finished images of one note (a task's set, or a fission note).
 */
export function shippedImages<T extends ShippableImage>(images: readonly T[]): T[] {
  const pool = images.some((i) => i.is_selected) ? images.filter((i) => i.is_selected) : images;
  const latest = new Map<number, T>();
  for (const image of pool) {
    const current = latest.get(image.seq);
    if (!current || image.generation > current.generation || (image.generation === current.generation && image.id > current.id)) {
      latest.set(image.seq, image);
    }
  }
  return [...latest.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * A note as a post freezes it (contract-decisions §11): its text and the files of its images in
 * posting order. Made by the module that owns the note (tasks: an approved task's selected set;
 * fission: a completed fission's note), so the rules of what may be posted live with the note.
 */
export interface PostableNote {
  /** `task:<id>:<strategy>` or `fission:<id>:<seq>`: the same note never on two accounts. */
  key: string;
  /** The task whose audit trail records the post: the task, or the fission's source task. */
  auditTaskId: number;
  productId: number;
  taskId: number | null;
  strategy: string | null;
  fissionId: number | null;
  fissionSeq: number | null;
  angleLabel: string;
  title: string;
  body: string;
  tags: string[];
  coverTitle: string;
  images: Array<{ role: string; file_key: string; ai_generated: boolean }>;
}

/** Posting order: the cover first, then the other images in slot order. */
export function coverFirst<T extends Pick<SlotImage, 'role' | 'overlay'>>(images: readonly T[]): T[] {
  return [...images.filter((i) => isCover(i)), ...images.filter((i) => !isCover(i))];
}

/** Refuses a note that may not be posted: hard-blocked words, or no finished image. */
export function assertPostable(note: Pick<NoteRow, 'banned_word_status' | 'banned_hits'>, images: readonly unknown[]): void {
  const blocking = wordsBlockingShipment(note);
  if (blocking.length > 0) throw fail('post.hard_blocked', { words: blocking });
  if (images.length === 0) throw fail('post.no_images');
}

export interface NoteFolder {
  name: string;
  text: { title: string; content: string; tags: string[] };
  images: Array<{ seq: number; role: string; mime: string | null; read: LazyZipEntry['produce'] }>;
}

export const imageExtension = (mime: string | null) => IMAGE_EXTENSION[mime ?? ''] ?? 'jpg';

/** An image's name in its note's folder (contract-decisions §4), its extension from the stored mime. */
export function imageEntryName(folder: string, image: { seq: number; role: string; mime: string | null }): string {
  return `${folder}/${String(image.seq).padStart(2, '0')}_${image.role}.${imageExtension(image.mime)}`;
}

/**
 * The one layout of a zip of notes, a task's package and a fission's download alike:
 * `checklist.md` at the root when there is one, then each note's folder with its images and
 * `note.txt` (the note as published, then the publishing reminders). Entry times are `mtime`, so
 * the same notes always yield the same bytes.
 */
export function notesZip(folders: NoteFolder[], opts: { checklist?: string; mtime: Date; signal?: AbortSignal }): LazyZip {
  const text = (data: string) => async () => Buffer.from(data, 'utf8');
  const entries: LazyZipEntry[] = opts.checklist === undefined ? [] : [{ name: 'checklist.md', compress: true, produce: text(opts.checklist) }];
  for (const folder of folders) {
    for (const image of folder.images) entries.push({ name: imageEntryName(folder.name, image), compress: false, produce: image.read });
    entries.push({ name: `${folder.name}/note.txt`, compress: true, produce: text(noteText(folder.text)) });
  }
  return lazyZip(entries, opts);
}

// ---- images: what is drawn, covers, one image of a slot ----------------------------------------

const COVER_ROLES: ReadonlySet<SlotImage['role']> = new Set(['hook', 'main']);

/** Whether the image is a cover (images stored before frames kept their line are covers by role). */
export function isCover(image: Pick<SlotImage, 'role' | 'overlay'>): boolean {
  return image.overlay?.kind === 'cover' || (image.overlay === null && COVER_ROLES.has(image.role));
}

/**
 * What is drawn on an image: on a cover the cover title of the note it ships with
 * (contract-decisions §8: an image never contradicts its text), else the storyboard's; elsewhere
 * the storyboard's caption.
 */
export function lineFor(image: Pick<SlotImage, 'role' | 'overlay'>, coverTitle: string | undefined): Overlay {
  if (!isCover(image)) return image.overlay;
  const planned = image.overlay?.kind === 'cover' ? image.overlay : undefined;
  const text = coverTitle?.trim() || planned?.text || '';
  if (!text) return null;
  if (planned?.text === text) return planned;
  // An edited title keeps whole the product-name runs the plan kept, where it still has them, and
  // highlights what it says itself (an operator's title is its own statement).
  const keep = (planned?.keep ?? []).filter((run) => text.includes(run));
  return { kind: 'cover', text, highlight: coverHighlight(text, { keep }), keep };
}

/**
 * Re-letters the covers among `images` whose drawn title is not their note's cover title any more
 * (a new selection, an edited cover title), from the un-lettered original: the text is replaced,
 * never drawn over. `cover` names, per image, the title it should carry and its template.
 * Called wherever images are shown or packed; it does work only after a change, and two callers
 * at once store the same result (one wins the conditional update). Images stored without an
 * original (`raw_file_key`) cannot be re-lettered and are left. True when a cover changed.
 */
export async function syncCovers(
  ctx: AppContext,
  workspaceId: number,
  images: readonly SlotImage[],
  cover: (image: SlotImage) => { title: string | undefined; template: CoverTemplate } | undefined,
): Promise<boolean> {
  let changed = false;
  for (const image of images) {
    if (image.status !== 'done' || !image.raw_file_key || !isCover(image)) continue;
    const wanted = cover(image);
    if (!wanted) continue;
    const drawn = await reletterCover(ctx, image, lineFor(image, wanted.title), wanted.template);
    if (drawn) changed = (await repo.reletterImage(ctx.db, workspaceId, image, drawn)) || changed;
  }
  return changed;
}

/**
 * The un-lettered picture of a finished image: its kept original, else its own file when no
 * line was ever to be drawn on it. Rows from before originals were kept (an empty brief,
 * migration 20261125_1300) may carry a line nobody recorded, and have none.
 */
export function originalOf(image: SlotImage): StoredImage | null {
  if (image.raw_file_key) return { file_key: image.raw_file_key, mime: image.raw_mime ?? 'image/png' };
  const bare = image.file_key && image.lettered_title === null && image.overlay === null && image.brief !== '';
  return bare ? { file_key: image.file_key!, mime: image.mime ?? 'image/png' } : null;
}

/**
 * A slide with the caption an operator gave it (contract-decisions §8), lettered from its
 * original like a cover whose title changed (reletterCover: the line is replaced, never drawn
 * over); null bares the original. The columns to store, or null when the caption is the one drawn.
 */
export async function recaptioned(ctx: AppContext, image: SlotImage, original: StoredImage, caption: string | null, template: CoverTemplate) {
  // A recovered original (migration 20261126_0200) may sit under a line nobody recorded: only a bare file is known bare.
  if (caption === image.lettered_title && (caption !== null || image.file_key === original.file_key)) return null;
  const line = caption ? { kind: 'caption' as const, text: caption } : null;
  const drawn = await reletterCover(ctx, { raw_file_key: original.file_key, raw_mime: original.mime, lettered_title: null }, line, template);
  return {
    file_key: drawn?.file_key ?? original.file_key,
    mime: drawn?.mime ?? original.mime,
    raw_file_key: original.file_key,
    raw_mime: original.mime,
    lettered_title: drawn?.title ?? null,
    overlay: json(line),
  };
}

/** How one attempt at an image of a slot came out: a file (lettered, with its original) or an error. */
export type ImageOutcome = Pick<SlotImage, 'status' | 'file_key' | 'mime' | 'raw_file_key' | 'raw_mime' | 'lettered_title' | 'error_kind'> & {
  /** The failure as text, reason key and JSON params (errorColumns), or none (NO_ERROR). */
  error: string | null;
  error_key: string | null;
  error_params: string | null;
};

const NO_FILE = { file_key: null, mime: null, raw_file_key: null, raw_mime: null, lettered_title: null } as const;

/** An outcome that records a failure (a retry finds it by its error). */
function failedImage(reason: Failure): ImageOutcome {
  return { ...NO_FILE, status: 'failed', ...errorColumns(reason, MAX_ERROR), error_kind: null };
}

/**
 * Makes one image of a slot with `provider` and letters it with `lettering` (null: nothing
 * drawn), keeping the original so a cover can be lettered again when its title changes. A
 * provider's or the image's failure is the outcome; only a failure of our own infrastructure, or
 * the abort, escapes.
 */
async function makeSlotImage(
  ctx: AppContext,
  provider: Provider,
  request: FrameImageRequest,
  lettering: { line: NonNullable<Overlay>; template: CoverTemplate } | null,
  onFailed: (reason: string) => void,
): Promise<ImageOutcome> {
  const role = request.frame.role;
  try {
    const raw = await generateFrameImage(ctx, provider, request);
    if (!lettering) return { ...NO_FILE, status: 'done', file_key: raw.file_key, mime: raw.mime, ...NO_ERROR, error_kind: null };
    const file = await letterImage(ctx, raw, lettering.line, lettering.template);
    return {
      status: 'done',
      file_key: file.file_key,
      mime: file.mime,
      raw_file_key: raw.file_key,
      raw_mime: raw.mime,
      lettered_title: lettering.line.text,
      ...NO_ERROR,
      error_kind: null,
    };
  } catch (err) {
    if (request.signal?.aborted) throw err;
    const reason = describeError(err);
    onFailed(reason);
    return { ...NO_FILE, status: 'failed', ...errorColumns(failure('failure.note_image', { role, detail: reason, ...providerParams(err) })), error_kind: err instanceof ProviderError ? err.kind : null };
  }
}

// ---- queued images: one path for a task's and a fission's -----------------------------------

/** Whose connection draws, which product is shown and whether images are lettered: the origin's. */
export interface ImageScene {
  /** The operator whose connection is chosen when none is recorded (a fission's is its source task's). */
  operatorId: number;
  /** The image connection the origin recorded. */
  imageKeyId: number | null;
  productId: number;
  theme: string;
  overlay: boolean;
  /** Who the calls are for (providers/caller.ts): a batch's images are bulk work. */
  caller: { party: string; bulk: boolean };
}

/**
 * Images of one origin queued to be made, and what differs between origins: where the scene comes
 * from (a failure when the origin is gone: every image fails with it), each image's cover title,
 * ledger key and template, and how an outcome settles (a task's event stream; a fission's note
 * and status).
 */
export interface DrawnImage {
  provider: string;
  model: string | undefined;
  /** The ledger key of the call: the image's id in its AI label (contract-decisions §12). */
  produce_id: string;
  prompt: string;
}

export interface QueuedImages {
  workspaceId: number;
  images: SlotImage[];
  scene: ImageScene | Failure;
  slot(image: SlotImage): {
    coverTitle: string | undefined;
    /** The provider call's ledger key: stable per slot, so a run after a crash reuses what an earlier run paid for. */
    callKey: string;
    /** What the offline provider draws from. */
    seed: string;
    template: CoverTemplate;
  };
  /** `drawn`: what was asked of whom, for an image a provider drew (the audit trail's record of the call). */
  settle(image: SlotImage, outcome: ImageOutcome, drawn?: DrawnImage): Promise<void>;
  /** Fields that name the origin in the log. */
  log: Record<string, number>;
}

/** Every queued image gets the failure back, so it can be retried. */
async function failQueued(queued: QueuedImages, reason: Failure): Promise<void> {
  for (const image of queued.images) await queued.settle(image, failedImage(reason));
}

/** The connection that draws and the product shown, or why there is none. */
async function drawing(ctx: AppContext, workspaceId: number, scene: ImageScene) {
  const [routes, product] = await Promise.all([
    resolveConnections(ctx, { workspaceId, operatorId: scene.operatorId, recorded: { image: scene.imageKeyId } }),
    productForGeneration(ctx, workspaceId, scene.productId),
  ]);
  if (!routes.image) return failure('failure.no_image_connection');
  if (!product) return failure('failure.product_gone');
  return { provider: ctx.providers.forCredentials(routes.image.creds, { caller: scene.caller }), product, productImages: await productImagesForGeneration(ctx, workspaceId, product.id) };
}

/**
 * Makes the queued images, in parallel up to GENERATION_IMAGE_CONCURRENCY, each settling as soon
 * as its outcome is known. A slot keeps the prompt its generation stored; one stored without (a
 * fission's, an upload's) is asked with its frame's. Only failures of our own infrastructure
 * (database, storage) escape, for the job to retry.
 */
export async function makeQueuedImages(ctx: AppContext, queued: QueuedImages, signal?: AbortSignal): Promise<void> {
  if (queued.images.length === 0) return;
  const { scene } = queued;
  if ('reason' in scene) return failQueued(queued, scene);
  const drawn = await drawing(ctx, queued.workspaceId, scene);
  if ('reason' in drawn) return failQueued(queued, drawn);
  const { provider, product, productImages } = drawn;
  const pool = new Semaphore(ctx.config.generation.imageConcurrency);
  const outcomes = await Promise.allSettled(
    queued.images.map(async (image) => {
      const slot = queued.slot(image);
      const line = lineFor(image, slot.coverTitle);
      const frame: StoryboardFrame = { seq: image.seq, role: image.role, brief: image.brief, overlay: line };
      // A photo goes along only where the model takes one; otherwise no prompt claims a reference.
      const references = pickProductImages(productImages, image.role, provider.referenceImages);
      const request: FrameImageRequest = {
        workspaceId: queued.workspaceId,
        callKey: slot.callKey,
        frame,
        prompt: withInstruction(image.prompt || imagePrompt(frame, { name: product.name, appearance: product.appearance }, references.length > 0), image.instruction),
        input: {
          purpose: 'storyboard-image',
          strategy: image.strategy,
          role: image.role,
          seq: image.seq,
          seed: slot.seed,
          product_name: product.name,
          theme: scene.theme,
          brief: image.brief,
        },
        references,
        overlay: scene.overlay,
        signal,
        // The pool bounds provider calls only: normalising the reply and lettering hold no slot.
        slot: (work) => pool.run(work, signal),
      };
      const lettering = scene.overlay && line ? { line, template: slot.template } : null;
      const outcome = await makeSlotImage(ctx, provider, request, lettering, (reason) =>
        ctx.log.warn({ ...queued.log, imageId: image.id, image: image.seq, role: image.role, err: reason }, 'image failed'),
      );
      await queued.settle(image, outcome, { provider: provider.label, model: provider.models.image, produce_id: slot.callKey, prompt: request.prompt });
    }),
  );
  if (signal?.aborted) throw signal.reason;
  const broken = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (broken) throw broken.reason;
}

/**
 * The job that makes an origin's queued images (a task's regenerated or retried ones, a fission
 * note's retried ones): `queuedOf` reads them from the job's id, undefined once the origin is
 * gone. A job that fails for good hands the failure to every image still queued.
 */
export function queuedImagesJob(definition: Pick<JobDefinition, 'kind' | 'findStale'> & { queuedOf: (ctx: AppContext, refId: number) => Promise<QueuedImages | undefined> }): JobDefinition {
  const { queuedOf, ...job } = definition;
  return {
    ...job,
    run: async (ctx, refId, run) => {
      const queued = await queuedOf(ctx, refId);
      if (queued) await makeQueuedImages(ctx, queued, run.signal);
    },
    onFailed: async (ctx, refId, reason) => {
      const queued = await queuedOf(ctx, refId);
      if (queued) await failQueued(queued, failure('failure.images_stopped', { detail: reason }));
    },
  };
}
