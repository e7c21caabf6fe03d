import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import { PeriodicChore } from '../../jobs/periodic.js';
import { notifyPostEvent } from '../webhooks/service.js';
import * as repo from './repository.js';
import type { PostStatus } from './repository.js';

/** A due post not marked published within this long is missed (§11). */
export const MISSED_AFTER_MS = 24 * 3_600_000;
const BATCH = 200;

/**
 * Moves posts through time (§11), in every worker process: `scheduled` → `due` at
 * `scheduled_at`, `due` → `missed` a day later, each move with its event. Exactly once across
 * restarts and several workers: a move is a conditional update (`WHERE status = <from>`) in the
 * transaction that writes the event's outbox rows, so of two workers racing for a post only one
 * changes a row and emits; a worker that dies mid-move rolls back and the next pass moves it.
 * The same sweep serves both queues (in-process and BullMQ), so a post is due within
 * POST_SWEEP_MS of its time whatever the deployment.
 */
export class PostSweeper extends PeriodicChore {
  constructor(ctx: AppContext) {
    super(ctx, 'post sweep', ctx.config.postSweepMs);
  }

  protected pass() {
    return this.sweep();
  }

  /** One pass; returns how many posts this process moved. */
  async sweep(): Promise<{ due: number; missed: number }> {
    const now = this.ctx.clock.now();
    const due = await this.move('scheduled', 'due', now, now);
    const missed = await this.move('due', 'missed', new Date(now.getTime() - MISSED_AFTER_MS), now);
    return { due, missed };
  }

  private async move(from: PostStatus, to: 'due' | 'missed', scheduledBy: Date, now: Date): Promise<number> {
    let moved = 0;
    for (;;) {
      const batch = await repo.postsToMove(this.ctx.db, from, nowIso(scheduledBy), BATCH);
      for (const post of batch) {
        const changed = await this.ctx.db.transaction().execute(async (trx) => {
          const changes = to === 'due' ? { status: to, due_at: nowIso(now), updated_at: nowIso(now) } : { status: to, missed_at: nowIso(now), updated_at: nowIso(now) };
          if (!(await repo.updatePostIf(trx, post.workspace_id, post.id, [from], changes))) return false;
          await notifyPostEvent(trx, post.workspace_id, post.id, to === 'due' ? 'post.due' : 'post.missed');
          return true;
        });
        if (changed) moved++;
      }
      if (batch.length < BATCH) return moved;
    }
  }
}
