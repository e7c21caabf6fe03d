import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../context.js';
import { preparedQuery } from '../db/database.js';
import type { Role } from '../db/schema.js';
import { AppError } from './errors.js';

export interface AuthUser {
  userId: number;
  username: string;
  workspaceId: number;
  role: Role;
  tokenVersion: number;
}

/**
 * What a route needs, declared next to its schema. The role matrix of contract-decisions §3 is
 * monotonic (operator ⊂ supervisor ⊂ admin), so a minimum role says it all; rules that depend
 * on the record (deleting one's own API key) stay in the service.
 */
export interface RouteAccess {
  /** `public`: no token. `token`: any valid token, even before the forced password change. */
  auth?: 'public' | 'token' | 'user';
  minRole?: Role;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    authUser: AuthUser | undefined;
  }
}

const RANK: Record<Role, number> = { operator: 1, supervisor: 2, admin: 3 };

export function roleAtLeast(role: Role, min: Role): boolean {
  return RANK[role] >= RANK[min];
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
    .select(['users.id', 'users.username', 'users.is_active', 'users.token_version', 'users.must_change_password', 'memberships.role'])
    .where('users.id', '=', userId)
    .where('memberships.workspace_id', '=', workspaceId),
);

/**
 * Resolves a bearer token to the current user: signature and expiry, then the database on every
 * request (no cache), so a password change, role change, deactivation or membership removal
 * takes effect at once.
 */
export async function authenticate(ctx: AppContext, token: string): Promise<AuthUser & { mustChangePassword: boolean }> {
  const claims = await ctx.tokens.verify(token);
  if (!claims) throw new AppError('tokenInvalid', 'token invalid or expired');
  const [row] = await sessionUser(ctx.db, claims.sub, claims.ws);
  if (!row || !row.is_active || row.token_version !== claims.ver) {
    throw new AppError('tokenInvalid', 'token invalid or expired');
  }
  return {
    userId: row.id,
    username: row.username,
    workspaceId: claims.ws,
    role: row.role,
    tokenVersion: row.token_version,
    mustChangePassword: row.must_change_password,
  };
}

async function authPlugin(app: FastifyInstance, opts: { ctx: AppContext }) {
  app.decorateRequest('authUser', undefined);
  app.addHook('onRequest', async (request) => {
    // Every API route needs a user unless it declares otherwise: forgetting `access` fails closed.
    const isApiRoute = request.routeOptions.url?.startsWith('/api/v1/') ?? false;
    const access = request.routeOptions.config?.access ?? (isApiRoute ? { auth: 'user' } : undefined);
    if (!access || access.auth === 'public') return;
    const token = bearerToken(request);
    if (token === undefined) throw new AppError('credentialsMissing', 'credentials missing: send Authorization: Bearer <token>');
    const user = await authenticate(opts.ctx, token);
    if (user.mustChangePassword && access.auth !== 'token') {
      throw new AppError('passwordChangeRequired', 'password change required: call POST /api/v1/auth/change-password first');
    }
    if (access.minRole && !roleAtLeast(user.role, access.minRole)) {
      throw new AppError('forbidden', `this operation needs the ${access.minRole} role or higher; your role is ${user.role}`);
    }
    request.authUser = user;
  });
}

export const authHooks = fp(authPlugin, { name: 'auth' });

/** The authenticated user of a route that declared `access`; a programming error otherwise. */
export function currentUser(request: FastifyRequest): AuthUser {
  if (!request.authUser) throw new Error(`route ${request.routeOptions.url} used currentUser without declaring access`);
  return request.authUser;
}
