import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import { createOnce } from '../../db/idempotency.js';
import type { DB, Row, TaskStatus } from '../../db/schema.js';
import type { StrategyCode } from '../../content/schemas.js';
import { imageStrategies } from '../../content/strategies.js';
import { fitCoverTitle, NOTE_LIMITS, stripMarkdown } from '../../content/limits.js';
import { clip, clipWords } from '../../content/text.js';
import { fileUrl } from '../../storage/signed-url.js';
import { imageCandidateView, providersView, textCandidateView } from './views.js';
import type { AuthUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { failure, NO_TASK_FAILURE, type FailureReason, type StoredParams } from '../../http/reasons.js';
import { pageOf, type PageQuery } from '../../http/schemas.js';
import { accountForNotes } from '../accounts/service.js';
import { workspaceCapabilities } from '../api-keys/service.js';
import { assertNoHardBlock } from '../banned-words/service.js';
import { assertPostable, coverFirst, editedNote, evaluatedColumns, noteEvaluator, publishableText, shippedImages, type NoteEvaluator, type PostableNote } from '../notes/service.js';
import { recordSignal, type PreferenceSignal } from '../preferences/service.js';
import { productForGeneration } from '../products/service.js';
import { parseDateBound } from './dates.js';
import type { TaskListCache } from './list-cache.js';
import { nextCursor, pageStart } from './list-paging.js';
import * as repo from './repository.js';
import { allowedActions, runTaskAction, type TaskRow } from './lifecycle.js';
import { failTaskGeneration, taskGenerateJob } from './pipeline.js';
import { syncCovers } from './images.js';

// The lifecycle is how other modules change a task's status (review, delivery).
export { allowedActions, assertAccepts, runTaskAction, TASK_RULES, type TaskAction, type TaskRow } from './lifecycle.js';
// Wherever another module shows or packs a task's images, their covers follow the chosen text.
export { syncCovers } from './images.js';
// A batch runs its tasks' generation in its own lane and fails the ones it cancels.
export { failTaskGeneration, taskGenerateJob } from './pipeline.js';


export interface CreateTaskInput {
  product_id: number;
  benchmark_ids?: number[] | undefined;
  theme: string;
  text_count: number;
  image_count: number;
  track: 'ai' | 'import';
  overlay_text?: boolean | undefined;
  /** The account the notes are meant for (§11): its persona goes to generation. */
  account_id?: number | undefined;
}

/**
 * The task a create request asks for, whatever its spelling: only the fields read, with their
 * defaults, benchmarks as a set, the theme as stored, in one key order.
 */
function canonicalTaskRequest(input: CreateTaskInput) {
  return {
    product_id: input.product_id,
    benchmark_ids: [...new Set(input.benchmark_ids ?? [])].sort((a, b) => a - b),
    theme: input.theme.trim(),
    text_count: input.text_count,
    image_count: input.image_count,
    track: input.track,
    overlay_text: input.overlay_text ?? true,
    account_id: input.account_id ?? null,
  };
}

export async function createTask(ctx: AppContext, auth: AuthUser, input: CreateTaskInput, idempotencyKey: string | undefined) {
  const now = ctx.clock.now();
  const bodyHash = idempotencyKey ? createHash('sha256').update(JSON.stringify(canonicalTaskRequest(input))).digest('hex') : null;
  const created = await createOnce(ctx.db, now, {
    key: idempotencyKey,
    hash: bodyHash,
    reused: () => fail('task.idempotency_reused'),
    find: (db) => repo.findTaskByIdempotencyKey(db, auth.workspaceId, auth.userId, idempotencyKey!),
    release: (db, id) => repo.clearIdempotencyKey(db, auth.workspaceId, id),
    prepare: () => prepareTask(ctx, auth.workspaceId, input),
    insert: (trx, prepared) => insertPreparedTask(trx, auth, prepared, nowIso(now), { idempotency_key: idempotencyKey ?? null, idempotency_hash: bodyHash, batch_id: null }),
  });
  // Read before it is queued: the answer is the task as created, whatever a fast worker (another
  // process, on Redis) makes of it in the next milliseconds; its stream tells the rest.
  const item = await getTaskListItem(ctx, auth, created.id);
  if (created.isNew) await enqueueGeneration(ctx, { id: created.id, workspace_id: auth.workspaceId, status: 'pending' });
  return item;
}

/** A create request checked against the workspace: what insertPreparedTask stores. */
export interface PreparedTask {
  input: CreateTaskInput;
  productId: number;
  theme: string;
  benchmarkIds: number[];
  accountId: number | null;
}

/**
 * The checks of a new task (product, benchmarks, account, connections, hard-blocked words), shared
 * by a single create and a batch's items; throws the first refusal.
 */
export async function prepareTask(ctx: AppContext, workspaceId: number, input: CreateTaskInput): Promise<PreparedTask> {
  const product = await productForGeneration(ctx, workspaceId, input.product_id);
  if (!product) throw fail('product.id_not_found', { id: input.product_id });
  const benchmarkIds = [...new Set(input.benchmark_ids ?? [])];
  const benchmarks = await repo.findBenchmarks(ctx.db, workspaceId, benchmarkIds);
  for (const id of benchmarkIds) {
    const benchmark = benchmarks.find((b) => b.id === id);
    if (!benchmark) throw fail('benchmark.id_not_found', { id });
    if (benchmark.product_id !== product.id) throw fail('task.benchmark_other_product', { id });
  }
  const theme = input.theme.trim();
  if (!theme) throw fail('validation.blank', { field: 'body.theme' });
  const account = input.account_id !== undefined ? await accountForNotes(ctx, workspaceId, input.account_id) : null;
  const capabilities = await workspaceCapabilities(ctx, workspaceId);
  if (input.track === 'ai' ? !capabilities.text : !(capabilities.text || capabilities.image)) {
    throw fail('connection.none_for_text');
  }
  if (input.image_count > 0 && !capabilities.image) {
    throw fail('connection.none_for_image');
  }
  await assertNoHardBlock(ctx, workspaceId, product.id, [
    theme,
    product.name,
    ...product.selling_points,
    product.custom_prompt,
    // It is sent to every image model of the task.
    product.appearance,
    ...benchmarks.map((b) => b.highlights),
    // The account's persona is sent to the writer too.
    account?.persona ?? null,
  ]);
  return { input, productId: product.id, theme, benchmarkIds, accountId: account?.id ?? null };
}

/** Stores a prepared task, pending, inside the caller's transaction; the caller queues it after commit. */
export async function insertPreparedTask(
  trx: Transaction<DB>,
  auth: Pick<AuthUser, 'workspaceId' | 'userId'>,
  prepared: PreparedTask,
  stamp: string,
  extra: { idempotency_key: string | null; idempotency_hash: string | null; batch_id: number | null },
): Promise<number> {
  const { input } = prepared;
  const id = await repo.insertTask(trx, {
    workspace_id: auth.workspaceId,
    product_id: prepared.productId,
    operator_id: auth.userId,
    theme: prepared.theme,
    text_count: input.text_count,
    image_count: input.image_count,
    track: input.track,
    status: 'pending',
    // Set by the generation run: whether the product has an image to use as reference.
    need_product_image: false,
    overlay_text: input.overlay_text ?? true,
    account_id: prepared.accountId,
    generation: 0,
    progress: json(null),
    ...extra,
    created_at: stamp,
    updated_at: stamp,
  });
  await repo.insertTaskBenchmarks(trx, auth.workspaceId, id, prepared.benchmarkIds);
  return id;
}

/**
 * Only the id goes on the queue. Should the queue refuse it, the task is failed at once (with
 * its events) rather than left pending forever; regenerate starts it again.
 */
async function enqueueGeneration(ctx: AppContext, task: Pick<TaskRow, 'id' | 'workspace_id' | 'status'>) {
  try {
    await ctx.queue.enqueue(taskGenerateJob.kind, task.id);
  } catch (err) {
    ctx.log.error({ err, taskId: task.id }, 'could not queue the task');
    const reason = failure('failure.queue_unavailable');
    await failTaskGeneration(ctx, task, reason);
    throw fail('task.not_queued', { id: task.id, detail: reason.message });
  }
}

export interface ListTasksQuery extends PageQuery {
  status?: TaskStatus | undefined;
  product_id?: number | undefined;
  date_from?: string | undefined;
  date_to?: string | undefined;
  cursor?: string | undefined;
  q?: string | undefined;
  hide_archived?: boolean | undefined;
}

/** The pairs of a keyword looked up to choose the rarest; a long keyword's first pairs suffice. */
const KEYWORD_PAIRS_CONSIDERED = 8;

/**
 * A keyword as the repository searches it: lower-cased like the stored pairs (task_theme_grams),
 * driven by its pair that the fewest tasks of the workspace hold (a one-character keyword is a
 * prefix of the pairs).
 */
async function taskKeyword(ctx: AppContext, workspaceId: number, q: string | undefined): Promise<repo.TaskKeyword | undefined> {
  const text = q?.trim().toLowerCase();
  if (!text) return undefined;
  const chars = Array.from(text);
  if (chars.length === 1) return { text, gram: { prefix: text } };
  const pairs = [...new Set(chars.slice(0, -1).map((c, i) => c + chars[i + 1]))].slice(0, KEYWORD_PAIRS_CONSIDERED);
  const counted = await repo.gramFrequencies(ctx.db, workspaceId, pairs);
  const rarest = counted.reduce((best, next) => (next.n < best.n ? next : best));
  return { text, gram: { equals: rarest.gram } };
}

function listFilters(query: ListTasksQuery): repo.TaskFilters {
  const from = query.date_from === undefined ? undefined : parseDateBound(query.date_from, 'date_from', 'start');
  const to = query.date_to === undefined ? undefined : parseDateBound(query.date_to, 'date_to', 'end');
  if (from && to && (from.value > to.value || (from.value === to.value && !to.inclusive))) {
    throw fail('validation.dates_reversed');
  }
  return { status: query.status, productId: query.product_id, from: from && { value: from.value, inclusive: true }, to, hideArchived: query.hide_archived };
}

export async function listTasks(ctx: AppContext, auth: AuthUser, query: ListTasksQuery) {
  const filters = { ...listFilters(query), keyword: await taskKeyword(ctx, auth.workspaceId, query.q) };
  const [items, total] = await repo.listTasks(ctx.db, ctx.dialect, auth.workspaceId, filters, pageStart(query));
  return { ...pageOf(items, total, query), next_cursor: nextCursor(items, query.page_size) };
}

/**
 * `listTasks` as the response body `serialize` makes of it (UTF-8), from `cache` while the workspace's
 * task list has not changed. The version is the one read with the session (AuthUser), before
 * the page: a change committed in between can only make the cached page newer than its tag (the
 * next request reads the new version and misses), never older.
 */
export async function listTasksSerialized(
  ctx: AppContext,
  auth: AuthUser,
  query: ListTasksQuery,
  cache: TaskListCache,
  serialize: (page: Awaited<ReturnType<typeof listTasks>>) => string,
): Promise<Buffer> {
  if (!cache.enabled) return Buffer.from(serialize(await listTasks(ctx, auth, query)));
  const filters = listFilters(query);
  const version = auth.taskListVersion;
  const key = JSON.stringify([
    auth.workspaceId,
    filters.status,
    filters.productId,
    filters.from?.value,
    filters.to,
    filters.hideArchived === true,
    query.q?.trim().toLowerCase() || undefined,
    query.page,
    query.page_size,
    query.cursor,
  ]);
  const cached = cache.get(key, version);
  if (cached !== undefined) return cached;
  const body = Buffer.from(serialize(await listTasks(ctx, auth, query)));
  cache.set(key, version, body);
  return body;
}

/**
 * The cover of each task for list thumbnails: the first image of a set whose cover is selected
 * (set A first), else of the newest generation's first set; tasks without images (or of another
 * workspace) are left out. Signed links are made per request, apart from the cached list pages.
 */
export async function taskCovers(ctx: AppContext, auth: AuthUser, taskIds: number[]) {
  // Ids out of range (0, beyond 2^31 − 1) name no task; none left is no query (PostgreSQL refuses `IN ()`).
  if (taskIds.length === 0) return { items: [] };
  const rows = await repo.coverImages(ctx.db, auth.workspaceId, [...new Set(taskIds)]);
  const rank = (r: (typeof rows)[number]) => [r.is_selected ? 0 : 1, -r.generation, r.strategy, -r.id] as const;
  const before = (a: (typeof rows)[number], b: (typeof rows)[number]) => {
    const [x, y] = [rank(a), rank(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
    return false;
  };
  const best = new Map<number, (typeof rows)[number]>();
  for (const row of rows) {
    const current = best.get(row.task_id);
    if (!current || before(row, current)) best.set(row.task_id, row);
  }
  return { items: taskIds.filter((id) => best.has(id)).map((id) => ({ task_id: id, url: fileUrl(ctx, best.get(id)!.file_key!) })) };
}

async function getTaskListItem(ctx: AppContext, auth: AuthUser, id: number) {
  const { progress: _p, generation: _g, failure_reason: _f, failure_key: _fk, failure_params: _fp, overlay_text: _o, providers: _c, ...item } = await requireTaskDetail(ctx, auth, id);
  return item;
}

async function requireTaskDetail(ctx: AppContext, auth: AuthUser, id: number) {
  const task = await repo.findTaskDetail(ctx.db, auth.workspaceId, id);
  if (!task) throw fail('task.not_found');
  return task;
}

export async function getTask(ctx: AppContext, auth: AuthUser, id: number) {
  const task = await requireTaskDetail(ctx, auth, id);
  await syncCovers(ctx, auth.workspaceId, id, task);
  const [texts, images, benchmarkIds] = await Promise.all([
    repo.listTextCandidates(ctx.db, auth.workspaceId, id),
    repo.listImageCandidates(ctx.db, auth.workspaceId, id),
    repo.taskBenchmarkIds(ctx.db, auth.workspaceId, id),
  ]);
  const facts = {
    track: task.track,
    hasTexts: texts.length > 0,
    hasSelectedText: texts.some((t) => t.is_selected),
    hasFailedImages: images.some((i) => i.status === 'failed' && i.generation === task.generation),
  };
  return {
    ...task,
    failure_key: task.failure_key as FailureReason | null,
    failure_params: task.failure_key ? ((task.failure_params ?? {}) as StoredParams) : null,
    benchmark_ids: benchmarkIds,
    providers: providersView(task.providers),
    allowed_actions: allowedActions(auth, task, facts),
    text_candidates: texts.map(textCandidateView),
    image_candidates: images.map((row) => imageCandidateView(ctx, row)),
  };
}

function signal(auth: AuthUser, task: TaskRow, now: Date, rest: Omit<PreferenceSignal, 'workspaceId' | 'productId' | 'taskId' | 'userId' | 'at'>): PreferenceSignal {
  return { workspaceId: auth.workspaceId, productId: task.product_id, taskId: task.id, userId: auth.userId, at: now, ...rest };
}

export function selectTextCandidate(ctx: AppContext, auth: AuthUser, taskId: number, candidateId: number, selected: boolean) {
  return runTaskAction(ctx, auth, taskId, 'select', async (trx, task, now) => {
    const candidate = await repo.findTextCandidate(trx, auth.workspaceId, taskId, candidateId);
    if (!candidate) throw fail('text.not_found');
    const stamp = nowIso(now);
    if (selected) {
      if (candidate.banned_word_status === 'hard_block') {
        throw fail('text.blocked_select');
      }
      await repo.deselectOtherTexts(trx, auth.workspaceId, taskId, candidate.strategy, candidate.id, stamp);
    }
    if (await repo.setTextSelected(trx, auth.workspaceId, candidate.id, selected, stamp)) {
      if (selected) {
        await recordSignal(
          trx,
          signal(auth, task, now, { type: 'select_text', candidateId: candidate.id, candidateKind: 'text', strategy: candidate.strategy, angleLabel: candidate.angle_label }),
        );
      }
    }
    const row = await repo.findTextCandidate(trx, auth.workspaceId, taskId, candidateId);
    const audit = [{ kind: 'selection' as const, action: selected ? 'select_text' : 'deselect_text', detail: { candidate_id: candidate.id, strategy: candidate.strategy, title: candidate.title } }];
    return { result: textCandidateView(row!), events: [], audit };
  });
}

export function selectImageCandidate(ctx: AppContext, auth: AuthUser, taskId: number, candidateId: number, selected: boolean) {
  return runTaskAction(ctx, auth, taskId, 'select', async (trx, task, now) => {
    const candidate = await repo.findImageCandidate(trx, auth.workspaceId, taskId, candidateId);
    if (!candidate) throw fail('image.not_found');
    if ((await repo.setImageSelected(trx, auth.workspaceId, candidate.id, selected)) && selected) {
      await recordSignal(trx, signal(auth, task, now, { type: 'select_image', candidateId: candidate.id, candidateKind: 'image', strategy: candidate.strategy }));
    }
    const row = await repo.findImageCandidate(trx, auth.workspaceId, taskId, candidateId);
    const audit = [{ kind: 'selection' as const, action: selected ? 'select_image' : 'deselect_image', detail: { candidate_id: candidate.id, strategy: candidate.strategy, seq: candidate.seq, source: candidate.source } }];
    return { result: imageCandidateView(ctx, row!), events: [], audit };
  });
}

/** What a task's texts are checked and scored against (notes/service noteEvaluator): its product's banned words, its product and theme. */
async function evaluatorFor(ctx: AppContext, auth: AuthUser, taskId: number): Promise<NoteEvaluator> {
  const task = await repo.findTask(ctx.db, auth.workspaceId, taskId);
  if (!task) throw fail('task.not_found');
  return noteEvaluator(ctx, auth.workspaceId, task);
}

export interface EditInput {
  content: string;
  title?: string | undefined;
  tags?: string[] | undefined;
  cover_title?: string | undefined;
}

export async function editTextCandidate(ctx: AppContext, auth: AuthUser, taskId: number, candidateId: number, input: EditInput) {
  const evaluate = await evaluatorFor(ctx, auth, taskId);
  return runTaskAction(ctx, auth, taskId, 'edit', async (trx, task, now) => {
    const candidate = await repo.findTextCandidate(trx, auth.workspaceId, taskId, candidateId);
    if (!candidate) throw fail('text.not_found');
    const { changes, blocked } = editedNote(evaluate, candidate, input);
    const row = await repo.updateTextCandidate(trx, auth.workspaceId, candidate.id, {
      ...changes,
      // A hard-blocked text cannot stay selected.
      ...(blocked ? { is_selected: false } : {}),
      updated_at: nowIso(now),
    });
    await recordSignal(
      trx,
      signal(auth, task, now, {
        type: 'text_edit',
        candidateId: row.id,
        candidateKind: 'text',
        strategy: row.strategy,
        angleLabel: row.angle_label,
        excerpt: clip(row.content, 500),
      }),
    );
    const view = textCandidateView(row);
    const audit = [{ kind: 'edit' as const, action: 'edit_text', detail: { candidate_id: row.id, strategy: row.strategy, before: publishedFields(candidate), after: publishedFields(row) } }];
    return { result: view, events: [{ name: 'text_candidate', data: view }], audit };
  });
}

/** What of a text reaches the post: an edit's before and after in the audit trail. */
function publishedFields(text: Pick<Row<'text_candidates'>, 'title' | 'content' | 'tags' | 'cover_title'>) {
  return { title: text.title, content: text.content, tags: text.tags, cover_title: text.cover_title };
}

export interface ImportInput {
  content: string;
  angle_label: string;
  strategy?: StrategyCode | undefined;
  title?: string | undefined;
  tags?: string[] | undefined;
}

/** The set an import joins without an explicit strategy: the one with the fewest texts, A first. */
async function emptiestSet(trx: Transaction<DB>, task: TaskRow): Promise<StrategyCode> {
  const counts = await repo.countTextsByStrategy(trx, task.workspace_id, task.id);
  const countOf = (s: StrategyCode) => Number(counts.find((c) => c.strategy === s)?.n ?? 0);
  return imageStrategies(task.text_count).reduce((best, s) => (countOf(s) < countOf(best) ? s : best));
}

export async function importText(ctx: AppContext, auth: AuthUser, taskId: number, input: ImportInput) {
  const evaluate = await evaluatorFor(ctx, auth, taskId);
  return runTaskAction(ctx, auth, taskId, 'import_text', async (trx, task, now) => {
    if (task.track !== 'import') throw fail('task.import_only');
    const content = input.content.trim();
    if (!content) throw fail('validation.blank', { field: 'body.content' });
    const angleLabel = input.angle_label.trim();
    if (!angleLabel) throw fail('validation.blank', { field: 'body.angle_label' });
    const title = input.title?.trim() || clipWords(stripMarkdown(content).split('\n').find((l) => l.trim()) ?? content, NOTE_LIMITS.title);
    const strategy = input.strategy ?? (await emptiestSet(trx, task));
    const evaluated = evaluate(publishableText({ title, content, tags: input.tags ?? [], cover_title: fitCoverTitle('', title) }, true));
    const stamp = nowIso(now);
    const row = await repo.insertTextCandidate(trx, {
      workspace_id: task.workspace_id,
      task_id: task.id,
      generation: task.generation,
      slot: await repo.nextTextSlot(trx, auth.workspaceId, task.id, task.generation),
      strategy,
      angle_label: clip(angleLabel, 100),
      ...evaluatedColumns(evaluated),
      image_brief: '',
      source: 'import',
      is_selected: false,
      edited: false,
      created_at: stamp,
      updated_at: stamp,
    });
    await recordSignal(
      trx,
      signal(auth, task, now, {
        type: 'text_import',
        candidateId: row.id,
        candidateKind: 'text',
        strategy,
        angleLabel: row.angle_label,
        excerpt: clip(row.content, 500),
      }),
    );
    const view = textCandidateView(row);
    const audit = [{ kind: 'edit' as const, action: 'import_text', detail: { candidate_id: row.id, strategy, before: null, after: publishedFields(row) } }];
    return { result: view, events: [{ name: 'text_candidate', data: view }], audit };
  });
}

/**
 * Starts generation run `generation + 1`: whoever moves a task into `generating` numbers the
 * run (the worker for a new task, this for a regenerate). Earlier candidates and selections stay.
 */
export async function regenerateTask(ctx: AppContext, auth: AuthUser, taskId: number) {
  const task = await runTaskAction(ctx, auth, taskId, 'regenerate', async (trx, task, now) => {
    await recordSignal(trx, signal(auth, task, now, { type: 'regenerate' }));
    return {
      audit: [{ kind: 'generation' as const, action: 'regenerate', detail: { generation: task.generation + 1 } }],
      result: { ...task, status: 'generating' as const },
      changes: { generation: task.generation + 1, progress: json(null), ...NO_TASK_FAILURE, lease_until: null, updated_at: nowIso(now) },
    };
  });
  await enqueueGeneration(ctx, task);
  return getTaskListItem(ctx, auth, taskId);
}

export async function archiveTask(ctx: AppContext, auth: AuthUser, taskId: number) {
  await runTaskAction(ctx, auth, taskId, 'archive', async (_trx, _task, now) => ({ result: undefined, changes: { updated_at: nowIso(now) } }));
  return getTaskListItem(ctx, auth, taskId);
}

/**
 * The note set `strategy` of an approved task ships, as a post freezes it (§11): the set's
 * selected text, its covers lettered with its cover title as it is now, and the images a package
 * would hold. 404 for a foreign task; 409 when the task is not approved, the set has no selected
 * text, or the note may not be posted.
 */
export async function approvedNote(ctx: AppContext, workspaceId: number, taskId: number, strategy: StrategyCode): Promise<PostableNote> {
  const task = await repo.findTask(ctx.db, workspaceId, taskId);
  if (!task) throw fail('task.not_found');
  if (task.status !== 'approved') throw fail('post.not_approved', { task_id: taskId, status: task.status });
  const text = (await repo.listTextCandidates(ctx.db, workspaceId, taskId))
    .filter((t) => t.is_selected && t.strategy === strategy)
    .sort((a, b) => b.generation - a.generation || b.id - a.id)[0];
  if (!text) throw fail('post.no_text', { task_id: taskId, strategy });
  await syncCovers(ctx, workspaceId, taskId, task);
  const finished = (await repo.listImageCandidates(ctx.db, workspaceId, taskId)).filter(
    (i): i is typeof i & { file_key: string } => i.strategy === strategy && i.status === 'done' && i.file_key !== null,
  );
  const images = coverFirst(shippedImages(finished));
  assertPostable(text, images);
  return {
    key: `task:${taskId}:${strategy}`,
    auditTaskId: taskId,
    productId: task.product_id,
    taskId,
    strategy,
    fissionId: null,
    fissionSeq: null,
    angleLabel: text.angle_label,
    title: text.title,
    body: text.content,
    tags: text.tags,
    coverTitle: text.cover_title,
    images: images.map((i) => ({ role: i.role, file_key: i.file_key, ai_generated: i.source !== 'upload' })),
  };
}
