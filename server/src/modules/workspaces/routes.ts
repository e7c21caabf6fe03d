import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, ErrorEnvelope, Id, IdParams, Ok, ok, OkEmpty, Paged } from '../../http/schemas.js';
import { RoleSchema } from '../auth/views.js';
import * as service from './service.js';
import { WorkspaceView } from './views.js';

const tags = ['workspaces'];
const MembershipView = Type.Object({
  workspace_id: Type.Integer(),
  user_id: Type.Integer(),
  username: Type.String(),
  role: RoleSchema,
});

export const workspaceRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/workspaces',
    { schema: { tags, operationId: 'listWorkspaces', summary: 'List my workspaces', description: 'Workspaces of the caller with the role held in each', response: { 200: Ok(Paged(WorkspaceView)), ...commonErrors } } },
    async (request) => {
      const items = await service.listMyWorkspaces(ctx, currentUser(request));
      return ok({ items, total: items.length, page: 1, page_size: Math.max(items.length, 1) });
    },
  );

  app.post(
    '/workspaces',
    {
      config: { access: { can: 'workspaces.manage' } },
      schema: {
        tags,
        operationId: 'createWorkspace',
        summary: 'Create a workspace',
        description: 'Create a workspace; the caller becomes its admin',
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 100 }),
          slug: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{1,39}$', description: 'lower-case letters, digits and dashes, 2-40' }),
        }),
        response: { 200: Ok(WorkspaceView), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => ok(await service.createWorkspace(ctx, currentUser(request), request.body.name.trim(), request.body.slug)),
  );

  app.post(
    '/workspaces/:id/members',
    {
      config: { access: { scope: 'admin' } },
      schema: {
        tags,
        operationId: 'addWorkspaceMember',
        summary: 'Add a member or change their role',
        description:
          'Add a member (or change the role of one); needs the admin role in that workspace. Only a user who already shares a workspace the caller administers can be added directly; anyone else is invited (POST /workspaces/{id}/invitations) and accepts. An unknown user and one outside those workspaces get the same 404.',
        params: IdParams,
        body: Type.Object({
          user_id: Type.Optional(Id),
          username: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
          role: RoleSchema,
        }),
        response: { 200: Ok(MembershipView), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) =>
      ok(await service.addMember(ctx, currentUser(request), request.params.id, request.body, request.body.role)),
  );

  app.delete(
    '/workspaces/:id/members/:user_id',
    {
      config: { access: { scope: 'admin' } },
      schema: {
        tags,
        operationId: 'removeWorkspaceMember',
        summary: 'Remove a member',
        description: 'Remove a member; their sessions in this workspace end at once (those in other workspaces go on)',
        params: Type.Object({ id: Id, user_id: Id }),
        response: { 200: OkEmpty, 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => {
      await service.removeMember(ctx, currentUser(request), request.params.id, request.params.user_id);
      return ok({});
    },
  );
};
