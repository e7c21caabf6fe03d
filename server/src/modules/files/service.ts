import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import { keysInUse } from './repository.js';

/** Keys checked against the database per query. */
const PAGE = 500;

export interface SweepResult {
  /** Files old enough to be judged. */
  examined: number;
  deleted: string[];
}

/**
 * Deletes stored files that no row uses and that were last written more than `graceMs` ago.
 * Nothing deletes a file inline when its row goes (deleting a product image, a failed upload, a
 * package build that lost a race): this pass does, later. The grace period is what makes that
 * safe: a file is written before the row that uses it, and the same bytes uploaded again are
 * written again (FileStorage.put), so a file about to be used is always young, and the delete
 * itself re-checks the age (FileStorage.delete `writtenBefore`). Delivery packages past their
 * expiry no longer hold their zip, so it goes too.
 */
export async function sweepUnusedFiles(ctx: AppContext, graceMs: number, signal?: AbortSignal): Promise<SweepResult> {
  // Wall clock for file ages: the store stamps writes with real time, whatever the business clock says.
  const writtenBefore = new Date(Date.now() - graceMs);
  const now = nowIso(ctx.clock.now());
  const result: SweepResult = { examined: 0, deleted: [] };

  const settle = async (keys: string[]) => {
    const used = await keysInUse(ctx.db, keys, now);
    const unused = keys.filter((key) => !used.has(key));
    if (unused.length === 0) return;
    for (const key of unused) {
      if (signal?.aborted) continue;
      try {
        if (await ctx.storage.delete(key, { writtenBefore })) result.deleted.push(key);
      } catch (err) {
        ctx.log.warn({ err, key }, 'could not delete an unused file');
      }
    }
  };

  let page: string[] = [];
  for await (const file of ctx.storage.list()) {
    // Stopping (shutdown) ends the pass where it is; the next one starts over.
    if (signal?.aborted) break;
    if (file.writtenAt >= writtenBefore) continue;
    result.examined += 1;
    page.push(file.key);
    if (page.length === PAGE) {
      await settle(page);
      page = [];
    }
  }
  if (!signal?.aborted) await settle(page);
  return result;
}
