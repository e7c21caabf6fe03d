import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import type { PreferenceContext } from '../../db/schema.js';
import { fail } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { rejectionsOf, type PerformanceSummary } from '../../content/prompts.js';
import { STRATEGY_GUIDES } from '../../content/strategies.js';
import type { PerformanceFigure, Rejection, StrategyCode } from '../../content/schemas.js';
import * as repo from './repository.js';

// Signals are recorded by every module whose action is a preference signal, in its transaction.
export { recordSignal, replacePerformanceSignal, SIGNAL_WEIGHTS, type PreferenceSignal } from './signals.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A signal's weight halves every HALF_LIFE_DAYS: what the team chose last week outweighs what it
 * chose last quarter, without forgetting it at a cliff edge. Past LOOKBACK_DAYS a signal weighs
 * under 1/80 of its face value and is left out of the computation (it stays stored).
 */
export const HALF_LIFE_DAYS = 14;
export const LOOKBACK_DAYS = 90;
/** Bounds the work per generation for a product with a very long history. */
const MAX_SIGNALS = 2000;
const MAX_ANGLES = 2;
const MAX_REJECT_REASONS = 3;
const MAX_STYLE_EXAMPLES = 2;
const MAX_APPROVED_OPENINGS = 2;
const STYLE_EXAMPLE_CHARS = 300;

export function decayFactor(ageMs: number): number {
  return Math.pow(0.5, Math.max(0, ageMs) / (HALF_LIFE_DAYS * DAY_MS));
}

interface ScoredSignal {
  strategy: string | null;
  angle_label: string | null;
  weight: number;
  created_at: string;
}

