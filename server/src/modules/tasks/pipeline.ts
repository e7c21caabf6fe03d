import { callerOf } from '../../providers/caller.js';
import type { Transaction } from 'kysely';
import { taskCoverTemplate } from '../../content/cover.js';
import { NotesDeltaExtractor } from '../../content/deltas.js';
import type { CheckedNote } from '../../content/evaluate.js';
import { normaliseNote } from '../../content/limits.js';
import { pickProductImages } from '../../content/pick-image.js';
import { imagePrompt, notesInput, notesPrompt } from '../../content/prompts.js';
import { notesReplySchema, type Note, type NotesIntentInput, type NotesReply, type StrategyCode } from '../../content/schemas.js';
import { buildStoryboard, storyboardRoles, type StoryboardFrame } from '../../content/storyboard.js';
import { imageStrategies, slotsByStrategy } from '../../content/strategies.js';
import { warmImageThreads } from '../../images/threads.js';
import { clip } from '../../content/text.js';
import type { GenerationOptions } from '../../config.js';
import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import type { DB, NewRow, Row } from '../../db/schema.js';
import type { NewTaskEvent } from '../../events/types.js';
import type { JobDefinition } from '../../jobs/types.js';
import { Semaphore } from '../../providers/reliability.js';
import { ProviderError, providerParams, type Provider } from '../../providers/types.js';
import { errorColumns, failure, failureEvent, NO_TASK_FAILURE, taskFailureColumns, type Failure } from '../../http/reasons.js';
import { resolveConnections } from '../api-keys/service.js';
import {
  generateFrameImage,
  letterFrameImage,
  loadGenerationInputs,
  judgedNotes,
  publishableNote,
  viaLedger,
  type FrameImageRequest,
  type JudgedNote,
  type LoadedInputs,
  type StoredImage,
} from '../generation/service.js';
import { productForGeneration } from '../products/service.js';
import { IN_FLIGHT, moveTask, transition, type TaskRow } from './lifecycle.js';
import { recordAudit } from '../audit/service.js';
import * as repo from './repository.js';
import { imageCandidateView, textCandidateView } from './views.js';

/**
 * The generation of one task: texts per strategy set, their banned-word check and score, then
 * each set's storyboard images, all persisted step by step so a re-run after a crash resumes
 * where the last run stopped. Paid provider results go through the provider_calls ledger first:
 * a re-run reuses them instead of paying again.
 */

/** Streamed text reaches the event log in batches: one row per flush, not per token. */
const DELTA_FLUSH_MS = 250;
const MAX_REASON = 500;

type TextRow = Row<'text_candidates'>;
/** The note a set's storyboard is built from. */
type Lead = Pick<Note, 'title' | 'cover_title' | 'image_brief' | 'angle_label'> & { image_plan?: Note['image_plan'] };

/** A stored text as the lead of its set: a task's stored texts keep no image plan (the storyboard's defaults stand). */
const leadOf = (row: TextRow | undefined): Lead | null => (row ? { title: row.title, cover_title: row.cover_title, image_brief: row.image_brief, angle_label: row.angle_label } : null);


/** The provider failure kind an error event carries (contract-decisions §7); null when not a provider failure. */
const kindOf = (err: unknown) => (err instanceof ProviderError ? err.kind : null);

/** Notes asked for in one call: a set of several would be cut by small output caps. */
const NOTES_PER_CALL = 3;
/** Output budget of one note (a 600-character body, title, tags, brief, JSON) and of a call's overhead. */
const NOTE_TOKENS = 1200;
const CALL_TOKENS = 400;

function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return clip(message.replace(/\s+/g, ' '), MAX_REASON);
}

/**
 * Moves a task that is still pending or generating to `failed` with the reason, and tells the
 * stream. Used when a run cannot start and, through the job handler, when the job fails for good.
 */
