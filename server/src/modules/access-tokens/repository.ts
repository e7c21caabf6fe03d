import type { DbOrTx } from '../../db/database.js';
import type { NewRow, Row } from '../../db/schema.js';

/** Personal access tokens: every read and change names the workspace and the owner. */

export type AccessTokenRow = Row<'access_tokens'>;

export function listTokens(db: DbOrTx, workspaceId: number, userId: number) {
  return db
    .selectFrom('access_tokens')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('id', 'desc')
    .execute();
}

export async function countLive(db: DbOrTx, workspaceId: number, userId: number): Promise<number> {
  const row = await db
    .selectFrom('access_tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertToken(db: DbOrTx, row: NewRow<'access_tokens'>): Promise<AccessTokenRow> {
  return db.insertInto('access_tokens').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function revokeToken(db: DbOrTx, workspaceId: number, userId: number, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('access_tokens')
    .set({ revoked_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The user's and the membership's versions now: what a new token is bound to. */
export function currentVersions(db: DbOrTx, workspaceId: number, userId: number) {
  return db
    .selectFrom('users')
    .innerJoin('memberships', 'memberships.user_id', 'users.id')
    .select(['users.token_version', 'memberships.session_version'])
    .where('users.id', '=', userId)
    .where('memberships.workspace_id', '=', workspaceId)
    .executeTakeFirst();
}