export interface PreferenceScores {
  angles: Array<{ angle_label: string; score: number }>;
  strategies: Array<{ strategy: string; score: number }>;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

function ranked(totals: Map<string, number>) {
  return [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Decayed sum of weights per angle and per strategy, highest first. */
export function scoreSignals(signals: ScoredSignal[], now: Date): PreferenceScores {
  const angles = new Map<string, number>();
  const strategies = new Map<string, number>();
  for (const s of signals) {
    const value = s.weight * decayFactor(now.getTime() - Date.parse(s.created_at));
    if (s.angle_label) angles.set(s.angle_label, (angles.get(s.angle_label) ?? 0) + value);
    if (s.strategy) strategies.set(s.strategy, (strategies.get(s.strategy) ?? 0) + value);
  }
  return {
    angles: ranked(angles).map(([angle_label, score]) => ({ angle_label, score: round1(score) })),
    strategies: ranked(strategies).map(([strategy, score]) => ({ strategy, score: round1(score) })),
  };
}

async function signalsInWindow(ctx: AppContext, workspaceId: number, productId: number) {
  const now = ctx.clock.now();
  const since = nowIso(new Date(now.getTime() - LOOKBACK_DAYS * DAY_MS));
  return { now, signals: await repo.recentSignals(ctx.db, workspaceId, productId, since, MAX_SIGNALS) };
}

function strategyName(code: string): string {
  const guide = STRATEGY_GUIDES[code as StrategyCode];
  return guide ? `${code} (${guide.name})` : code;
}

/**
 * What the flywheel hands the next generation of a product: the preferred angles and strategy
 * in words, the newest reject reasons verbatim (each with the start of the note it rejected),
 * excerpts of texts people wrote or fixed themselves, and the title and opening of the notes
 * approved last. `injected_count` is the number of those items (each angle, the strategy, each
 * reason, example and opening), so "0" means the prompt was not influenced at all.
 */
export async function buildPreferenceContext(ctx: AppContext, workspaceId: number, productId: number): Promise<PreferenceContext> {
  const { signals, now } = await signalsInWindow(ctx, workspaceId, productId);
  const scores = scoreSignals(signals, now);

  const angles = scores.angles.filter((a) => a.score > 0).slice(0, MAX_ANGLES);
  const strategy = scores.strategies.find((s) => s.score > 0);
  const parts: string[] = [];
  if (angles.length > 0) {
    parts.push(`Preferred angle${angles.length > 1 ? 's' : ''}: ${angles.map((a) => `「${a.angle_label}」 (score ${a.score})`).join(', ')}`);
  }
  if (strategy) parts.push(`preferred strategy: ${strategyName(strategy.strategy)} (score ${strategy.score})`);

  const rejections: Rejection[] = [];
  const styleExamples: string[] = [];
  const approvedOpenings: string[] = [];
  for (const s of signals) {
    if (s.signal_type === 'approve' && s.excerpt && approvedOpenings.length < MAX_APPROVED_OPENINGS && !approvedOpenings.includes(s.excerpt)) {
      approvedOpenings.push(s.excerpt);
    }
    const reason = s.reason;
    if (s.signal_type === 'reject' && reason && rejections.length < MAX_REJECT_REASONS && !rejections.some((r) => r.reason === reason)) {
      rejections.push({ reason, excerpt: s.excerpt });
    }
    if ((s.signal_type === 'text_edit' || s.signal_type === 'text_import') && s.excerpt && styleExamples.length < MAX_STYLE_EXAMPLES) {
      styleExamples.push(s.excerpt.slice(0, STYLE_EXAMPLE_CHARS));
    }
  }

  const performance = performanceOf(signals);
  return {
    recent_preference: parts.join('; '),
    reject_reasons: rejections.map((r) => r.reason),
    rejections,
    style_examples: styleExamples,
    approved_openings: approvedOpenings,
    injected_count: angles.length + (strategy ? 1 : 0) + rejections.length + styleExamples.length + approvedOpenings.length + (performance ? performance.best.length + performance.worst.length : 0),
    // The same, structured, for the prompts: the angles by name, the strategy for its own set only.
    preferred_angles: angles.map((a) => a.angle_label),
    preferred_strategy: strategy && strategy.strategy in STRATEGY_GUIDES ? (strategy.strategy as StrategyCode) : null,
    performance,
  };
}

/** Results speak only from this many published posts with results on (§11). */
export const PERFORMANCE_MIN_POSTS = 3;
const PERFORMANCE_ITEMS = 3;

/**
 * What worked once posted, from the product's performance signals (one per published post with
 * results): per angle and per strategy, the posts behind it and their engagement against their
 * accounts' medians (the geometric mean: weights are 3 points per doubling). Best: above the
 * median; worst: below. Null under PERFORMANCE_MIN_POSTS posts: a result or two is an anecdote.
 */
export function performanceOf(signals: ReadonlyArray<Pick<ScoredSignal, 'weight' | 'strategy' | 'angle_label'> & { signal_type: string }>): PerformanceSummary | null {
  const results = signals.filter((s) => s.signal_type === 'performance');
  if (results.length < PERFORMANCE_MIN_POSTS) return null;
  const groups = new Map<string, { kind: 'angle' | 'strategy'; key: string; weights: number[] }>();
  const add = (kind: 'angle' | 'strategy', key: string | null, weight: number) => {
    if (!key) return;
    const id = `${kind}:${key}`;
    if (!groups.has(id)) groups.set(id, { kind, key, weights: [] });
    groups.get(id)!.weights.push(weight);
  };
  for (const s of results) {
    add('strategy', s.strategy, s.weight);
    add('angle', s.angle_label, s.weight);
  }
  const items = [...groups.values()].map((g) => {
    const mean = g.weights.reduce((a, b) => a + b, 0) / g.weights.length;
    return { kind: g.kind, key: g.key, posts: g.weights.length, vs_median: Math.round(2 ** (mean / 3) * 100) / 100 };
  });
  const order = (a: PerformanceFigure, b: PerformanceFigure) => b.vs_median - a.vs_median || b.posts - a.posts || a.key.localeCompare(b.key);
  return {
    posts: results.length,
    best: items.filter((i) => i.vs_median > 1).sort(order).slice(0, PERFORMANCE_ITEMS),
    worst: items.filter((i) => i.vs_median < 1).sort((a, b) => order(b, a)).slice(0, PERFORMANCE_ITEMS),
  };
}

/**
 * The context of one generation of a task, built once and snapshotted: a retried or resumed
 * generation gets exactly what its first attempt got, and GET /tasks/{id}/preference/context
 * can report it later. The generation pipeline calls this before prompting.
 */
export async function preferenceContextForGeneration(
  ctx: AppContext,
  task: { id: number; workspaceId: number; productId: number; generation: number },
): Promise<PreferenceContext> {
  const existing = await repo.findSnapshot(ctx.db, task.workspaceId, task.id, task.generation);
  if (existing) return existing.context;
  const context = await buildPreferenceContext(ctx, task.workspaceId, task.productId);
  await repo.insertSnapshot(ctx.db, task.id, task.generation, context, nowIso(ctx.clock.now()));
  // Re-read: if two attempts raced, both go on with the one snapshot that was stored.
  const stored = await repo.findSnapshot(ctx.db, task.workspaceId, task.id, task.generation);
  return stored?.context ?? context;
}

/** The context as the route shows it: fields older snapshots lack are derived or empty. */
function withRejections(context: PreferenceContext) {
  return { ...context, rejections: rejectionsOf(context), approved_openings: context.approved_openings ?? [], performance: context.performance ?? null };
}

export async function taskPreferenceContext(ctx: AppContext, auth: AuthUser, taskId: number) {
  const task = await repo.findTask(ctx.db, auth.workspaceId, taskId);
  if (!task) throw fail('task.not_found');
  const snapshot = await repo.latestSnapshot(ctx.db, auth.workspaceId, task.id);
  if (snapshot) return { ...withRejections(snapshot.context), generation: snapshot.generation, snapshot_at: snapshot.created_at };
  return { ...withRejections(await buildPreferenceContext(ctx, auth.workspaceId, task.product_id)), generation: null, snapshot_at: null };
}

export async function productPreferenceScores(ctx: AppContext, auth: AuthUser, productId: number) {
  if (!(await repo.productExists(ctx.db, auth.workspaceId, productId))) throw fail('product.not_found');
  const { signals, now } = await signalsInWindow(ctx, auth.workspaceId, productId);
  return { half_life_days: HALF_LIFE_DAYS, lookback_days: LOOKBACK_DAYS, signal_count: signals.length, ...scoreSignals(signals, now) };
}

export async function listTaskSignals(ctx: AppContext, auth: AuthUser, taskId: number, query: PageQuery) {
  if (!(await repo.findTask(ctx.db, auth.workspaceId, taskId))) throw fail('task.not_found');
  const [items, total] = await repo.taskSignals(ctx.db, auth.workspaceId, taskId, pageWindow(query));
  return pageOf(items, total, query);
}
