import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, DateTime, IdParams, Ok, ok, OkEmpty, PageQuery, Paged } from '../../http/schemas.js';
import { PROVIDER_LABELS } from '../../providers/labels.js';
import * as service from './service.js';

const tags = ['api-keys'];
const ApiKeyView = Type.Object({
  id: Type.Integer(),
  provider: Type.String(),
  key_last4: Type.String(),
  created_at: DateTime,
  created_by: Type.Integer(),
});

export const apiKeyRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/api-keys',
    {
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: 'List provider keys',
        description: 'Provider keys of the workspace: provider and last four characters only',
        querystring: PageQuery,
        response: { 200: Ok(Paged(ApiKeyView)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listApiKeys(ctx, currentUser(request), request.query)),
  );

  app.post(
    '/api-keys',
    {
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Store a provider key',
        description: 'Store a provider key (encrypted; never returned)',
        body: Type.Object({
          provider: Type.String({ minLength: 1, maxLength: 32, description: `one of ${PROVIDER_LABELS.join(', ')}` }),
          api_key: Type.String({ minLength: 1, maxLength: 4096 }),
        }),
        response: { 200: Ok(ApiKeyView), ...commonErrors },
      },
    },
    async (request) => ok(await service.createApiKey(ctx, currentUser(request), request.body.provider, request.body.api_key)),
  );

  app.delete(
    '/api-keys/:id',
    {
      schema: { tags, operationId: 'deleteApiKey', summary: 'Delete a provider key', description: 'Delete a key (operators: only their own)', params: IdParams, response: { 200: OkEmpty, ...commonErrors } },
    },
    async (request) => {
      await service.deleteApiKey(ctx, currentUser(request), request.params.id);
      return ok({});
    },
  );
};
