import type { DbOrTx } from '../../db/database.js';
import type { Role } from '../../db/schema.js';

export function findWorkspace(db: DbOrTx, id: number) {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findWorkspaceBySlug(db: DbOrTx, slug: string) {
  return db.selectFrom('workspaces').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function insertWorkspace(db: DbOrTx, ws: { name: string; slug: string; now: string }): Promise<number> {
  const row = await db
    .insertInto('workspaces')
    .values({ name: ws.name, slug: ws.slug, created_at: ws.now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

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
    .select(['workspaces.id', 'workspaces.name', 'workspaces.slug', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .orderBy('workspaces.id')
    .execute();
}

export async function upsertMembership(db: DbOrTx, m: { workspaceId: number; userId: number; role: Role; now: string }) {
  await db
    .insertInto('memberships')
    .values({ workspace_id: m.workspaceId, user_id: m.userId, role: m.role, created_at: m.now })
    .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doUpdateSet({ role: m.role }))
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
