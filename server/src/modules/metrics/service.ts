import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import type { DbOrTx } from '../../db/database.js';
import { engagementOf, localDay, median, noteIdOf, performanceWeight, weekOf } from '../../content/publishing.js';
import type { StrategyCode } from '../../content/schemas.js';
import { STRATEGY_GUIDES } from '../../content/strategies.js';
import { fail } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { requireAccount } from '../accounts/service.js';
import { replacePerformanceSignal } from '../preferences/service.js';
import { readImportFile, type ImportRow, type MetricField } from './import-file.js';
import * as repo from './repository.js';

export type MetricsInput = Partial<Record<MetricField, number | null | undefined>> & { captured_at?: string | undefined };
type Snapshot = NonNullable<Awaited<ReturnType<typeof repo.latestSnapshot>>>;

const FIELDS: readonly MetricField[] = ['views', 'likes', 'collects', 'comments', 'shares', 'follows'];

export function snapshotView(row: Snapshot) {
  const { post_id: _post, ...rest } = row;
  return { ...rest, engagement: engagementOf(row) };
}

/**
 * The performance signals of the account's published posts, each from its latest snapshot
 * weighed against the median engagement of them all (§11: against the account's own median), so
 * a new result re-weighs its siblings too; in the caller's transaction.
 */
async function refreshPerformance(db: DbOrTx, workspaceId: number, accountId: number, at: Date): Promise<void> {
  const posts = await repo.latestOfPublished(db, workspaceId, { accountId });
  const engagementOfPost = new Map(posts.map(({ post, snapshot }) => [post.id, snapshot ? engagementOf(snapshot) : null]));
  const accountMedian = median([...engagementOfPost.values()].filter((e): e is number => e !== null));
  for (const { post, snapshot } of posts) {
    if (!snapshot || post.product_id === null) continue;
    const facts = await repo.publishedPost(db, workspaceId, post.id);
    if (!facts) continue;
    await replacePerformanceSignal(db, {
      workspaceId,
      productId: post.product_id,
      taskId: facts.task_id ?? facts.source_task_id ?? null,
      accountId,
      postId: post.id,
      strategy: facts.strategy,
      angleLabel: facts.angle_label,
      weight: performanceWeight(engagementOfPost.get(post.id) ?? null, accountMedian),
      at,
    });
  }
}

async function requirePublished(db: DbOrTx, workspaceId: number, postId: number) {
  const post = await repo.publishedPost(db, workspaceId, postId);
  if (!post) throw fail('post.not_found');
  if (post.status !== 'published') throw fail('results.not_published', { post_id: postId, status: post.status });
  return post;
}

/**
 * A snapshot entered by hand (§11): counts at `captured_at` (now unless given; missing counts are
 * unknown). A second entry for the same moment corrects the first. The post's performance signal
 * follows its latest snapshot.
 */
export async function recordSnapshot(ctx: AppContext, auth: AuthUser, postId: number, input: MetricsInput) {
  const now = ctx.clock.now();
  const captured = input.captured_at !== undefined ? new Date(input.captured_at) : now;
  if (Number.isNaN(captured.getTime())) throw fail('validation.format', { field: 'body.captured_at', format: 'date-time' });
  if (captured.getTime() > now.getTime() + 5 * 60_000) throw fail('validation.invalid', { field: 'body.captured_at', detail: 'must not be in the future' });
  const counts = Object.fromEntries(FIELDS.map((f) => [f, input[f] ?? null])) as Record<MetricField, number | null>;
  return ctx.db.transaction().execute(async (trx) => {
    const post = await requirePublished(trx, auth.workspaceId, postId);
    const at = nowIso(captured);
    const existing = await repo.findSnapshotAt(trx, auth.workspaceId, postId, at);
    const row = existing
      ? await repo.updateSnapshot(trx, auth.workspaceId, existing.id, { ...counts, source: 'manual' })
      : await repo.insertSnapshot(trx, { workspace_id: auth.workspaceId, post_id: postId, captured_at: at, ...counts, source: 'manual', created_by: auth.userId, created_at: nowIso(now) });
    await refreshPerformance(trx, auth.workspaceId, post.account_id, now);
    return snapshotView(row);
  });
}

export type UnmatchedReason = 'no_note' | 'not_found' | 'ambiguous' | 'invalid_number' | 'no_counts';

/** "2026-11-20 18:30", "2026/11/20", "2026年11月20日", an Excel date → the day as written. */
function dayOf(value: ImportRow['published']): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString().slice(0, 10);
  const match = value ? /(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})/.exec(value) : null;
  return match ? `${match[1]}-${match[2]!.padStart(2, '0')}-${match[3]!.padStart(2, '0')}` : null;
}

