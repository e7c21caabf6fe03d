import type { Transaction } from 'kysely';
import type { Db, DbOrTx } from './database.js';
import { isUniqueViolation } from './errors.js';
import type { DB } from './schema.js';

/** How long an Idempotency-Key holds its record. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** A record as it holds its key: when made, and the hash of the request that made it. */
export interface KeyHolder {
  id: number;
  created_at: string;
  idempotency_hash: string | null;
}

/**
 * Creates a record at most once per Idempotency-Key and day, as Stripe does: a repeat answers the
 * first record, the key reused for another request (another hash) is refused. The key is looked up
 * before `prepare` (a repeat is not checked again) and once more inside the transaction; a key
 * held longer than the window is let go; of two requests racing with one key, the unique index
 * lets one insert and the other answers with the winner.
 */
export async function createOnce<P>(
  db: Db,
  now: Date,
  o: {
    key: string | undefined;
    hash: string | null;
    reused: () => Error;
    find: (db: DbOrTx) => Promise<KeyHolder | undefined>;
    release: (db: DbOrTx, id: number) => Promise<void>;
    prepare: () => Promise<P>;
    insert: (trx: Transaction<DB>, prepared: P) => Promise<number>;
  },
): Promise<{ id: number; isNew: boolean }> {
  const fresh = (held: KeyHolder) => Date.parse(held.created_at) > now.getTime() - IDEMPOTENCY_WINDOW_MS;
  const repeatOf = (held: KeyHolder) => {
    if (held.idempotency_hash !== null && held.idempotency_hash !== o.hash) throw o.reused();
    return { id: held.id, isNew: false };
  };
  if (o.key) {
    const earlier = await o.find(db);
    if (earlier && fresh(earlier)) return repeatOf(earlier);
  }
  const prepared = await o.prepare();
  try {
    return await db.transaction().execute(async (trx) => {
      if (o.key) {
        const holder = await o.find(trx);
        if (holder && fresh(holder)) return repeatOf(holder);
        if (holder) await o.release(trx, holder.id);
      }
      return { id: await o.insert(trx, prepared), isNew: true };
    });
  } catch (err) {
    if (o.key && isUniqueViolation(err)) {
      const winner = await o.find(db);
      if (winner) return repeatOf(winner);
    }
    throw err;
  }
}