export function failTaskGeneration(ctx: AppContext, task: Pick<TaskRow, 'id' | 'workspace_id' | 'status'>, reason: Failure): Promise<boolean> {
  const columns = taskFailureColumns(reason, MAX_REASON);
  return moveTask(
    ctx,
    task,
    'fail_generation',
    { ...columns, updated_at: nowIso(ctx.clock.now()) },
    { before: [failureEvent({ ...reason, message: columns.failure_reason })], after: [{ name: 'done', data: { status: 'failed' } }] },
  );
}

/**
 * The `task.generate` job. A task that is no longer pending or generating is left alone (the job
 * may be a duplicate or late). `generation` is set by whoever started the run: the task's first
 * run is generation 1, and the tasks module increments it for every regenerate.
 */
export async function runTaskGeneration(ctx: AppContext, taskId: number, signal?: AbortSignal): Promise<void> {
  const task = await repo.findTaskById(ctx.db, taskId);
  if (!task || !IN_FLIGHT.includes(task.status)) return;
  const generation = Math.max(task.generation, 1);

  const [routes, product] = await Promise.all([
    resolveConnections(ctx, { workspaceId: task.workspace_id, operatorId: task.operator_id, recorded: { text: task.api_key_id, image: task.image_key_id } }),
    productForGeneration(ctx, task.workspace_id, task.product_id),
  ]);
  if (!routes.text && task.track === 'ai') {
    await failTaskGeneration(ctx, task, failure('failure.task_no_text_connection'));
    return;
  }
  if (!product) {
    await failTaskGeneration(ctx, task, failure('failure.product_gone'));
    return;
  }
  const loaded = await loadGenerationInputs(ctx, task, generation, product);

  const imageRoute = task.image_count > 0 ? routes.image : undefined;
  const started = await moveTask(ctx, task, 'start_generation', {
    generation,
    api_key_id: routes.text?.creds.keyId ?? null,
    provider: (routes.text ?? imageRoute)?.creds.provider ?? null,
    image_key_id: imageRoute?.creds.keyId ?? null,
    providers: json({ text: routes.text?.used ?? null, vision: null, image: imageRoute?.used ?? null }),
    need_product_image: loaded.productImages.length > 0,
    ...NO_TASK_FAILURE,
    updated_at: nowIso(ctx.clock.now()),
  });
  if (!started) return;
  await recordAudit(ctx.db, { workspaceId: task.workspace_id, taskId: task.id, userId: null, now: ctx.clock.now() }, [
    // The connections as routed now: a connection edited later does not rewrite what this run used.
    { kind: 'generation', action: 'start_generation', detail: { generation, text: routes.text?.used ?? null, image: imageRoute?.used ?? null } },
  ]);
  if (imageRoute) warmImageThreads();

  const providers = {
    text: routes.text ? ctx.providers.forCredentials(routes.text.creds, { caller: callerOf(task) }) : null,
    image: imageRoute ? ctx.providers.forCredentials(imageRoute.creds, { caller: callerOf(task) }) : null,
  };
  const run = new GenerationRun(ctx, { ...task, generation, status: 'generating' }, providers, loaded, ctx.config.generation, signal);
  await run.execute();
}

interface Counters {
  textsDone: number;
  textsTotal: number;
  imagesDone: number;
  imagesFailed: number;
  imagesTotal: number;
}

