import type { DbOrTx } from '../../db/database.js';
import type { NewRow } from '../../db/schema.js';

/** Columns safe to hand out: never the ciphertext. */
const publicColumns = ['id', 'provider', 'key_last4', 'created_at', 'created_by'] as const;

export function listKeys(db: DbOrTx, workspaceId: number, page: { offset: number; limit: number }) {
  const base = db.selectFrom('api_keys').where('workspace_id', '=', workspaceId);
  return Promise.all([
    base.select(publicColumns).orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

export function findKey(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export async function insertKey(db: DbOrTx, row: NewRow<'api_keys'>) {
  return db.insertInto('api_keys').values(row).returning(publicColumns).executeTakeFirstOrThrow();
}

export async function deleteKey(db: DbOrTx, workspaceId: number, id: number) {
  await db.deleteFrom('api_keys').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

export function countKeys(db: DbOrTx, workspaceId: number) {
  return db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

/** The operator's newest key, else the workspace's newest key (contract-decisions §6). */
export function newestKeyFor(db: DbOrTx, workspaceId: number, operatorId: number) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy((eb) => eb.case().when('created_by', '=', operatorId).then(0).else(1).end())
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
