import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../context.js';
import { preparedQuery } from '../db/database.js';
import type { Role } from '../db/schema.js';
import { can, roleAllows, roleFor, scopeAllows, scopeFor, type RouteScope, type Scope, type WorkspaceAction } from '../policy/policy.js';
import { isPersonalToken } from '../security/personal-tokens.js';
import { AppError, fail } from './errors.js';
import { authenticatePersonalToken } from './personal-token-auth.js';

export interface AuthUser {
  userId: number;
  username: string;
  workspaceId: number;
  role: Role;
  tokenVersion: number;
  /** session_version of the membership in workspaceId (the token's `mv`). */
  membershipVersion: number;
  /**
   * The workspace's task-list version (task_list_versions), read in the same statement as the
   * session: the `GET /tasks` page cache checks it without a statement of its own. Read before
   * anything the request reads, so a page cached under it can only be newer than its tag.
   */
  taskListVersion: number;
  /** A personal access token's scopes (§13): the role narrowed to them. Absent for a session. */
  scopes?: Scope[] | undefined;
  /** The personal access token the request came with. */
  accessTokenId?: number | undefined;
}

/**
 * What a route needs, declared next to its schema: the workspace action of the access policy
 * (policy/policy.ts) it performs. Rules that depend on the record (deleting one's own API key,
 * a locked banned word) are the policy's too, asked by the service that has the record.
 */
export interface RouteAccess {
  /** `public`: no token. `token`: any valid token, even before the forced password change. */
  auth?: 'public' | 'token' | 'user';
  can?: WorkspaceAction;
  /**
   * What a personal access token needs for a route without a workspace action (policy.ts,
   * RouteScope); by default `read` for GET, `session` (tokens refused) for anything else.
   */
  scope?: RouteScope;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    /** Set by rejectRefusedRequests on every route it guards. */
    answersRefusals?: boolean;
  }
  interface FastifyRequest {
    authUser: AuthUser | undefined;
    /** Why authentication refused the request; answered after the rate limit counted it. */
    authRefusal: AppError | undefined;
  }
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

/** The user with their role in the token's workspace: primary-key lookups on both tables. */
const sessionUser = preparedQuery((db, userId: number, workspaceId: number) =>
  db
    .selectFrom('users')
    .innerJoin('memberships', 'memberships.user_id', 'users.id')
    .select(['users.id', 'users.username', 'users.is_active', 'users.token_version', 'users.must_change_password', 'memberships.role', 'memberships.session_version'])
    .select((eb) =>
      eb.selectFrom('task_list_versions').select('task_list_versions.version').whereRef('task_list_versions.workspace_id', '=', 'memberships.workspace_id').as('task_list_version'),
    )
    .where('users.id', '=', userId)
    .where('memberships.workspace_id', '=', workspaceId),
);

/** What a session is: an access token's `sub`, `ws`, `ver` and `mv`, or a one-time token's record of them. */
export interface Session {
  userId: number;
  workspaceId: number;
  tokenVersion: number | null;
  membershipVersion: number | null;
}

export const sessionOf = (auth: AuthUser): Session => ({ userId: auth.userId, workspaceId: auth.workspaceId, tokenVersion: auth.tokenVersion, membershipVersion: auth.membershipVersion });

/** Checks in flight, per database (tests run several services in one process). */
const sessionChecks = new WeakMap<object, Map<string, Promise<boolean>>>();

/**
 * Whether a session still stands: the user active, still a member, neither their password nor
 * that membership changed since. What one-time tokens and open streams ask (issue 28, finding
 * 5); streams of one session share the query in flight.
 */
export function sessionIsCurrent(ctx: AppContext, session: Session): Promise<boolean> {
  let inFlight = sessionChecks.get(ctx.db);
  if (!inFlight) sessionChecks.set(ctx.db, (inFlight = new Map()));
  const key = `${session.userId}:${session.workspaceId}:${session.tokenVersion}:${session.membershipVersion}`;
  let check = inFlight.get(key);
  if (!check) {
    const checks = inFlight;
    check = sessionUser(ctx.db, session.userId, session.workspaceId)
      .then(([row]) => Boolean(row?.is_active) && row!.token_version === session.tokenVersion && row!.session_version === session.membershipVersion)
      .finally(() => checks.delete(key));
    checks.set(key, check);
  }
  return check;
}

/**
 * Resolves a bearer token to the current user: signature and expiry, then the database on every
 * request (no cache), so a password change or deactivation (the user's token version) and a
 * membership removal or role change (that membership's session version: the other workspaces'
 * sessions go on) take effect at once.
 */
