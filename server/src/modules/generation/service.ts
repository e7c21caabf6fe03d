import type { AppContext } from '../../context.js';
import type { BannedWordMatcher } from '../../content/banned-words.js';
import { coverHighlight, type CoverTemplate } from '../../content/cover.js';
import { checkNote, evaluateNote, type CheckedNote, type NoteText } from '../../content/evaluate.js';
import { enforceLimits, limitProblems, normaliseNote } from '../../content/limits.js';
import { rewritePrompt, scorePrompt, type GenerationInputs } from '../../content/prompts.js';
import {
  notesReplySchema,
  scoreReplySpec,
  type Note,
  type NotesIntentInput,
  type NotesReply,
  type ScoreIntentInput,
  type ScoreReply,
  type StoryboardImageInput,
} from '../../content/schemas.js';
import { applyGate, fromJudge, type ScoredText } from '../../content/scoring.js';
import { NEGATIVE_PROMPT, type StoryboardFrame } from '../../content/storyboard.js';
import { length } from '../../content/text.js';
import { nowIso } from '../../db/codec.js';
import type { Row } from '../../db/schema.js';
import type { AigcLabel } from '../../images/aigc.js';
import { overlayTextInThread, releaseImage } from '../../images/threads.js';
import { ProviderError, type ImageRequest, type Provider } from '../../providers/types.js';
import { personaFor } from '../accounts/service.js';
import { bannedWordMatcherFor, wordsToAvoid } from '../banned-words/service.js';
import { benchmarksForGeneration } from '../benchmarks/service.js';
import { preferenceContextForGeneration } from '../preferences/service.js';
import { productImagesForGeneration } from '../products/service.js';
import { findWorkspace } from '../workspaces/service.js';
import * as repo from './repository.js';

/**
 * The steps both pipelines share, task generation (modules/tasks/pipeline.ts) and fission
 * (modules/fission/pipeline.ts): what a generation reads, the paid-call ledger, the judge with
 * its deterministic fallback, and one storyboard frame's image. One implementation, so a
 * fission set is written, scored and illustrated exactly like a task's set.
 */

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
  task: Pick<Row<'tasks'>, 'id' | 'workspace_id' | 'theme' | 'account_id'>,
  generation: number,
  product: Row<'products'>,
  /** The account the notes are meant for, when not the task's (a fission's own). */
  accountId: number | null = task.account_id,
): Promise<LoadedInputs> {
  const ws = task.workspace_id;
  const [benchmarks, preferences, matcher, avoidWords, productImages, account] = await Promise.all([
    benchmarksForGeneration(ctx, ws, product.id, task.id),
    preferenceContextForGeneration(ctx, { id: task.id, workspaceId: ws, productId: product.id, generation }),
    bannedWordMatcherFor(ctx, ws, product.id),
    wordsToAvoid(ctx, ws, product.id, MAX_AVOID_WORDS),
    productImagesForGeneration(ctx, ws, product.id),
    personaFor(ctx, ws, accountId),
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
        appearance: product.appearance,
      },
      benchmarks: benchmarks.map((b) => ({ highlights: b.highlights, features: b.features })),
      preferences,
      avoidWords,
      ...(account ? { account } : {}),
    },
    matcher,
    productImages,
  };
}

export const IMAGE_WIDTH = 1080;
export const IMAGE_HEIGHT = 1440;

export const IMAGE_EXTENSION: Record<string, 'png' | 'jpg' | 'webp'> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/**
 * A paid call's result, from the ledger (provider_calls) when an earlier run already paid for
 * it; otherwise the call is made and its result stored before anything else happens with it.
 */
export async function viaLedger<T>(ctx: Pick<AppContext, 'db' | 'clock'>, workspaceId: number, callKey: string, call: () => Promise<T>): Promise<T> {
  const hit = await repo.findCall(ctx.db, workspaceId, callKey);
  if (hit) return hit.result as T;
  const result = await call();
  await repo.saveCall(ctx.db, workspaceId, callKey, result, nowIso(ctx.clock.now()));
  return result;
}

/**
 * The ledger of a rewrite's calls: the first under the rewrite's key, a retry with more room under
 * that key with `suffix` added (each paid call its own entry, so a re-run pays for neither again).
 */
export type RewriteLedger = (call: () => Promise<NotesReply>, suffix?: string) => Promise<NotesReply>;

/** What an automatic rewrite is asked to fix (NotesIntentInput.rewrite without the note). */
type RewriteProblems = Omit<NonNullable<NotesIntentInput['rewrite']>, 'note'>;

/**
 * One automatic rewrite of `note` naming `problems`, through `ledger` (a re-run does not pay
 * twice), normalised; null when the call failed or brought no note (the caller keeps the note).
 */
