import type { DbOrTx } from '../../db/database.js';
import type { InvitationStatus, NewRow, Row } from '../../db/schema.js';

export type InvitationRow = Row<'invitations'>;

/** Invitations with the inviter's username, for the lists of both sides. */
function withInviter(db: DbOrTx) {
  return db
    .selectFrom('invitations')
    .leftJoin('users as inviter', 'inviter.id', 'invitations.invited_by')
    .selectAll('invitations')
    .select('inviter.username as invited_by_username');
}

export function findPendingByInvitee(db: DbOrTx, workspaceId: number, kind: InvitationRow['invitee_kind'], invitee: string) {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('invitee_kind', '=', kind)
    .where('invitee', '=', invitee)
    .where('status', '=', 'pending')
    .executeTakeFirst();
}

export async function insertInvitation(db: DbOrTx, row: NewRow<'invitations'>): Promise<number> {
  const inserted = await db.insertInto('invitations').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

/** A repeated invitation: the new role, inviter and account, and a fresh expiry. */
export async function renewInvitation(
  db: DbOrTx,
  id: number,
  changes: Pick<InvitationRow, 'role' | 'invited_by' | 'invitee_user_id' | 'token_hash' | 'created_at' | 'expires_at'>,
) {
  await db.updateTable('invitations').set(changes).where('id', '=', id).where('status', '=', 'pending').execute();
}

export function countLivePending(db: DbOrTx, workspaceId: number, now: string) {
  return db
    .selectFrom('invitations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

export function findInvitationInWorkspace(db: DbOrTx, workspaceId: number, id: number) {
  return withInviter(db).where('invitations.workspace_id', '=', workspaceId).where('invitations.id', '=', id).executeTakeFirst();
}

export function listWorkspaceInvitations(db: DbOrTx, workspaceId: number, page: { offset: number; limit: number }) {
  return Promise.all([
    withInviter(db).where('invitations.workspace_id', '=', workspaceId).orderBy('invitations.id', 'desc').offset(page.offset).limit(page.limit).execute(),
    db
      .selectFrom('invitations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n)),
  ]);
}

/** Pending, unexpired invitations addressed to a user, with the workspace each is for. */
export function listPendingForUser(db: DbOrTx, userId: number, now: string, page: { offset: number; limit: number }) {
  const base = db
    .selectFrom('invitations')
    .where('invitations.invitee_user_id', '=', userId)
    .where('invitations.status', '=', 'pending')
    .where('invitations.expires_at', '>', now);
  return Promise.all([
    base
      .innerJoin('workspaces', 'workspaces.id', 'invitations.workspace_id')
      .leftJoin('users as inviter', 'inviter.id', 'invitations.invited_by')
      .select([
        'invitations.id',
        'invitations.role',
        'invitations.created_at',
        'invitations.expires_at',
        'workspaces.id as workspace_id',
        'workspaces.name as workspace_name',
        'workspaces.slug as workspace_slug',
        'inviter.username as invited_by_username',
      ])
      .orderBy('invitations.id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

export function findInvitationFor(db: DbOrTx, userId: number, id: number) {
  return db.selectFrom('invitations').selectAll().where('id', '=', id).where('invitee_user_id', '=', userId).executeTakeFirst();
}

/** pending → `status`, only while still pending (and unexpired, for the invitee's answers). */
export async function settleInvitation(
  db: DbOrTx,
  id: number,
  status: Exclude<InvitationStatus, 'pending'>,
  now: string,
  opts: { unexpired?: boolean; by?: number } = {},
): Promise<boolean> {
  // Settled, a link's token is spent: only its hash is dropped, the row stays for the admin's list.
  const changes = { status, responded_at: now, token_hash: null, ...(opts.by !== undefined ? { invitee_user_id: opts.by } : {}) };
  let query = db.updateTable('invitations').set(changes).where('id', '=', id).where('status', '=', 'pending');
  if (opts.unexpired) query = query.where('expires_at', '>', now);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The other pending invitations of a user into a workspace they just joined: answered too. */
export async function settleOthersOf(db: DbOrTx, workspaceId: number, userId: number, now: string) {
  await db
    .updateTable('invitations')
    .set({ status: 'accepted', responded_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('invitee_user_id', '=', userId)
    .where('status', '=', 'pending')
    .execute();
}

export function findByTokenHash(db: DbOrTx, tokenHash: string) {
  return db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}
