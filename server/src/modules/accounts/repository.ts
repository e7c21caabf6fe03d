import type { Transaction } from 'kysely';
import { forUpdate, type DbOrTx, type Dialect } from '../../db/database.js';
import type { DB, NewRow, RowUpdate } from '../../db/schema.js';

const columns = ['id', 'workspace_id', 'name', 'profile_url', 'persona', 'daily_cap', 'min_gap_minutes', 'timezone', 'active', 'created_by', 'created_at', 'updated_at'] as const;

export function listAccounts(db: DbOrTx, workspaceId: number, filter: { active?: boolean | undefined }, page: { offset: number; limit: number }) {
  let base = db.selectFrom('accounts').where('workspace_id', '=', workspaceId);
  if (filter.active !== undefined) base = base.where('active', '=', filter.active);
  return Promise.all([
    base.select(columns).orderBy('active', 'desc').orderBy('id', 'asc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

export function findAccount(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('accounts').select(columns).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function insertAccount(db: DbOrTx, row: NewRow<'accounts'>) {
  return db.insertInto('accounts').values(row).returning(columns).executeTakeFirstOrThrow();
}

export function updateAccount(db: DbOrTx, workspaceId: number, id: number, changes: RowUpdate<'accounts'>) {
  return db.updateTable('accounts').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).returning(columns).executeTakeFirst();
}

export function deleteAccount(db: DbOrTx, workspaceId: number, id: number) {
  return db.deleteFrom('accounts').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function postCount(db: DbOrTx, workspaceId: number, accountId: number) {
  return db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

/** The account row, locked until the transaction ends (PostgreSQL; SQLite serialises writers): two posts planned at once see each other. */
export function lockAccount(trx: Transaction<DB>, dialect: Dialect, workspaceId: number, id: number) {
  return forUpdate(trx.selectFrom('accounts').select(columns).where('workspace_id', '=', workspaceId).where('id', '=', id), dialect).executeTakeFirst();
}
