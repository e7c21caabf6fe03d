import type { Role, Scope } from '../db/schema.js';

export type { Scope };

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
  /**
   * A personal access token's scopes (§13): the role narrowed to them. Absent for a person's
   * session, which acts with the whole role.
   */
  scopes?: readonly Scope[] | undefined;
}

/** The scopes of §13, in the order the console offers them. */
export const SCOPES: readonly Scope[] = ['read', 'produce', 'review', 'admin'];

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
  /** A task's audit trail (contract-decisions §12): prompts and who did what, for those who answer for what is posted. */
  'audit.read': atLeast('supervisor'),
  /** Posts on the calendar (§11): scheduling approved notes, marking them published, their metrics and imports. */
  'posts.write': anyMember,
  /** Scheduling a note despite a near-duplicate warning (§11): a supervisor's call. */
  'posts.force': atLeast('supervisor'),
  /** The team's Xiaohongshu accounts (§11). */
  'accounts.manage': atLeast('supervisor'),
  'users.manage': atLeast('admin'),
  'workspaces.manage': atLeast('admin'),
  'webhooks.manage': atLeast('admin'),
} satisfies Record<string, (actor: Actor) => boolean>;

export type WorkspaceAction = keyof typeof WORKSPACE_RULES;

/**
 * The scope a token needs for each action, on top of the role: producing notes (`produce`),
 * deciding on them (`review`), running the workspace and its credentials (`admin`).
 */
const ACTION_SCOPES: Record<WorkspaceAction, Scope> = {
  'products.write': 'produce',
  'tasks.write': 'produce',
  'banned_words.write': 'admin',
  'api_keys.create': 'admin',
  'generation_routing.write': 'admin',
  'review.decide': 'review',
  'audit.read': 'review',
  'posts.write': 'produce',
  'posts.force': 'review',
  'accounts.manage': 'admin',
  'users.manage': 'admin',
  'workspaces.manage': 'admin',
  'webhooks.manage': 'admin',
};

/** The scope records of a kind need (a banned word's rules ask `can`, which checks its own). */
const RECORD_SCOPES: Record<RecordKind, Scope> = { banned_word: 'admin', api_key: 'admin' };

/**
 * What a route that names no workspace action needs of a token: a scope, `any` (any valid
 * token, e.g. `POST /mcp`, whose tools are checked one by one) or `session` (a person's own
 * session only: their password, their tokens, joining or switching workspaces). Routes say so in
 * `config.access.scope`; without it a read (GET) needs `read` and anything else `session`, so a
 * write nobody classified is closed to tokens.
 */
export type RouteScope = Scope | 'any' | 'session';

export function scopeAllows(actor: Actor, scope: RouteScope): boolean {
  if (!actor.scopes) return true;
  if (scope === 'any') return true;
  if (scope === 'session') return false;
  return actor.scopes.includes(scope);
}

export function scopeFor(action: WorkspaceAction): Scope {
  return ACTION_SCOPES[action];
}
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
  return WORKSPACE_RULES[action](actor) && scopeAllows(actor, ACTION_SCOPES[action]);
}

/** Whether the role alone allows the action (what a refusal names when the scope is the reason). */
export function roleAllows(actor: Actor, action: WorkspaceAction): boolean {
  return WORKSPACE_RULES[action](actor);
}

export function canOn<K extends RecordKind>(actor: Actor, kind: K, action: RecordAction<K>, record: RecordFacts[K]): boolean {
  const rule = (RECORD_RULES[kind] as Record<string, Rule<RecordFacts[K]>>)[action]!;
  return rule(actor, record) && scopeAllows(actor, RECORD_SCOPES[kind]);
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
