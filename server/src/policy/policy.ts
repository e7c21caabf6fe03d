import type { Role } from '../db/schema.js';

/**
 * Who may do what (contract-decisions §3), written once: routes ask `can` before a request
 * reaches a service, services ask it about the record at hand, and every resource's
 * `allowed_actions` (and the workspace's, on `GET /auth/me`) is what `can` answers, so the
 * console shows only what the server will accept and keeps no role table of its own. Pure: the
 * caller brings the record.
 */
export interface Actor {
  userId: number;
  /** The actor's role in the workspace the request acts in. */
  role: Role;
}

const RANK: Record<Role, number> = { operator: 1, supervisor: 2, admin: 3 };
const atLeast = (min: Role) => (actor: Actor) => RANK[actor.role] >= RANK[min];
const anyMember = atLeast('operator');

/** What a role may do in its workspace, whatever the record. */
const WORKSPACE_RULES = {
  /** Products, their images, benchmarks and link analysis. */
  'products.write': anyMember,
  /** Tasks, candidates, imports, regeneration, submission, packages and fission. */
  'tasks.write': anyMember,
  'banned_words.write': atLeast('supervisor'),
  'api_keys.create': anyMember,
  'generation_routing.write': atLeast('supervisor'),
  'review.decide': atLeast('supervisor'),
  'users.manage': atLeast('admin'),
  'workspaces.manage': atLeast('admin'),
  'webhooks.manage': atLeast('admin'),
} satisfies Record<string, (actor: Actor) => boolean>;

export type WorkspaceAction = keyof typeof WORKSPACE_RULES;
export const WORKSPACE_ACTIONS = Object.keys(WORKSPACE_RULES) as WorkspaceAction[];

type Rule<R> = (actor: Actor, record: R) => boolean;

/** What a rule reads of each kind of record. */
interface RecordFacts {
  banned_word: { updatable: boolean };
  api_key: { created_by: number };
}

// A locked word (updatable: false) is an admin's to change.
const changeBannedWord: Rule<RecordFacts['banned_word']> = (actor, word) => can(actor, 'banned_words.write') && (word.updatable || actor.role === 'admin');
// Operators look after the connections they added; supervisors and admins after all of them.
const changeApiKey: Rule<RecordFacts['api_key']> = (actor, key) => key.created_by === actor.userId || atLeast('supervisor')(actor);

/** What a role may do to one record, given what the record says about itself. */
const RECORD_RULES = {
  banned_word: { update: changeBannedWord, delete: changeBannedWord },
  api_key: { update: changeApiKey, delete: changeApiKey, test: changeApiKey },
} satisfies { [K in keyof RecordFacts]: Record<string, Rule<RecordFacts[K]>> };

export type RecordKind = keyof RecordFacts;
export type RecordAction<K extends RecordKind> = keyof (typeof RECORD_RULES)[K] & string;

export function can(actor: Actor, action: WorkspaceAction): boolean {
  return WORKSPACE_RULES[action](actor);
}

export function canOn<K extends RecordKind>(actor: Actor, kind: K, action: RecordAction<K>, record: RecordFacts[K]): boolean {
  const rule = (RECORD_RULES[kind] as Record<string, Rule<RecordFacts[K]>>)[action]!;
  return rule(actor, record);
}

/** The workspace actions the actor may take: `allowed_actions` of `GET /auth/me`. */
export function workspaceActions(actor: Actor): WorkspaceAction[] {
  return WORKSPACE_ACTIONS.filter((action) => can(actor, action));
}

/** The actions the actor may take on one record: its `allowed_actions`. */
export function recordActions<K extends RecordKind>(actor: Actor, kind: K, record: RecordFacts[K]): Array<RecordAction<K>> {
  return (Object.keys(RECORD_RULES[kind]) as Array<RecordAction<K>>).filter((action) => canOn(actor, kind, action, record));
}

/** The role an action of the workspace needs at the least, for the refusal's wording. */
export function roleFor(action: WorkspaceAction): Role {
  return (['operator', 'supervisor', 'admin'] as const).find((role) => can({ userId: 0, role }, action)) ?? 'admin';
}