export async function authenticate(ctx: AppContext, token: string): Promise<AuthUser & { mustChangePassword: boolean }> {
  if (isPersonalToken(token)) return authenticatePersonalToken(ctx, token);
  const claims = await ctx.tokens.verify(token);
  if (!claims) throw fail('auth.token_invalid');
  const [row] = await sessionUser(ctx.db, claims.sub, claims.ws);
  if (!row || !row.is_active || row.token_version !== claims.ver || row.session_version !== (claims.mv ?? 0)) {
    throw fail('auth.token_invalid');
  }
  return {
    userId: row.id,
    username: row.username,
    workspaceId: claims.ws,
    role: row.role,
    tokenVersion: row.token_version,
    membershipVersion: row.session_version,
    taskListVersion: row.task_list_version ?? 0,
    mustChangePassword: row.must_change_password,
  };
}

async function authPlugin(app: FastifyInstance, opts: { ctx: AppContext }) {
  app.decorateRequest('authUser', undefined);
  app.decorateRequest('authRefusal', undefined);
  app.addHook('onRequest', async (request) => {
    // Every API route needs a user unless it declares otherwise: forgetting `access` fails closed.
    const isApiRoute = request.routeOptions.url?.startsWith('/api/v1/') ?? false;
    const access = request.routeOptions.config?.access ?? (isApiRoute ? { auth: 'user' } : undefined);
    if (!access || access.auth === 'public') return;
    // A route registered outside rejectRefusedRequests' reach could not answer a deferred
    // refusal: it fails closed here instead.
    if (!request.routeOptions.config?.answersRefusals) throw fail('server.route_unguarded', { route: request.routeOptions.url ?? '' });
    const token = bearerToken(request);
    if (token === undefined) {
      request.authRefusal = fail('auth.credentials_missing');
      return;
    }
    let user: Awaited<ReturnType<typeof authenticate>>;
    try {
      user = await authenticate(opts.ctx, token);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      request.authRefusal = err;
      return;
    }
    // Known from here on: refusals below count against this user's budget, not the address's.
    request.authUser = user;
    if (user.mustChangePassword && access.auth !== 'token') {
      request.authRefusal = fail('auth.password_change_required');
    } else {
      request.authRefusal = accessRefusal(user, access, request.method);
    }
  });
}

/**
 * Why the user may not use a route declaring `access` with this method, or undefined: the role
 * (its workspace action), then a personal access token's scopes. The MCP server asks it too,
 * to list only the tools a token may call.
 */
export function accessRefusal(user: AuthUser, access: RouteAccess, method: string): AppError | undefined {
  if (access.can && !roleAllows(user, access.can)) {
    return fail('auth.role_too_low', { role: roleFor(access.can), your_role: user.role });
  }
  if (access.can && !can(user, access.can)) return scopeRefusal(user, scopeFor(access.can));
  if (!access.can && user.scopes) {
    const needs = access.scope ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'session');
    if (!scopeAllows(user, needs)) return scopeRefusal(user, needs);
  }
  return undefined;
}

function scopeRefusal(user: AuthUser, needs: RouteScope): AppError {
  if (needs === 'session') return fail('token.session_only');
  return fail('token.scope_missing', { scope: needs, scopes: user.scopes?.length ? user.scopes.join(', ') : 'none' });
}

/**
 * Answers a request authentication refused, as the last `preParsing` hook of every route added
 * from here on: after the rate limit's own (a route hook too, added by its `onRoute`), so a
 * refused request is counted first. Forged or expired tokens are thus limited per address like
 * any anonymous request, and a known user's refusals per user.
 */
export function rejectRefusedRequests(app: FastifyInstance) {
  const answer = async (request: FastifyRequest) => {
    if (request.authRefusal) throw request.authRefusal;
  };
  app.addHook('onRoute', (route) => {
    route.preParsing = [...(route.preParsing ? [route.preParsing].flat() : []), answer];
    route.config = { ...route.config, answersRefusals: true };
  });
}

export const authHooks = fp(authPlugin, { name: 'auth' });

/** The authenticated user of a route that declared `access`; a programming error otherwise. */
export function currentUser(request: FastifyRequest): AuthUser {
  // Never reached with a refusal (rejectRefusedRequests answers first); checked again all the same.
  if (request.authRefusal) throw request.authRefusal;
  if (!request.authUser) throw new Error(`route ${request.routeOptions.url} used currentUser without declaring access`);
  return request.authUser;
}