async function rewriteNote(
  provider: Provider,
  opts: {
    input: NotesIntentInput;
    note: Note;
    problems: RewriteProblems;
    ledger: RewriteLedger;
    signal?: AbortSignal | undefined;
    onRewriteFailed?: ((err: unknown) => void) | undefined;
  },
): Promise<Note | null> {
  const { input, note } = opts;
  const rewriteInput: NotesIntentInput = { ...input, count: 1, rewrite: { note, ...opts.problems } };
  try {
    const ask = (maxTokens: number) => async () => {
      const result = await provider.generateText({
        ...rewritePrompt(rewriteInput),
        intent: { kind: 'notes', input: rewriteInput },
        schema: notesReplySchema(1),
        maxTokens,
        signal: opts.signal,
      });
      return result.json as NotesReply;
    };
    const reply = await opts.ledger(ask(REWRITE_TOKENS)).catch((err: unknown) => {
      if (!(err instanceof ProviderError && err.kind === 'truncated')) throw err;
      // Cut by its budget, like a note the set writes: asked once more with twice the budget.
      return opts.ledger(ask(REWRITE_TOKENS * 2), ':roomy');
    });
    const rewritten = reply.notes[0];
    if (!rewritten) return null;
    // The angle stays the set's; a rewrite that lost the image brief keeps the first one.
    return normaliseNote({ ...rewritten, angle_label: note.angle_label, image_brief: rewritten.image_brief.trim() || note.image_brief }, input.strategy);
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    opts.onRewriteFailed?.(err);
    return null;
  }
}

/**
 * A written note made publishable (contract-decisions §9): a note with a hard-blocked word or a
 * part over its length limit gets one rewrite from the model (through `ledger`, so a re-run
 * does not pay twice) naming what to fix; only what is still too long after it is shortened,
 * between words. `note` is already normalised (normaliseNote): plain text, tags cleaned.
 */
export async function publishableNote(
  provider: Provider,
  opts: {
    matcher: BannedWordMatcher;
    /** The set's notes input; the rewrite asks for one note in the same strategy. */
    input: NotesIntentInput;
    note: Note;
    ledger: RewriteLedger;
    signal?: AbortSignal;
    onRewriteFailed?: (err: unknown) => void;
  },
): Promise<{ note: Note; checked: CheckedNote }> {
  const { matcher, note } = opts;
  const settle = (n: Note) => {
    const fitted = enforceLimits(n);
    return { note: fitted, checked: checkNote(matcher, fitted) };
  };
  const blocked = [...new Set(checkNote(matcher, note).hits.filter((h) => h.level === 'hard_block').map((h) => h.word))];
  const problems = limitProblems(note);
  if (blocked.length === 0 && problems.length === 0) return settle(note);
  const rewritten = await rewriteNote(provider, { ...opts, problems: { blocked_words: blocked, problems: problems.map((p) => p.zh) } });
  return settle(rewritten ?? note);
}

/** Output budget of the rewrite of one note (the note and the call's overhead). */
const REWRITE_TOKENS = 1600;

/** The judge's output budget: a call's overhead and one score with its summary per text. */
const SCORE_CALL_TOKENS = 200;
const SCORE_TOKENS_PER_TEXT = 250;

export interface ScoreSubject {
  productName: string;
  category?: string;
  sellingPoints: string[];
  theme: string;
}

/**
 * Scores checked notes: the judge rates them all in one call (through `ledger`, so a re-run
 * does not pay twice); `local` and any failed judge get the deterministic scorer, which also
 * caps the judge's compliance (the judge does not see the banned-word library).
 */
export async function scoreNotes(
  provider: Provider | null,
  opts: {
    matcher: BannedWordMatcher;
    subject: ScoreSubject;
    notes: NoteText[];
    ledger: (call: () => Promise<ScoreReply>) => Promise<ScoreReply>;
    signal?: AbortSignal;
    onJudgeFailed?: (err: unknown) => void;
  },
): Promise<ScoredText[]> {
  const { matcher, subject, notes } = opts;
  const evaluated = notes.map((note) => evaluateNote(matcher, note, subject));
  const heuristic = evaluated.map((e) => e.scored);
  if (!provider || provider.label === 'local') return heuristic;
  const input: ScoreIntentInput = {
    product: { name: subject.productName, category: subject.category, selling_points: subject.sellingPoints },
    theme: subject.theme,
    texts: notes.map((note, index) => ({
      index,
      title: note.title,
      content: note.content,
      tags: note.tags,
      facts: {
        title_length: length(note.title),
        cover_title: note.cover_title,
        cover_title_length: length(note.cover_title),
        body_length: length(note.content),
        tag_count: note.tags.length,
        banned_words: [...new Set(evaluated[index]!.hits.map((h) => h.word))],
      },
    })),
  };
  try {
    const reply = await opts.ledger(async () => {
      // Temperature 0: the same note scored twice should get the same score.
      const result = await provider.generateText({
        ...scorePrompt(input),
        intent: { kind: 'score', input },
        schema: scoreReplySpec,
        temperature: 0,
        maxTokens: SCORE_CALL_TOKENS + SCORE_TOKENS_PER_TEXT * notes.length,
        signal: opts.signal,
      });
      return result.json as ScoreReply;
    });
    return heuristic.map((h, index) => {
      const entry = reply.scores.find((s) => s.index === index);
      return entry ? fromJudge(entry, h, evaluated[index]!.hits) : h;
    });
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    opts.onJudgeFailed?.(err);
    return heuristic;
  }
}

