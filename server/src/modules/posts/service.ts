import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import type { DB } from '../../db/schema.js';
import type { StrategyCode } from '../../content/schemas.js';
import { AI_DECLARATION, engagementOf, hashtagLine, localDay, NEAR_DUPLICATE_SIMILARITY, parseNoteUrl, textSimilarity } from '../../content/publishing.js';
import { fail } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { can } from '../../policy/policy.js';
import { fileUrl } from '../../storage/signed-url.js';
import { lockedAccount, requireAccount, type AccountRow } from '../accounts/service.js';
import { recordAudit } from '../audit/service.js';
import { completedNote } from '../fission/service.js';
import type { PostableNote } from '../notes/service.js';
import { approvedNote } from '../tasks/service.js';
import { notifyPostEvent } from '../webhooks/service.js';
import * as repo from './repository.js';
import type { PostStatus } from './repository.js';

const MINUTE = 60_000;
/** How far back near-duplicates are looked for (§11: the workspace's posts of the last 30 days). */
const NEAR_DUPLICATE_DAYS = 30;
/** A post planned for "now" from a form reaches the server a little later. */
const PAST_TOLERANCE_MS = 5 * MINUTE;

export interface PostSource {
  task_id?: number | undefined;
  strategy?: StrategyCode | undefined;
  fission_id?: number | undefined;
  seq?: number | undefined;
}

export interface PostWarning {
  kind: 'near_duplicate';
  post_id: number;
  title: string;
  similarity: number;
}

type PostRow = NonNullable<Awaited<ReturnType<typeof repo.findPost>>>;
type MetricsRow = Awaited<ReturnType<typeof repo.latestMetrics>>[number];

function noteOf(ctx: AppContext, workspaceId: number, source: PostSource): Promise<PostableNote> {
  const byTask = source.task_id !== undefined && source.strategy !== undefined;
  const byFission = source.fission_id !== undefined && source.seq !== undefined;
  if (byTask === byFission) throw fail('post.source');
  return byTask ? approvedNote(ctx, workspaceId, source.task_id!, source.strategy!) : completedNote(ctx, workspaceId, source.fission_id!, source.seq!);
}

function instant(value: string, field: string): Date {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw fail('validation.format', { field, format: 'date-time' });
  return at;
}

function assertNotPast(ctx: AppContext, at: Date, field: string): void {
  if (at.getTime() < ctx.clock.now().getTime() - PAST_TOLERANCE_MS) throw fail('post.in_past', { field });
}

/**
 * The account's daily cap (on its own local day) and minimum gap, checked against its live posts
 * in the locked account's transaction; `self` is the post being moved. 409 naming the conflict.
 */
async function assertFits(trx: Transaction<DB>, account: AccountRow, at: Date, self?: number): Promise<void> {
  if (!account.active) throw fail('account.inactive', { account: account.name });
  const reach = Math.max(account.min_gap_minutes * MINUTE, 36 * 60 * MINUTE);
  const neighbours = (await repo.accountPostsBetween(trx, account.workspace_id, account.id, nowIso(new Date(at.getTime() - reach)), nowIso(new Date(at.getTime() + reach)))).filter((p) => p.id !== self);
  const tooClose = neighbours.find((p) => Math.abs(new Date(p.scheduled_at).getTime() - at.getTime()) < account.min_gap_minutes * MINUTE);
  if (tooClose) {
    throw fail('post.too_close', {
      post_id: tooClose.id,
      account: account.name,
      minutes: Math.round(Math.abs(new Date(tooClose.scheduled_at).getTime() - at.getTime()) / MINUTE),
      gap: account.min_gap_minutes,
    });
  }
  const day = localDay(at, account.timezone);
  const sameDay = neighbours.filter((p) => localDay(new Date(p.scheduled_at), account.timezone) === day);
  if (sameDay.length >= account.daily_cap) throw fail('post.daily_cap', { account: account.name, cap: account.daily_cap, day, post_id: sameDay[0]!.id });
}

