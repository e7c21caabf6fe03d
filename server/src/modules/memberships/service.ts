import type { DbOrTx } from '../../db/database.js';
import type { Role } from '../../db/schema.js';
import { fail } from '../../http/errors.js';
import { countAdmins } from './repository.js';

/**
 * Memberships (user × workspace × role × session version): the data the identity modules
 * (auth, users, workspaces, invitations) read and write inside their own transactions. Who may
 * change them is the access policy's (policy/policy.ts); that a workspace keeps an admin is here.
 */
export {
  countMembershipsOutsideAdminOf,
  deleteMembership,
  findMembership,
  listMembershipsOfUser,
  sharesWorkspaceAdministeredBy,
  upsertMembership,
} from './repository.js';

/**
 * A workspace always keeps an admin: a member going from `current` to `next` (another role, or
 * null: removed or deactivated) is refused (409) when they are its last admin. In the caller's
 * transaction, so two admins demoting each other at once cannot both succeed.
 */
export async function assertAnAdminRemains(trx: DbOrTx, workspaceId: number, current: Role | undefined, next: Role | null): Promise<void> {
  if (current === 'admin' && next !== 'admin' && (await countAdmins(trx, workspaceId)) <= 1) {
    throw fail('workspace.last_admin');
  }
}
