import type { Kysely } from 'kysely';
import type { DbOrTx } from '../../db/database.js';
import { FILE_KEY_COLUMNS, type FileHold } from '../../db/schema.js';

/**
 * Which of `keys` a row still uses. Keys are content-addressed, so two records (even in two
 * workspaces) can share one file. A delivery package past its `expires_at` (`now`, business
 * time, as the download checks it) no longer holds its zip. Across workspaces: the sweep serves
 * the whole store.
 */
export async function keysInUse(db: DbOrTx, keys: string[], now: string): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  // The tables and columns come from FILE_KEY_COLUMNS at run time, which Kysely's types cannot follow.
  const loose = db as unknown as Kysely<Record<string, Record<string, string | null>>>;
  const selects = Object.entries(FILE_KEY_COLUMNS).flatMap(([table, columns]) =>
    Object.entries(columns as Record<string, FileHold>).map(([column, hold]) => {
      const select = loose.selectFrom(table).select(`${column} as key`).where(column, 'in', keys);
      return hold === 'until_expires_at' ? select.where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])) : select;
    }),
  );
  const [first, ...rest] = selects;
  const rows = await rest.reduce((query, next) => query.union(next), first!).execute();
  return new Set(rows.map((r) => r.key).filter((k): k is string => k !== null));
}