type Ledger<T> = (call: () => Promise<T>) => Promise<T>;

/** A note of a set as it is stored: the model's note, its checked text and its score. */
export interface JudgedNote {
  note: Note;
  checked: CheckedNote;
  scored: ScoredText;
}

/**
 * Scores a set's checked notes (scoreNotes); a note the judge flags with claims the product
 * profile does not back gets ONE rewrite naming them (contract-decisions §9), and the rewrites
 * are checked and judged again together. A rewrite that still carries a claim stays below the
 * pass line with the claims in its summary; there is no second rewrite. Every call has its own
 * ledger key (`ledger.rewrite(i)`, `ledger.rescore`), so a re-run after a crash pays nothing
 * twice. `drafts[i].input` is the notes input the note was written from.
 */
export async function judgedNotes(
  provider: Provider | null,
  opts: {
    matcher: BannedWordMatcher;
    subject: ScoreSubject;
    drafts: Array<{ input: NotesIntentInput; note: Note; checked: CheckedNote }>;
    ledger: { score: Ledger<ScoreReply>; rewrite: (index: number) => RewriteLedger; rescore: Ledger<ScoreReply> };
    signal?: AbortSignal;
    onJudgeFailed?: (err: unknown) => void;
    onRewriteFailed?: (index: number, err: unknown) => void;
  },
): Promise<JudgedNote[]> {
  const { matcher, subject, drafts, signal } = opts;
  const scored = await scoreNotes(provider, { matcher, subject, notes: drafts.map((d) => d.checked.note), ledger: opts.ledger.score, signal, onJudgeFailed: opts.onJudgeFailed });
  const judged: JudgedNote[] = drafts.map((d, i) => ({ note: d.note, checked: d.checked, scored: scored[i]! }));
  const flagged = judged.map((j, i) => ({ i, claims: j.scored.claims ?? [] })).filter((f) => f.claims.length > 0);
  if (!provider || flagged.length === 0) return judged;

  const rewritten = await Promise.all(
    flagged.map(async ({ i, claims }) => {
      const { input, note, checked } = drafts[i]!;
      const fresh = await rewriteNote(provider, {
        input,
        // The text as checked (auto-fixed), with the model's other fields.
        note: { ...note, ...checked.note },
        problems: { blocked_words: [], unsupported_claims: claims },
        ledger: opts.ledger.rewrite(i),
        signal,
        onRewriteFailed: (err) => opts.onRewriteFailed?.(i, err),
      });
      if (!fresh) return null;
      const fitted = enforceLimits(fresh);
      const rechecked = checkNote(matcher, fitted);
      // A rewrite that trades a claim for a hard-blocked word is worse: the original can still be edited and selected.
      if (rechecked.status === 'hard_block' && checked.status !== 'hard_block') return null;
      return { i, claims, note: fitted, checked: rechecked };
    }),
  );
  const revised = rewritten.filter((r) => r !== null);
  if (revised.length === 0) return judged;
  const rescored = await scoreNotes(provider, { matcher, subject, notes: revised.map((r) => r.checked.note), ledger: opts.ledger.rescore, signal, onJudgeFailed: opts.onJudgeFailed });
  revised.forEach((r, k) => {
    const again = rescored[k]!;
    // A judge that failed this time never saw the rewrite: its claims are not known to be gone.
    const scoredAgain = again.claims === undefined ? applyGate(again, { blockedWords: [], unsupportedClaims: r.claims }) : again;
    judged[r.i] = { note: r.note, checked: r.checked, scored: scoredAgain };
  });
  return judged;
}

export interface StoredImage {
  file_key: string;
  mime: string;
}

export interface FrameImageRequest {
  workspaceId: number;
  /** Ledger key of the provider's image: a re-run with the same key reuses the paid result. */
  callKey: string;
  frame: StoryboardFrame;
  prompt: string;
  /** What the provider's intent says about the frame (`local` draws from it). */
  input: Omit<StoryboardImageInput, 'overlay' | 'has_reference_image'>;
  /** The product images to keep the product faithful to, the role's best first (as many as the model takes; none where it takes none). */
  references: Array<{ file_key: string; mime: string }>;
  /** Draw the frame's cover title or caption on the image (the service letters, not the model). */
  overlay: boolean;
  signal?: AbortSignal;
  /** The caller's image pool: holds the provider request only, not the normalisation of its reply. */
  slot?: ImageRequest['slot'];
}