const sameCounts = (a: Snapshot, b: Record<MetricField, number | null>) => FIELDS.every((f) => (a[f] ?? null) === (b[f] ?? null));

/**
 * The creator centre's note-data export (§11), CSV or XLSX: each row is matched to a published
 * post by note link or id, else by exact title and publishing day (the account's local day), and
 * becomes a snapshot now, unless the post's latest snapshot already holds the same counts, so
 * importing a file twice changes nothing. Every row that matches no post is reported with why.
 * One transaction: a file is imported whole or not at all.
 */
export async function importMetrics(ctx: AppContext, auth: AuthUser, file: Buffer) {
  const rows = await readImportFile(file);
  const now = ctx.clock.now();
  const candidates = await repo.publishedCandidates(ctx.db, auth.workspaceId);
  const accountOf = new Map(candidates.map((p) => [p.id, p.account_id]));
  const byNoteId = new Map<string, typeof candidates>();
  for (const post of candidates) {
    const id = post.xhs_note_id ?? (post.note_url ? noteIdOf(post.note_url) : null);
    if (id) byNoteId.set(id, [...(byNoteId.get(id) ?? []), post]);
  }
  const unmatched: Array<{ row: number; reason: UnmatchedReason; title: string | null }> = [];
  const matches: Array<{ row: ImportRow; postId: number; learnedId: string | null }> = [];
  for (const row of rows) {
    const miss = (reason: UnmatchedReason) => unmatched.push({ row: row.row, reason, title: row.title });
    if (row.invalid.length > 0) {
      miss('invalid_number');
      continue;
    }
    if (!FIELDS.some((f) => typeof row.counts[f] === 'number')) {
      miss('no_counts');
      continue;
    }
    const noteId = noteIdOf(row.noteId ?? '') ?? noteIdOf(row.link ?? '');
    let found = noteId ? (byNoteId.get(noteId) ?? []) : [];
    if (found.length === 0) {
      const day = dayOf(row.published);
      const title = row.title?.trim();
      if (!title && !noteId) {
        miss('no_note');
        continue;
      }
      found = title && day ? candidates.filter((p) => p.title.trim() === title && p.published_at !== null && localDay(new Date(p.published_at), p.timezone) === day) : [];
    }
    if (found.length === 0) miss('not_found');
    else if (found.length > 1) miss('ambiguous');
    else matches.push({ row, postId: found[0]!.id, learnedId: noteId && !found[0]!.xhs_note_id ? noteId : null });
  }
  const created = await ctx.db.transaction().execute(async (trx) => {
    let n = 0;
    const accounts = new Set<number>();
    for (const { row, postId, learnedId } of matches) {
      if (learnedId) await repo.setNoteId(trx, auth.workspaceId, postId, learnedId);
      const counts = Object.fromEntries(FIELDS.map((f) => [f, row.counts[f] ?? null])) as Record<MetricField, number | null>;
      const latest = await repo.latestSnapshot(trx, auth.workspaceId, postId);
      if (latest && sameCounts(latest, counts)) continue;
      // Rows of one file are captured at one moment; two rows for one post keep the later row.
      const at = nowIso(now);
      const existing = await repo.findSnapshotAt(trx, auth.workspaceId, postId, at);
      if (existing) await repo.updateSnapshot(trx, auth.workspaceId, existing.id, { ...counts, source: 'import' });
      else {
        await repo.insertSnapshot(trx, { workspace_id: auth.workspaceId, post_id: postId, captured_at: at, ...counts, source: 'import', created_by: auth.userId, created_at: at });
        n++;
      }
      accounts.add(accountOf.get(postId)!);
    }
    for (const accountId of accounts) await refreshPerformance(trx, auth.workspaceId, accountId, now);
    return n;
  });
  return { rows: rows.length, matched: matches.length, created, unmatched };
}

interface Group {
  key: string;
  label: string;
  posts: number;
  median_engagement: number | null;
  views: number;
}

function grouped<T>(items: T[], keyOf: (item: T) => string | null, labelOf: (key: string) => string, engagement: (item: T) => number | null, views: (item: T) => number): Group[] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === null) continue;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return [...groups.entries()]
    .map(([key, members]) => ({
      key,
      label: labelOf(key),
      posts: members.length,
      median_engagement: median(members.flatMap((m) => (engagement(m) === null ? [] : [engagement(m)!]))),
      views: members.reduce((sum, m) => sum + views(m), 0),
    }))
    .sort((a, b) => (b.median_engagement ?? -1) - (a.median_engagement ?? -1) || b.posts - a.posts);
}

/**
 * Engagement over time: per week of publishing, the posts and their median engagement, overall
 * and per strategy, oldest week first.
 */
