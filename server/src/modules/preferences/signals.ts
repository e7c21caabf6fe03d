import type { DbOrTx } from '../../db/database.js';
import { nowIso } from '../../db/codec.js';

/** Weights of the contract's preference table; `text_import` (not shown there) is 8 by decision. */
export const SIGNAL_WEIGHTS = {
  select_text: 3,
  select_image: 3,
  regenerate: -1,
  approve: 5,
  reject: -3,
  text_edit: 5,
  text_import: 8,
} as const;

export type SignalType = keyof typeof SIGNAL_WEIGHTS;

export interface PreferenceSignal {
  workspaceId: number;
  productId: number;
  taskId: number | null;
  userId: number | null;
  type: SignalType;
  candidateId?: number | null;
  candidateKind?: 'text' | 'image' | null;
  strategy?: string | null;
  angleLabel?: string | null;
  /** Reject reasons are stored verbatim, never summarised. */
  reason?: string | null;
  /** Excerpt of an edited or imported text (a style example), of an approved note's opening, or of the note a reject turned down. */
  excerpt?: string | null;
  at: Date;
}

/** Records one signal; call it inside the transaction of the action that caused it. */
export async function recordSignal(db: DbOrTx, signal: PreferenceSignal): Promise<void> {
  await db
    .insertInto('preference_signals')
    .values({
      workspace_id: signal.workspaceId,
      product_id: signal.productId,
      task_id: signal.taskId,
      user_id: signal.userId,
      candidate_id: signal.candidateId ?? null,
      candidate_kind: signal.candidateKind ?? null,
      strategy: signal.strategy ?? null,
      angle_label: signal.angleLabel ?? null,
      signal_type: signal.type,
      weight: SIGNAL_WEIGHTS[signal.type],
      reason: signal.reason ?? null,
      excerpt: signal.excerpt ?? null,
      created_at: nowIso(signal.at),
    })
    .execute();
}

/**
 * A published post's result as a preference signal (§11): its engagement against its account's
 * median as `weight` (content/publishing.ts performanceWeight), for the note's strategy, angle and
 * product. One per post, replaced by each new snapshot, so a post measured ten times counts once;
 * null weight (no views yet) removes it.
 */
export async function replacePerformanceSignal(
  db: DbOrTx,
  signal: { workspaceId: number; productId: number; taskId: number | null; accountId: number; postId: number; strategy: string | null; angleLabel: string | null; weight: number | null; at: Date },
): Promise<void> {
  await db.deleteFrom('preference_signals').where('workspace_id', '=', signal.workspaceId).where('post_id', '=', signal.postId).where('signal_type', '=', 'performance').execute();
  if (signal.weight === null) return;
  await db
    .insertInto('preference_signals')
    .values({
      workspace_id: signal.workspaceId,
      product_id: signal.productId,
      task_id: signal.taskId,
      user_id: null,
      candidate_id: null,
      candidate_kind: null,
      strategy: signal.strategy,
      angle_label: signal.angleLabel,
      signal_type: 'performance',
      weight: signal.weight,
      account_id: signal.accountId,
      post_id: signal.postId,
      reason: null,
      excerpt: null,
      created_at: nowIso(signal.at),
    })
    .execute();
}