/** The most similar live post of the last 30 days, when it is near-identical (§11). */
async function nearDuplicate(ctx: AppContext, trx: Transaction<DB>, workspaceId: number, note: Pick<PostableNote, 'title' | 'body'>): Promise<PostWarning | undefined> {
  const since = nowIso(new Date(ctx.clock.now().getTime() - NEAR_DUPLICATE_DAYS * 24 * 60 * MINUTE));
  const text = `${note.title}\n${note.body}`;
  let best: PostWarning | undefined;
  for (const post of await repo.recentPostTexts(trx, workspaceId, since)) {
    const similarity = textSimilarity(text, `${post.title}\n${post.body}`);
    if (similarity >= NEAR_DUPLICATE_SIMILARITY && (!best || similarity > best.similarity)) {
      best = { kind: 'near_duplicate', post_id: post.id, title: post.title, similarity: Math.round(similarity * 100) / 100 };
    }
  }
  return best;
}

function sourceOf(row: Pick<PostRow, 'task_id' | 'strategy' | 'fission_id' | 'fission_seq'>) {
  return row.fission_id !== null ? { fission_id: row.fission_id, seq: row.fission_seq } : { task_id: row.task_id, strategy: row.strategy };
}

function metricsView(row: MetricsRow | undefined) {
  if (!row) return null;
  const { post_id: _post, ...rest } = row;
  return { ...rest, engagement: engagementOf(row) };
}

async function postViews(ctx: AppContext, rows: PostRow[]) {
  const ids = rows.map((r) => r.id);
  const [images, metrics] = await Promise.all([repo.imagesOf(ctx.db, ids), repo.latestMetrics(ctx.db, ids)]);
  const cover = new Map<number, string>();
  for (const image of images) if (!cover.has(image.post_id)) cover.set(image.post_id, image.file_key);
  const latest = new Map<number, MetricsRow>();
  for (const m of metrics) if (!latest.has(m.post_id)) latest.set(m.post_id, m);
  return rows.map((row) => ({
    id: row.id,
    account_id: row.account_id,
    account_name: row.account_name,
    status: row.status as PostStatus,
    scheduled_at: row.scheduled_at,
    due_at: row.due_at,
    missed_at: row.missed_at,
    published_at: row.published_at,
    note_url: row.note_url,
    source: sourceOf(row),
    product_id: row.product_id,
    angle_label: row.angle_label,
    title: row.title,
    cover_url: cover.has(row.id) ? fileUrl(ctx, cover.get(row.id)!) : null,
    warnings: row.warnings,
    latest_metrics: metricsView(latest.get(row.id)),
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }));
}

export type PostView = Awaited<ReturnType<typeof postViews>>[number];

export async function requirePost(ctx: Pick<AppContext, 'db'>, workspaceId: number, id: number): Promise<PostRow> {
  const row = await repo.findPost(ctx.db, workspaceId, id);
  if (!row) throw fail('post.not_found');
  return row;
}

async function viewOf(ctx: AppContext, workspaceId: number, id: number): Promise<PostView> {
  return (await postViews(ctx, [await requirePost(ctx, workspaceId, id)]))[0]!;
}

export async function getPost(ctx: AppContext, auth: AuthUser, id: number) {
  return viewOf(ctx, auth.workspaceId, id);
}

export async function listPosts(ctx: AppContext, auth: AuthUser, query: PageQuery & { from?: string; to?: string; account_id?: number; status?: PostStatus }) {
  const filter = {
    from: query.from ? nowIso(instant(query.from, 'querystring.from')) : undefined,
    to: query.to ? nowIso(instant(query.to, 'querystring.to')) : undefined,
    accountId: query.account_id,
    status: query.status,
  };
  if (filter.from && filter.to && filter.from > filter.to) throw fail('validation.dates_reversed');
  if (query.account_id) await requireAccount(ctx, auth.workspaceId, query.account_id);
  const [rows, total] = await repo.listPosts(ctx.db, auth.workspaceId, filter, pageWindow(query));
  return pageOf(await postViews(ctx, rows), total, query);
}

function assertStatus(post: Pick<PostRow, 'id' | 'status'>, allowed: readonly PostStatus[]): void {
  if (!allowed.includes(post.status as PostStatus)) throw fail('post.wrong_status', { post_id: post.id, status: post.status, allowed: [...allowed] });
}

/**
 * Plans an approved note on an account (§11): the note is frozen (its text, and its image files,
 * which are immutable), the account's cap and gap hold, the note is on no other live post, and a
 * near-duplicate of a recent post needs a supervisor's `force`. One transaction with the
 * account locked, so two plans at once cannot both take the last slot.
 */