class GenerationRun {
  private readonly pool: Semaphore;
  private readonly prefix: string;
  private readonly counters: Counters = { textsDone: 0, textsTotal: 0, imagesDone: 0, imagesFailed: 0, imagesTotal: 0 };
  private readonly setFailures: string[] = [];
  private readonly imageFailures: string[] = [];
  /** The provider failure kind (and situation) of the first call that failed, for a failure of the whole run. */
  private cause: ReturnType<typeof providerParams> | undefined;
  private textsThisGeneration = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly task: TaskRow,
    private readonly providers: { text: Provider | null; image: Provider | null },
    private readonly loaded: LoadedInputs,
    options: GenerationOptions,
    private readonly signal?: AbortSignal,
  ) {
    this.pool = new Semaphore(options.imageConcurrency);
    this.prefix = `task:${task.id}:gen:${task.generation}`;
  }

  private get ws() {
    return this.task.workspace_id;
  }

  private now() {
    return nowIso(this.ctx.clock.now());
  }

  async execute(): Promise<void> {
    const { task } = this;
    const existingTexts = task.track === 'ai' ? await repo.textCandidatesOf(this.ctx.db, this.ws, task.id, task.generation) : [];
    const settledSlots = await repo.imageSlotsOf(this.ctx.db, this.ws, task.id, task.generation);
    const doneImages = new Set(settledSlots.map((s) => `${s.strategy}:${s.seq}`));
    const sets =
      task.track === 'ai'
        ? slotsByStrategy(task.text_count)
        : imageStrategies(task.text_count).map((strategy) => ({ strategy, slots: [] as number[] }));
    this.counters.textsTotal = task.track === 'ai' ? task.text_count : 0;
    this.counters.textsDone = existingTexts.length;
    this.textsThisGeneration = existingTexts.length;
    this.counters.imagesTotal = sets.length * task.image_count;
    this.counters.imagesDone = settledSlots.filter((s) => s.status === 'done').length;
    this.counters.imagesFailed = settledSlots.filter((s) => s.status === 'failed').length;
    const importTexts = task.track === 'import' ? await repo.latestTextsOf(this.ctx.db, this.ws, task.id) : [];

    // Each set goes on to its images as soon as its texts are written and checked; their
    // scoring and storing runs alongside, so the judge call is not on the images' path.
    await this.settleAll(
      sets.map(async ({ strategy, slots }) => {
        if (task.track === 'import') {
          await this.imagesOfSet(strategy, leadOf(importTexts.find((r) => r.strategy === strategy)), doneImages);
          return;
        }
        const prepared = await this.prepareTexts(strategy, slots, existingTexts.filter((r) => r.strategy === strategy));
        await this.settleAll([prepared.stored, this.imagesOfSet(strategy, prepared.lead, doneImages)]);
      }),
    );
    await this.finish();
  }

  /**
   * Waits for every step, then rethrows the first failure. What escapes the per-step handling is
   * infrastructure (database, storage) or cancellation: the job is retried and resumes from
   * everything persisted so far.
   */
  private async settleAll(steps: Array<Promise<unknown>>): Promise<void> {
    const outcomes = await Promise.allSettled(steps);
    if (this.signal?.aborted) throw this.signal.reason;
    const broken = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (broken) throw broken.reason;
  }

  /** A paid call's result, from the ledger when an earlier run already paid for it. */
  private ledger<T>(callKey: string, call: () => Promise<T>): Promise<T> {
    return viaLedger(this.ctx, this.ws, callKey, call);
  }

  // ---- texts -------------------------------------------------------------------------------

  /**
   * A set's notes: written (or taken from the ledger) and checked against the banned words. The
   * lead note (the first slot) is what the set's images illustrate; `stored` settles once the
   * notes are scored and persisted as candidates.
   */
  private async prepareTexts(strategy: StrategyCode, slots: number[], existing: TextRow[]): Promise<{ lead: Lead | null; stored: Promise<unknown> }> {
    const done = { lead: leadOf(existing[0]), stored: Promise.resolve() };
    if (existing.length >= slots.length) return done;
    const count = slots.length;
    const input = notesInput(this.loaded.inputs, strategy, count);
    let notes: Note[];
    try {
      notes = (await this.writeNotes(strategy, count, `${this.prefix}:text:${strategy}`, 0)).map((n) => normaliseNote(n, strategy));
      if (notes.length === 0) throw new ProviderError('bad_output', 'the reply held no notes', this.providers.text!.label);
    } catch (err) {
      if (this.signal?.aborted) throw err;
      this.setFailures.push(`set ${strategy}: ${describe(err)}`);
      this.cause ??= providerParams(err);
      this.ctx.log.warn({ taskId: this.task.id, strategy, err: describe(err) }, 'text generation of a set failed');
      await this.ctx.events.append(this.task.id, [failureEvent(failure('failure.text_set', { set: strategy, detail: describe(err), ...providerParams(err) }))]);
      return done;
    }
    const textProgress = this.commitLocked(async (trx) => {
      this.counters.textsDone += notes.length;
      return { result: undefined, events: [await this.setProgress(trx, 'text', this.counters.textsDone, this.counters.textsTotal)] };
    });
    const checked: CheckedNote[] = [];
    for (const [k, note] of notes.entries()) checked.push(await this.checkOrRewrite(input, note, slots[k]!));
    const lead = { ...checked[0]!.note, angle_label: notes[0]!.angle_label, image_brief: notes[0]!.image_brief, image_plan: notes[0]!.image_plan };
    return { lead, stored: textProgress.then(() => this.storeTexts(strategy, slots, input, notes, checked)) };
  }

  private async storeTexts(strategy: StrategyCode, slots: number[], input: NotesIntentInput, notes: Note[], checked: CheckedNote[]): Promise<void> {
    const judged = await this.judgeSet(strategy, slots, input, notes, checked);
    const scored = judged.map((j) => j.scored);
    const at = this.now();
    const rows: NewRow<'text_candidates'>[] = judged.map(({ checked: c }, k) => {
      const note = notes[k]!;
      return {
        workspace_id: this.ws,
        task_id: this.task.id,
        generation: this.task.generation,
        slot: slots[k]!,
        strategy,
        angle_label: note.angle_label,
        title: c.note.title,
        content: c.note.content,
        tags: json(c.note.tags),
        cover_title: c.note.cover_title,
        image_brief: note.image_brief,
        source: 'ai',
        score: json(scored[k]!.score),
        score_total: scored[k]!.score.total,
        banned_word_status: c.status,
        banned_hits: json(c.hits),
        is_selected: false,
        verdict: scored[k]!.verdict,
        summary: scored[k]!.summary,
        edited: false,
        created_at: at,
        updated_at: at,
      };
    });
    await this.commitLocked(async (trx) => {
      const fresh = await repo.insertTextCandidates(trx, rows);
      this.textsThisGeneration += fresh.length;
      const progress = await this.setProgress(trx, 'score', this.textsThisGeneration, this.counters.textsTotal);
      return { result: fresh, events: [...fresh.map((row): NewTaskEvent => ({ name: 'text_candidate', data: textCandidateView(row) })), progress] };
    });
  }

  /**
   * `count` notes of a set, at most NOTES_PER_CALL per call, each call through the ledger (the
   * first under the set's own key, so a run resumed across this change reuses its paid reply).
   * A reply cut by its output budget is split into two smaller calls; one note cut on its own is
   * asked again once with twice the budget (the provider caps it at the model's output limit)
   * before it stays `truncated`: a verbose model writes every note it can.
   */
  private async writeNotes(strategy: StrategyCode, count: number, callKey: string, offset: number): Promise<Note[]> {
    if (count > NOTES_PER_CALL) {
      const parts: Note[] = [];
      for (let start = 0; start < count; start += NOTES_PER_CALL) {
        const size = Math.min(NOTES_PER_CALL, count - start);
        parts.push(...(await this.writeNotes(strategy, size, start === 0 ? callKey : `${callKey}:from${start}`, offset + start)));
      }
      return parts;
    }
    // The set's first note plans its images: only the call that writes it is given the roles.
    const input = notesInput(this.loaded.inputs, strategy, count, offset === 0 ? storyboardRoles(strategy, this.task.image_count) : []);
    const budget = CALL_TOKENS + NOTE_TOKENS * count;
    try {
      return (await this.ledger(callKey, () => this.callNotes(input, notesPrompt(input), budget, { strategy, offset }))).notes.slice(0, count);
    } catch (err) {
      if (!(err instanceof ProviderError && err.kind === 'truncated')) throw err;
      if (count === 1) {
        this.ctx.log.warn({ taskId: this.task.id, strategy }, 'one note cut by the output budget: asking once more with twice the budget');
        return (await this.ledger(`${callKey}:roomy`, () => this.callNotes(input, notesPrompt(input), budget * 2, { strategy, offset }))).notes.slice(0, count);
      }
      this.ctx.log.warn({ taskId: this.task.id, strategy, count }, 'notes cut by the output budget: asking in two smaller calls');
      const half = Math.ceil(count / 2);
      return [...(await this.writeNotes(strategy, half, `${callKey}:a`, offset)), ...(await this.writeNotes(strategy, count - half, `${callKey}:b`, offset + half))];
    }
  }

  private async callNotes(input: NotesIntentInput, prompt: { system: string; prompt: string }, maxTokens: number, stream?: { strategy: StrategyCode; offset: number }): Promise<NotesReply> {
    const sink = stream ? new DeltaSink(this.ctx, this.task.id, stream.strategy, stream.offset) : undefined;
    try {
      const result = await this.providers.text!.generateText({
        ...prompt,
        intent: { kind: 'notes', input },
        schema: notesReplySchema(input.count),
        maxTokens,
        ...(sink ? { onDelta: (delta: string) => sink.push(delta) } : {}),
        signal: this.signal,
      });
      // The prompt snapshot of the trail: only calls that answered, so a retried call is one line.
      await recordAudit(this.ctx.db, { workspaceId: this.ws, taskId: this.task.id, userId: null, now: this.ctx.clock.now() }, [
        { kind: 'generation', action: 'notes_prompt', detail: { generation: this.task.generation, strategy: input.strategy, provider: this.providers.text!.label, model: result.model, ...prompt } },
      ]);
      return result.json as NotesReply;
    } finally {
      await sink?.close();
    }
  }

  /** hard_block or over-long texts get one automatic rewrite; whatever it yields is checked again and kept. */
  private async checkOrRewrite(input: NotesIntentInput, note: Note, slot: number): Promise<CheckedNote> {
    const { checked } = await publishableNote(this.providers.text!, {
      matcher: this.loaded.matcher,
      input,
      note,
      ledger: (call, suffix = '') => this.ledger(`${this.prefix}:rewrite:${slot}${suffix}`, call),
      signal: this.signal,
      onRewriteFailed: (err) => this.ctx.log.warn({ taskId: this.task.id, slot, err: describe(err) }, 'automatic rewrite of a text failed'),
    });
    return checked;
  }

  /** The set judged; a note flagged with unsupported claims is rewritten once (its slot's own ledger key) and judged again. */
  private judgeSet(strategy: StrategyCode, slots: number[], input: NotesIntentInput, notes: Note[], checked: CheckedNote[]): Promise<JudgedNote[]> {
    const { inputs, matcher } = this.loaded;
    return judgedNotes(this.providers.text, {
      matcher,
      subject: { productName: inputs.product.name, category: inputs.product.category, sellingPoints: inputs.product.selling_points, theme: inputs.theme },
      drafts: checked.map((c, k) => ({ input, note: notes[k]!, checked: c })),
      ledger: {
        score: (call) => this.ledger(`${this.prefix}:score:${strategy}`, call),
        rewrite: (k) => (call, suffix = '') => this.ledger(`${this.prefix}:claims-rewrite:${slots[k]!}${suffix}`, call),
        rescore: (call) => this.ledger(`${this.prefix}:rescore:${strategy}`, call),
      },
      signal: this.signal,
      onJudgeFailed: (err) => this.ctx.log.warn({ taskId: this.task.id, strategy, err: describe(err) }, 'judge failed; heuristic scores used'),
      onRewriteFailed: (k, err) => this.ctx.log.warn({ taskId: this.task.id, slot: slots[k], err: describe(err) }, 'rewrite of a text with unsupported claims failed'),
    });
  }

  // ---- images ------------------------------------------------------------------------------

  private async imagesOfSet(strategy: StrategyCode, lead: Lead | null, done: Set<string>): Promise<void> {
    const { inputs } = this.loaded;
    if (this.task.image_count === 0) return;
    if (this.task.track === 'ai' && !lead) {
      // No text to illustrate: the set's images are not attempted, and say so.
      this.counters.imagesFailed += this.task.image_count;
      this.imageFailures.push(`set ${strategy}: no text, so no images`);
      return;
    }
    if (!this.providers.image) {
      this.counters.imagesFailed += this.task.image_count;
      this.imageFailures.push(`set ${strategy}: no connection draws images`);
      return;
    }
    const frames = buildStoryboard({
      strategy,
      imageCount: this.task.image_count,
      note: lead,
      productName: inputs.product.name,
      productCategory: inputs.product.category,
      productAppearance: inputs.product.appearance,
      sellingPoints: inputs.product.selling_points,
      theme: inputs.theme,
      matcher: this.loaded.matcher,
    });
    await this.settleAll(frames.filter((frame) => !done.has(`${strategy}:${frame.seq}`)).map((frame) => this.image(strategy, frame)));
  }

  /** One image: generated (or taken from the ledger), overlaid, stored, then recorded with its event. */
  private async image(strategy: StrategyCode, frame: StoryboardFrame): Promise<void> {
    const imageProvider = this.providers.image!;
    // A photo goes along only where the model takes one; otherwise no prompt claims a reference.
    const references = pickProductImages(this.loaded.productImages, frame.role, imageProvider.referenceImages);
    const prompt = imagePrompt(frame, this.loaded.inputs.product, references.length > 0);
    const request: FrameImageRequest = {
      workspaceId: this.ws,
      callKey: `${this.prefix}:image:${strategy}:${frame.seq}`,
      frame,
      prompt,
      input: {
        purpose: 'storyboard-image',
        strategy,
        role: frame.role,
        seq: frame.seq,
        seed: `${this.prefix}:${strategy}:${frame.seq}`,
        product_name: this.loaded.inputs.product.name,
        theme: this.loaded.inputs.theme,
        brief: frame.brief,
      },
      references,
      overlay: this.task.overlay_text,
      signal: this.signal,
    };
    let raw: StoredImage;
    let file: StoredImage;
    try {
      // The pool bounds provider calls only: normalising the reply and drawing the overlay hold no slot.
      raw = await generateFrameImage(this.ctx, imageProvider, { ...request, slot: (work) => this.pool.run(work, this.signal) });
      file = await letterFrameImage(this.ctx, raw, frame, this.task.overlay_text, taskCoverTemplate(this.task.id, strategy));
    } catch (err) {
      if (this.signal?.aborted) throw err;
      await this.imageFailed(strategy, frame, prompt, err);
      return;
    }
    const lettered = file !== raw;
    await this.commitLocked(async (trx) => {
      const row = await repo.insertImageCandidate(trx, {
        ...this.slotColumns(strategy, frame, prompt),
        status: 'done',
        file_key: file.file_key,
        mime: file.mime,
        // The original stays, so a cover is lettered again (not drawn over) when its title changes.
        raw_file_key: lettered ? raw.file_key : null,
        raw_mime: lettered ? raw.mime : null,
        lettered_title: lettered ? (frame.overlay?.text ?? null) : null,
      });
      if (row) {
        this.counters.imagesDone += 1;
        await recordAudit(trx, { workspaceId: this.ws, taskId: this.task.id, userId: null, now: this.ctx.clock.now() }, [
          {
            kind: 'generation',
            action: 'image_prompt',
            detail: { generation: this.task.generation, candidate_id: row.id, strategy, seq: frame.seq, provider: imageProvider.label, model: imageProvider.models.image, produce_id: request.callKey, prompt },
          },
        ]);
      }
      const progress = await this.imageProgress(trx);
      return { result: row, events: [...(row ? [{ name: 'image_candidate' as const, data: imageCandidateView(this.ctx, row) }] : []), progress] };
    });
  }

  /** The columns of one frame's image candidate, whatever its outcome. */
  private slotColumns(strategy: StrategyCode, frame: StoryboardFrame, prompt: string) {
    return {
      workspace_id: this.ws,
      task_id: this.task.id,
      generation: this.task.generation,
      strategy,
      role: frame.role,
      seq: frame.seq,
      brief: frame.brief,
      overlay: json(frame.overlay),
      prompt,
      is_selected: false,
      is_regen: this.task.generation > 1,
      ai_visual_score: null,
      ai_visual_note: null,
      created_at: this.now(),
      updated_at: this.now(),
    };
  }

  /** A failed image is stored as a failed slot (its error kind with it), so retry-images can make it again. */
  private async imageFailed(strategy: StrategyCode, frame: StoryboardFrame, prompt: string, err: unknown): Promise<void> {
    const failed = failure('failure.image', { set: strategy, seq: frame.seq, role: frame.role, detail: describe(err), ...providerParams(err) });
    const message = failed.message;
    this.imageFailures.push(message);
    this.cause ??= providerParams(err);
    this.ctx.log.warn({ taskId: this.task.id, strategy, seq: frame.seq, err: describe(err) }, 'image generation failed');
    await this.commitLocked(async (trx) => {
      const row = await repo.insertImageCandidate(trx, {
        ...this.slotColumns(strategy, frame, prompt),
        status: 'failed',
        file_key: null,
        mime: null,
        ...errorColumns(failed),
        error_kind: kindOf(err),
      });
      if (row) this.counters.imagesFailed += 1;
      const events: NewTaskEvent[] = [failureEvent(failed)];
      if (row) events.push({ name: 'image_candidate', data: imageCandidateView(this.ctx, row) });
      return { result: undefined, events: [...events, await this.imageProgress(trx)] };
    });
  }

  /**
   * Runs `work` in an event transaction that first locks the task row: counters advanced inside
   * it advance in the same order as the events' seq, so progress never goes backwards.
   */
  private commitLocked<T>(work: (trx: Transaction<DB>) => Promise<{ result: T; events: NewTaskEvent[] }>): Promise<T> {
    return this.ctx.events.commit(this.task.id, async (trx) => {
      await repo.lockTask(trx, this.ctx.dialect, this.ws, this.task.id);
      return work(trx);
    });
  }

  /** Image progress counts settled images (made or failed), so it always reaches its total. */
  private imageProgress(trx: Transaction<DB>): Promise<NewTaskEvent> {
    return this.setProgress(trx, 'image', this.counters.imagesDone, this.counters.imagesTotal, this.counters.imagesFailed);
  }

  /** The task's progress column and its event, written together. */
  /** Images count `done` and `failed` apart (like a fission's), so a bar never shows failures as finished. */
  private async setProgress(trx: Transaction<DB>, stage: 'text' | 'score' | 'image', done: number, total: number, failed?: number): Promise<NewTaskEvent> {
    const data = failed === undefined ? { stage, done, total } : { stage, done, failed, total };
    await transition(trx, this.task, 'report_progress', { progress: json(data) }, { generation: this.task.generation });
    return { name: 'progress', data };
  }

  // ---- settle ------------------------------------------------------------------------------

  /**
   * pending_selection when the task has something to work with, failed (with the reason) when
   * not. A regenerate that produced nothing still leaves the earlier candidates usable.
   */
  private async finish(): Promise<void> {
    const { task, counters } = this;
    const producedImages = counters.imagesDone > 0;
    const usable =
      this.textsThisGeneration > 0 ||
      (task.track === 'import' && (producedImages || task.image_count === 0)) ||
      (task.generation > 1 && (await repo.countTextCandidates(this.ctx.db, this.ws, task.id)) > 0);
    // Sets and images settle in any order; the stored reason should not depend on it.
    const problems = [...this.setFailures.sort(), ...this.imageFailures.sort()];
    const status = usable ? 'pending_selection' : 'failed';
    const before: NewTaskEvent[] = [];
    let failed: ReturnType<typeof taskFailureColumns> | typeof NO_TASK_FAILURE = NO_TASK_FAILURE;
    if (!usable) {
      const nothing = failure('failure.nothing', { detail: problems.join('; ') || 'no result', ...(this.cause ?? {}) });
      failed = taskFailureColumns(nothing, MAX_REASON);
      // The event's error_kind stays null (several calls may have failed); params carry the first one's.
      before.push({ name: 'error', data: { ...failureEvent(nothing).data, message: failed.failure_reason, error_kind: null } });
    } else if (problems.length > 0) {
      const parts: string[] = [];
      const counts: Record<string, number> = {};
      if (this.setFailures.length > 0) {
        parts.push(`${this.setFailures.length} of ${slotsByStrategy(task.text_count).length} text sets failed`);
        Object.assign(counts, { texts_failed: this.setFailures.length, texts_total: slotsByStrategy(task.text_count).length });
      }
      if (counters.imagesFailed > 0) {
        parts.push(`${counters.imagesFailed} of ${counters.imagesTotal} images failed`);
        Object.assign(counts, { images_failed: counters.imagesFailed, images_total: counters.imagesTotal });
      }
      before.push(failureEvent(failure('failure.partly', { parts: parts.join(', '), ...counts })));
    }
    const progress = task.image_count > 0 && counters.imagesTotal > 0
      ? { stage: 'image', done: counters.imagesDone, failed: counters.imagesFailed, total: counters.imagesTotal }
      : { stage: 'score', done: this.textsThisGeneration, total: counters.textsTotal };
    await moveTask(
      this.ctx,
      task,
      usable ? 'complete_generation' : 'fail_generation',
      { ...failed, progress: json(progress), updated_at: this.now() },
      { generation: task.generation, before, after: [{ name: 'done', data: { status } }] },
    );
  }
}

