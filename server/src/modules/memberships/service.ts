/**
 * Memberships (user × workspace × role × session version): the data the identity modules
 * (auth, users, workspaces, invitations) read and write inside their own transactions. The
 * rules about who may change them live with those modules.
 */
export {
  countAdmins,
  countMembershipsOutsideAdminOf,
  deleteMembership,
  findMembership,
  listMembershipsOfUser,
  sharesWorkspaceAdministeredBy,
  upsertMembership,
} from './repository.js';
