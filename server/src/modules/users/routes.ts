import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, DateTime, ErrorEnvelope, IdParams, Nullable, Ok, ok, PageQuery, Paged } from '../../http/schemas.js';
import { RoleSchema } from '../auth/views.js';
import * as service from './service.js';

const tags = ['users'];
const UserAdminView = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  is_active: Type.Boolean(),
  must_change_password: Type.Boolean(),
  current_workspace_id: Nullable(Type.Integer()),
  created_at: DateTime,
});
/** Shared with the CLI so both create the same kind of account. */
export const USERNAME_PATTERN = '^[A-Za-z0-9_.@-]{3,64}$';
const Username = Type.String({ pattern: USERNAME_PATTERN, description: '3-64 letters, digits, _ . @ -' });
const Email = Type.String({ format: 'email', maxLength: 254 });
const Password = Type.String({ minLength: 10, maxLength: 1024 });
const admins = { access: { can: 'users.manage' as const } };

export const userRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/users',
    {
      config: admins,
      schema: { tags, operationId: 'listUsers', summary: 'List users', description: 'Users of the current workspace with their role there', querystring: PageQuery, response: { 200: Ok(Paged(UserAdminView)), ...commonErrors } },
    },
    async (request) => ok(await service.listUsers(ctx, currentUser(request), request.query)),
  );

  app.post(
    '/users',
    {
      config: admins,
      schema: {
        tags,
        operationId: 'createUser',
        summary: 'Create a user',
        description: 'Create a user in the current workspace (must change the password at first login)',
        body: Type.Object({ username: Username, email: Email, password: Password, role: RoleSchema }),
        response: { 200: Ok(UserAdminView), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => {
      const auth = currentUser(request);
      return ok(await service.createUser(ctx, { ...request.body, workspaceId: auth.workspaceId }));
    },
  );

  app.patch(
    '/users/:id',
    {
      config: admins,
      schema: {
        tags,
        operationId: 'updateUser',
        summary: 'Update a user',
        description: 'Change email, role (in the current workspace), active flag, or reset the password',
        params: IdParams,
        body: Type.Object({
          email: Type.Optional(Email),
          role: Type.Optional(RoleSchema),
          is_active: Type.Optional(Type.Boolean()),
          password: Type.Optional(Password),
        }),
        response: { 200: Ok(UserAdminView), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => ok(await service.updateWorkspaceUser(ctx, currentUser(request), request.params.id, request.body)),
  );
};