function byWeek<T extends { post: { published_at: string | null; strategy: string | null } }>(items: T[], engagement: (item: T) => number | null) {
  const weeks = new Map<string, T[]>();
  for (const item of items) {
    if (!item.post.published_at) continue;
    const week = weekOf(new Date(item.post.published_at));
    weeks.set(week, [...(weeks.get(week) ?? []), item]);
  }
  const medianOf = (members: T[]) => median(members.flatMap((m) => (engagement(m) === null ? [] : [engagement(m)!])));
  return [...weeks.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([week, members]) => ({
      week,
      posts: members.length,
      median_engagement: medianOf(members),
      by_strategy: Object.fromEntries(
        [...new Set(members.map((m) => m.post.strategy).filter((s): s is string => s !== null))].sort().map((s) => [s, medianOf(members.filter((m) => m.post.strategy === s))]),
      ),
    }));
}

const strategyLabel = (code: string) => (STRATEGY_GUIDES[code as StrategyCode] ? `${code} ${STRATEGY_GUIDES[code as StrategyCode].name}` : code);

/** §11's overview: posts, engagement by strategy, angle, product and account, production and cost. */
export async function analyticsOverview(ctx: AppContext, auth: AuthUser, query: { from?: string | undefined; to?: string | undefined; product_id?: number | undefined; account_id?: number | undefined }) {
  const filter = { from: query.from ? nowIso(new Date(query.from)) : undefined, to: query.to ? nowIso(new Date(query.to)) : undefined, productId: query.product_id, accountId: query.account_id };
  if (filter.from && filter.to && filter.from > filter.to) throw fail('validation.dates_reversed');
  if (query.account_id) await requireAccount(ctx, auth.workspaceId, query.account_id);
  const [counts, published, tasks, ledger, [products, accounts]] = await Promise.all([
    repo.postCounts(ctx.db, auth.workspaceId, filter),
    repo.latestOfPublished(ctx.db, auth.workspaceId, filter),
    repo.tasksInWindow(ctx.db, auth.workspaceId, filter),
    repo.ledgerCounts(ctx.db, auth.workspaceId, filter),
    repo.labels(ctx.db, auth.workspaceId),
  ]);
  const byStatus = new Map(counts.map((c) => [c.status, Number(c.n)]));
  const productNames = new Map(products.map((p) => [String(p.id), p.name]));
  const accountNames = new Map(accounts.map((a) => [String(a.id), a.name]));
  type Item = (typeof published)[number];
  const engagement = (i: Item) => (i.snapshot ? engagementOf(i.snapshot) : null);
  const views = (i: Item) => i.snapshot?.views ?? 0;
  const measured = published.filter((i) => i.snapshot);
  const approved = tasks.filter((t) => t.status === 'approved');
  const submitted = tasks.filter((t) => t.submitted_at !== null);
  const hours = approved.flatMap((t) => (t.submitted_at && t.reviewed_at ? [(Date.parse(t.reviewed_at) - Date.parse(t.submitted_at)) / 3_600_000] : []));
  const medianHours = median(hours);
  return {
    posts: { scheduled: (byStatus.get('scheduled') ?? 0) + (byStatus.get('due') ?? 0), published: byStatus.get('published') ?? 0, missed: byStatus.get('missed') ?? 0 },
    engagement: {
      median: median(measured.flatMap((i) => (engagement(i) === null ? [] : [engagement(i)!]))),
      by_strategy: grouped(measured, (i) => i.post.strategy, strategyLabel, engagement, views),
      by_angle: grouped(measured, (i) => i.post.angle_label, (k) => k, engagement, views),
      by_product: grouped(measured, (i) => (i.post.product_id === null ? null : String(i.post.product_id)), (k) => productNames.get(k) ?? k, engagement, views),
      by_account: grouped(measured, (i) => String(i.post.account_id), (k) => accountNames.get(k) ?? k, engagement, views),
      by_week: byWeek(measured, engagement),
    },
    production: {
      tasks: tasks.length,
      approved: approved.length,
      approval_rate: submitted.length > 0 ? Math.round((approved.length / submitted.length) * 1000) / 1000 : null,
      median_hours_to_approve: medianHours === null ? null : Math.round(medianHours * 10) / 10,
    },
    cost: {
      calls: ledger.calls,
      // The paid-call ledger keeps each call's result, not its token counts: unknown until providers report usage into it.
      input_tokens: null,
      output_tokens: null,
      images: ledger.images,
      per_approved_note: approved.length > 0 ? { calls: Math.round((ledger.calls / approved.length) * 10) / 10, images: Math.round((ledger.images / approved.length) * 10) / 10 } : null,
    },
  };
}
