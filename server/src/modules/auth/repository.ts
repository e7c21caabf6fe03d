import type { Transaction } from 'kysely';
import { forUpdate, type DbOrTx, type Dialect } from '../../db/database.js';
import type { DB, Row } from '../../db/schema.js';

/** Failed logins per username (login lockout, contract-decisions §3). */

export function findThrottle(db: DbOrTx, username: string) {
  return db.selectFrom('login_throttle').selectAll().where('username', '=', username).executeTakeFirst();
}

export function lockThrottle(trx: Transaction<DB>, dialect: Dialect, username: string) {
  return forUpdate(trx.selectFrom('login_throttle').selectAll().where('username', '=', username), dialect).executeTakeFirst();
}

export async function saveThrottle(db: DbOrTx, row: Row<'login_throttle'>): Promise<void> {
  const { username: _username, ...values } = row;
  await db
    .insertInto('login_throttle')
    .values(row)
    .onConflict((oc) => oc.column('username').doUpdateSet(values))
    .execute();
}

export async function clearThrottle(db: DbOrTx, username: string): Promise<void> {
  await db.deleteFrom('login_throttle').where('username', '=', username).execute();
}
