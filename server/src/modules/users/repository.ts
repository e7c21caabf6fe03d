import type { DbOrTx } from '../../db/database.js';
import type { Role, Row } from '../../db/schema.js';

export type UserRow = Row<'users'>;

export function findUserByUsername(db: DbOrTx, username: string) {
  return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
}

export function findUserById(db: DbOrTx, id: number) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(
  db: DbOrTx,
  user: { username: string; email: string; passwordHash: string; mustChangePassword: boolean; workspaceId: number | null; now: string },
): Promise<number> {
  const row = await db
    .insertInto('users')
    .values({
      username: user.username,
      email: user.email,
      password_hash: user.passwordHash,
      must_change_password: user.mustChangePassword,
      is_active: true,
      token_version: 1,
      current_workspace_id: user.workspaceId,
      created_at: user.now,
      updated_at: user.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateUser(
  db: DbOrTx,
  id: number,
  changes: Partial<Pick<UserRow, 'email' | 'password_hash' | 'must_change_password' | 'is_active' | 'current_workspace_id'>> & {
    bumpTokenVersion?: boolean;
    now: string;
  },
) {
  const { bumpTokenVersion, now, ...columns } = changes;
  await db
    .updateTable('users')
    .set((eb) => ({
      ...columns,
      updated_at: now,
      ...(bumpTokenVersion ? { token_version: eb('token_version', '+', 1) } : {}),
    }))
    .where('id', '=', id)
    .execute();
}

export function countUsers(db: DbOrTx) {
  return db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

export interface WorkspaceUserRow {
  id: number;
  username: string;
  email: string;
  is_active: boolean;
  must_change_password: boolean;
  current_workspace_id: number | null;
  created_at: string;
  role: Role;
}

const workspaceUserColumns = [
  'users.id',
  'users.username',
  'users.email',
  'users.is_active',
  'users.must_change_password',
  'users.current_workspace_id',
  'users.created_at',
  'memberships.role',
] as const;

export function listWorkspaceUsers(db: DbOrTx, workspaceId: number, page: { offset: number; limit: number }) {
  const base = db
    .selectFrom('users')
    .innerJoin('memberships', 'memberships.user_id', 'users.id')
    .where('memberships.workspace_id', '=', workspaceId);
  return Promise.all([
    base.select(workspaceUserColumns).orderBy('users.id').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

export function findWorkspaceUser(db: DbOrTx, workspaceId: number, userId: number): Promise<WorkspaceUserRow | undefined> {
  return db
    .selectFrom('users')
    .innerJoin('memberships', 'memberships.user_id', 'users.id')
    .where('memberships.workspace_id', '=', workspaceId)
    .where('users.id', '=', userId)
    .select(workspaceUserColumns)
    .executeTakeFirst();
}
