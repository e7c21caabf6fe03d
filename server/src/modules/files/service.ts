import type { AppContext } from '../../context.js';
import { isFileReferenced } from './repository.js';

/**
 * Removes stored files no row references any more; called after the transaction that dropped
 * the rows has committed, so a failed delete only leaves an orphan file. (The same bytes stored
 * again between the check and the delete would lose their file; see docs/decisions.md.)
 */
export async function deleteUnreferencedFiles(ctx: AppContext, keys: Array<string | null | undefined>): Promise<void> {
  for (const key of new Set(keys.filter((k): k is string => Boolean(k)))) {
    try {
      if (!(await isFileReferenced(ctx.db, key))) await ctx.storage.delete(key);
    } catch (err) {
      ctx.log.warn({ err, key }, 'could not delete an unreferenced file');
    }
  }
}
