import { Type } from 'typebox';
import { currentUser } from '../../http/auth.js';
import type { ApiModule } from '../../http/module.js';
import { commonErrors, DateTime, ErrorEnvelope, IdParams, Nullable, Ok, ok, OkEmpty } from '../../http/schemas.js';
import * as service from './service.js';
import { AccessTokenView, CreatedAccessTokenView, ScopeSchema } from './views.js';

const tags = ['auth'];
/** A person manages their tokens from their own session: a token never makes or lists tokens. */
const sessionOnly = { access: { scope: 'session' as const } };

export const accessTokenRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/auth/tokens',
    {
      config: sessionOnly,
      schema: {
        tags,
        operationId: 'listAccessTokens',
        summary: 'My personal access tokens',
        description: 'The caller\'s personal access tokens in the current workspace (contract-decisions §13), newest first; revoked ones are gone, the token itself is never shown again.',
        response: { 200: Ok(Type.Object({ items: Type.Array(AccessTokenView) })), ...commonErrors },
      },
    },
    async (request) => ok(await service.listTokens(ctx, currentUser(request))),
  );

  app.post(
    '/auth/tokens',
    {
      config: sessionOnly,
      schema: {
        tags,
        operationId: 'createAccessToken',
        summary: 'Create a personal access token',
        description:
          'A token for scripts and assistants (the MCP server at POST /mcp): it acts as the caller in the current workspace with their role narrowed to `scopes`, and dies with a password change, a role change or a removal. The answer holds the token once; only its hash is kept.',
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 60 }),
          scopes: Type.Array(ScopeSchema, { minItems: 1, maxItems: 4, uniqueItems: true }),
          expires_at: Type.Optional(Nullable(DateTime)),
        }),
        response: { 200: Ok(CreatedAccessTokenView), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => ok(await service.createToken(ctx, currentUser(request), request.body)),
  );

  app.delete(
    '/auth/tokens/:id',
    {
      config: sessionOnly,
      schema: {
        tags,
        operationId: 'revokeAccessToken',
        summary: 'Revoke a personal access token',
        description: 'The token stops working at once (its next request answers 401 / 40101).',
        params: IdParams,
        response: { 200: OkEmpty, ...commonErrors },
      },
    },
    async (request) => {
      await service.revokeToken(ctx, currentUser(request), request.params.id);
      return ok({});
    },
  );
};