export async function createPost(ctx: AppContext, auth: AuthUser, input: PostSource & { account_id: number; scheduled_at: string; force?: boolean | undefined }) {
  const at = instant(input.scheduled_at, 'body.scheduled_at');
  assertNotPast(ctx, at, 'body.scheduled_at');
  if (input.force && !can(auth, 'posts.force')) throw fail('post.force_role');
  await requireAccount(ctx, auth.workspaceId, input.account_id);
  const note = await noteOf(ctx, auth.workspaceId, input);
  const id = await ctx.db.transaction().execute(async (trx) => {
    const account = await lockedAccount(trx, ctx.dialect, auth.workspaceId, input.account_id);
    const taken = await repo.livePostOfNote(trx, auth.workspaceId, note.key);
    if (taken) throw fail('post.note_taken', { post_id: taken.id, account: taken.account_name });
    await assertFits(trx, account, at);
    const duplicate = await nearDuplicate(ctx, trx, auth.workspaceId, note);
    if (duplicate && !input.force) {
      throw fail('post.near_duplicate', { post_id: duplicate.post_id, title: duplicate.title, similarity: Math.round(duplicate.similarity * 100) });
    }
    const now = nowIso(ctx.clock.now());
    const { id } = await repo.insertPost(trx, {
      workspace_id: auth.workspaceId,
      account_id: account.id,
      status: 'scheduled',
      scheduled_at: nowIso(at),
      note_key: note.key,
      task_id: note.taskId,
      strategy: note.strategy,
      fission_id: note.fissionId,
      fission_seq: note.fissionSeq,
      product_id: note.productId,
      angle_label: note.angleLabel,
      title: note.title,
      cover_title: note.coverTitle,
      body: note.body,
      tags: json(note.tags),
      warnings: json(duplicate ? [duplicate] : []),
      created_by: auth.userId,
      created_at: now,
      updated_at: now,
    });
    await repo.insertImages(trx, note.images.map((image, i) => ({ post_id: id, position: i + 1, role: image.role, file_key: image.file_key, ai_generated: image.ai_generated })));
    await recordAudit(trx, { workspaceId: auth.workspaceId, taskId: note.auditTaskId, userId: auth.userId, now: ctx.clock.now() }, [
      { kind: 'post', action: 'scheduled', detail: { post_id: id, note: note.key, account_id: account.id, account: account.name, scheduled_at: nowIso(at), ...(duplicate ? { forced_near_duplicate_of: duplicate.post_id } : {}) } },
    ]);
    return id;
  });
  return viewOf(ctx, auth.workspaceId, id);
}

async function auditPost(trx: Transaction<DB>, ctx: AppContext, auth: AuthUser, post: PostRow, action: string, detail: Record<string, unknown>) {
  const taskId = post.task_id ?? (post.fission_id !== null ? await repo.fissionSourceTask(trx, auth.workspaceId, post.fission_id) : null);
  if (taskId === null || taskId === undefined) return;
  await recordAudit(trx, { workspaceId: auth.workspaceId, taskId, userId: auth.userId, now: ctx.clock.now() }, [{ kind: 'post', action, detail: { post_id: post.id, ...detail } }]);
}

/** Moves a planned post to another time or account (while `scheduled` or `due`); the cap and gap hold there too. */
export async function updatePost(ctx: AppContext, auth: AuthUser, id: number, input: { scheduled_at?: string | undefined; account_id?: number | undefined }) {
  const at = input.scheduled_at !== undefined ? instant(input.scheduled_at, 'body.scheduled_at') : undefined;
  if (at) assertNotPast(ctx, at, 'body.scheduled_at');
  await ctx.db.transaction().execute(async (trx) => {
    const post = await requirePost({ db: trx }, auth.workspaceId, id);
    assertStatus(post, ['scheduled', 'due']);
    const account = await lockedAccount(trx, ctx.dialect, auth.workspaceId, input.account_id ?? post.account_id);
    const when = at ?? new Date(post.scheduled_at);
    await assertFits(trx, account, when, post.id);
    const now = ctx.clock.now();
    // A due post moved to a later time waits for that time again.
    const status = when.getTime() > now.getTime() ? 'scheduled' : post.status;
    const moved = await repo.updatePostIf(trx, auth.workspaceId, id, [post.status as PostStatus], {
      account_id: account.id,
      scheduled_at: nowIso(when),
      status,
      due_at: status === 'scheduled' ? null : post.due_at,
      updated_at: nowIso(now),
    });
    if (!moved) throw fail('post.wrong_status', { post_id: id, status: 'changed', allowed: ['scheduled', 'due'] });
    await auditPost(trx, ctx, auth, post, 'rescheduled', { account_id: account.id, account: account.name, scheduled_at: nowIso(when), was: { account_id: post.account_id, scheduled_at: post.scheduled_at } });
  });
  return viewOf(ctx, auth.workspaceId, id);
}