/**
 * The implicit label of an image `provider` draws under `callKey` (contract-decisions §12): the
 * ledger key is the image's id (one per drawn image, kept by its lettered and re-lettered
 * files, and the audit trail's key for the call), prefixed by the workspace where this service
 * propagates it.
 */
async function aigcLabel(ctx: AppContext, provider: Provider, workspaceId: number, callKey: string): Promise<AigcLabel> {
  const propagator = ctx.config.publicUrl ?? (await findWorkspace(ctx.db, workspaceId))?.name ?? 'content-production-service';
  return { producer: provider.label, produceId: callKey, propagator, propagateId: `workspace:${workspaceId}/${callKey}` };
}

/** The provider's image of one frame, labelled and stored, through the ledger (a re-run reuses the paid result). */
export function generateFrameImage(ctx: AppContext, provider: Provider, req: FrameImageRequest): Promise<StoredImage> {
  const { storage } = ctx;
  return viaLedger(ctx, req.workspaceId, req.callKey, async () => {
    const input: StoryboardImageInput = {
      ...req.input,
      overlay: req.overlay ? (req.frame.overlay?.text ?? null) : null,
      has_reference_image: req.references.length > 0,
    };
    const result = await provider.generateImage({
      prompt: req.prompt,
      negativePrompt: NEGATIVE_PROMPT,
      width: IMAGE_WIDTH,
      height: IMAGE_HEIGHT,
      referenceImages: await Promise.all(req.references.map(async (r) => ({ data: await storage.read(r.file_key), mime: r.mime }))),
      intent: { kind: 'free', input },
      signal: req.signal,
      slot: req.slot,
      aigc: await aigcLabel(ctx, provider, req.workspaceId, req.callKey),
    });
    const stored = await storage.put(result.data, { contentType: result.mime, extension: IMAGE_EXTENSION[result.mime] ?? 'png' });
    releaseImage(result.data);
    return { file_key: stored.key, mime: result.mime };
  });
}

/** The frame's cover title (in the set's template) or caption drawn by the service (when asked), stored as a new file. */
export async function letterFrameImage(ctx: AppContext, raw: StoredImage, frame: StoryboardFrame, overlay: boolean, template: CoverTemplate): Promise<StoredImage> {
  if (!overlay || !frame.overlay) return raw;
  return letterImage(ctx, raw, frame.overlay, template);
}

/**
 * A cover title (in `template`, its key phrase highlighted) or caption drawn on `raw` (never on
 * an already lettered image, so re-lettering replaces the text instead of stacking it), stored
 * as a new file. The design follows from the set and the words alone, so lettering again
 * reproduces it.
 */
export async function letterImage(ctx: AppContext, raw: StoredImage, line: NonNullable<StoryboardFrame['overlay']>, template: CoverTemplate): Promise<StoredImage> {
  const drawn = await overlayTextInThread(
    await ctx.storage.read(raw.file_key),
    line.kind === 'cover' ? { title: line.text, template, highlight: line.highlight === undefined ? coverHighlight(line.text) : line.highlight, keep: line.keep } : { caption: line.text },
    { width: IMAGE_WIDTH, height: IMAGE_HEIGHT },
  );
  const stored = await ctx.storage.put(drawn.data, { contentType: drawn.mime, extension: IMAGE_EXTENSION[drawn.mime] ?? 'jpg' });
  releaseImage(drawn.data);
  return { file_key: stored.key, mime: drawn.mime };
}

/** A stored image that keeps its un-lettered original and what was drawn on it (task and fission images). */
export interface LetteredImage {
  raw_file_key: string | null;
  raw_mime: string | null;
  lettered_title: string | null;
}

/**
 * The image lettered anew from its original when the line it should carry is not the one drawn
 * (contract-decisions §8: a cover never contradicts its text, a slide shows the caption its
 * operator gave it; the line is replaced, never drawn over); null when nothing is to change, or
 * when the image has no original to letter (stored before originals were kept).
 */
export async function reletterCover(ctx: AppContext, image: LetteredImage, line: StoryboardFrame['overlay'], template: CoverTemplate): Promise<(StoredImage & { title: string }) | null> {
  if (!image.raw_file_key || !line || line.text === image.lettered_title) return null;
  const drawn = await letterImage(ctx, { file_key: image.raw_file_key, mime: image.raw_mime ?? 'image/png' }, line, template);
  return { ...drawn, title: line.text };
}
