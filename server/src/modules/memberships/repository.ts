import type { DbOrTx } from '../../db/database.js';
import type { Role } from '../../db/schema.js';

/** Who belongs to which workspace, with which role and session version. */

export function findMembership(db: DbOrTx, workspaceId: number, userId: number) {
  return db
    .selectFrom('memberships')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export function listMembershipsOfUser(db: DbOrTx, userId: number) {
  return db
    .selectFrom('memberships')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select(['workspaces.id', 'workspaces.name', 'workspaces.slug', 'memberships.role', 'memberships.session_version'])
    .where('memberships.user_id', '=', userId)
    .orderBy('workspaces.id')
    .execute();
}

/**
 * Gives a user a role in a workspace. A new membership or a changed role gets a new session
 * version, so tokens issued for the earlier one stop working in this workspace (and only here);
 * the same role again changes nothing. Call it inside a transaction.
 */
export async function upsertMembership(db: DbOrTx, m: { workspaceId: number; userId: number; role: Role; now: string }) {
  const existing = await findMembership(db, m.workspaceId, m.userId);
  if (existing?.role === m.role) return;
  const { membership_seq: version } = await db
    .updateTable('workspaces')
    .set((eb) => ({ membership_seq: eb('membership_seq', '+', 1) }))
    .where('id', '=', m.workspaceId)
    .returning('membership_seq')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('memberships')
    .values({ workspace_id: m.workspaceId, user_id: m.userId, role: m.role, session_version: version, created_at: m.now })
    .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doUpdateSet({ role: m.role, session_version: version }))
    .execute();
}

export async function deleteMembership(db: DbOrTx, workspaceId: number, userId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('memberships')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export function countAdmins(db: DbOrTx, workspaceId: number) {
  return db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'admin')
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

/**
 * Whether `userId` is a member of some workspace where `adminId` is an admin: the users an
 * admin may add directly (everyone else is invited and must accept).
 */
export async function sharesWorkspaceAdministeredBy(db: DbOrTx, userId: number, adminId: number): Promise<boolean> {
  const row = await db
    .selectFrom('memberships as m')
    .innerJoin('memberships as a', 'a.workspace_id', 'm.workspace_id')
    .select('m.workspace_id')
    .where('m.user_id', '=', userId)
    .where('a.user_id', '=', adminId)
    .where('a.role', '=', 'admin')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Memberships of a user in workspaces where `adminId` is not an admin. */
export function countMembershipsOutsideAdminOf(db: DbOrTx, userId: number, adminId: number) {
  return db
    .selectFrom('memberships as m')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('m.user_id', '=', userId)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('memberships as a')
            .select('a.user_id')
            .whereRef('a.workspace_id', '=', 'm.workspace_id')
            .where('a.user_id', '=', adminId)
            .where('a.role', '=', 'admin'),
        ),
      ),
    )
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}