/** Buffers streamed JSON, extracts the notes' text and appends it as text_delta events every DELTA_FLUSH_MS. */
class DeltaSink {
  private readonly pending = new Map<number, string>();
  private readonly extractor: NotesDeltaExtractor;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: AppContext,
    private readonly taskId: number,
    private readonly strategy: StrategyCode,
    /** Index in the set of the call's first note (a set may be written in several calls). */
    private readonly offset = 0,
  ) {
    this.extractor = new NotesDeltaExtractor((index, delta) => {
      index += this.offset;
      this.pending.set(index, (this.pending.get(index) ?? '') + delta);
      this.timer ??= setTimeout(() => this.flush(), DELTA_FLUSH_MS);
    });
  }

  push(chunk: string): void {
    this.extractor.push(chunk);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const events: NewTaskEvent[] = [...this.pending].map(([index, delta]) => ({ name: 'text_delta', data: { strategy: this.strategy, index, delta } }));
    this.pending.clear();
    // Deltas are a preview; the text_candidate event is authoritative, so a lost batch is only logged.
    this.writing = this.writing
      .then(() => this.ctx.events.append(this.taskId, events))
      .catch((err: unknown) => this.ctx.log.warn({ taskId: this.taskId, err: describe(err) }, 'text deltas not stored'));
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.flush();
    await this.writing;
  }
}

/** The `task.generate` job: the queue carries the task id only. */
export const taskGenerateJob: JobDefinition = {
  kind: 'task.generate',
  leases: 'tasks',
  findStale: repo.findStaleGenerations,
  run: (ctx, taskId, job) => runTaskGeneration(ctx, taskId, job.signal),
  onFailed: async (ctx, taskId, reason) => {
    const task = await repo.findTaskById(ctx.db, taskId);
    if (task) await failTaskGeneration(ctx, task, failure('failure.generation_stopped', { detail: reason }));
  },
};