/** Cancels a post that has not been published (its note may then be planned again). */
export async function cancelPost(ctx: AppContext, auth: AuthUser, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const post = await requirePost({ db: trx }, auth.workspaceId, id);
    const open: PostStatus[] = ['scheduled', 'due', 'missed'];
    assertStatus(post, open);
    const now = nowIso(ctx.clock.now());
    if (!(await repo.updatePostIf(trx, auth.workspaceId, id, open, { status: 'cancelled', cancelled_at: now, updated_at: now }))) {
      throw fail('post.wrong_status', { post_id: id, status: 'changed', allowed: open });
    }
    await auditPost(trx, ctx, auth, post, 'cancelled', {});
  });
}

/** A person posted it: the note's link (validated), and when (now unless given). */
export async function markPublished(ctx: AppContext, auth: AuthUser, id: number, input: { note_url: string; published_at?: string | undefined }) {
  const link = parseNoteUrl(input.note_url);
  if (!link) throw fail('post.note_url', { field: 'body.note_url' });
  const now = ctx.clock.now();
  const publishedAt = input.published_at !== undefined ? instant(input.published_at, 'body.published_at') : now;
  if (publishedAt.getTime() > now.getTime() + PAST_TOLERANCE_MS) throw fail('validation.invalid', { field: 'body.published_at', detail: 'must not be in the future' });
  await ctx.db.transaction().execute(async (trx) => {
    const post = await requirePost({ db: trx }, auth.workspaceId, id);
    const open: PostStatus[] = ['scheduled', 'due', 'missed'];
    assertStatus(post, open);
    const moved = await repo.updatePostIf(trx, auth.workspaceId, id, open, {
      status: 'published',
      published_at: nowIso(publishedAt),
      note_url: link.url,
      xhs_note_id: link.noteId,
      updated_at: nowIso(now),
    });
    if (!moved) throw fail('post.wrong_status', { post_id: id, status: 'changed', allowed: open });
    await notifyPostEvent(trx, auth.workspaceId, id, 'post.published');
    await auditPost(trx, ctx, auth, post, 'published', { note_url: link.url, published_at: nowIso(publishedAt) });
  });
  return viewOf(ctx, auth.workspaceId, id);
}

/** What a person needs on a phone to post the note in a minute (§11). */
export async function postKit(ctx: AppContext, auth: AuthUser, id: number) {
  const post = await requirePost(ctx, auth.workspaceId, id);
  const images = await repo.imagesOf(ctx.db, [post.id]);
  const tags = post.tags;
  return {
    post_id: post.id,
    status: post.status as PostStatus,
    account: { id: post.account_id, name: post.account_name },
    scheduled_at: post.scheduled_at,
    note_url: post.note_url,
    title: post.title,
    body: post.body,
    tags,
    hashtag_line: hashtagLine(tags),
    // Frozen in posting order, the cover first.
    images: images.map((image, i) => ({
      seq: i + 1,
      role: image.role,
      url: fileUrl(ctx, image.file_key),
      file_name: `${String(i + 1).padStart(2, '0')}_${image.role}.${image.file_key.split('.').pop() ?? 'jpg'}`,
      ai_generated: Boolean(image.ai_generated),
    })),
    // The text is AI-written whatever the images are, so the declaration is always due (§12).
    declaration: { required: AI_DECLARATION.required, label: AI_DECLARATION.label, steps: [...AI_DECLARATION.steps] },
  };
}
