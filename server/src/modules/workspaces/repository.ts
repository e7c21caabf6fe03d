import type { DbOrTx } from '../../db/database.js';

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
