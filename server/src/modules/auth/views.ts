import { Type } from 'typebox';
import { Nullable } from '../../http/schemas.js';
import { WORKSPACE_ACTIONS } from '../../policy/policy.js';

export const RoleSchema = Type.Union([Type.Literal('admin'), Type.Literal('supervisor'), Type.Literal('operator')]);

export const UserView = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  email: Type.String(),
  current_workspace_id: Nullable(Type.Integer()),
  role: RoleSchema,
  must_change_password: Type.Boolean(),
});

export const WorkspaceRef = Type.Object({ id: Type.Integer(), name: Type.String(), slug: Type.String() });

export const CurrentUserView = Type.Object({
  ...UserView.properties,
  workspace: WorkspaceRef,
  allowed_actions: Type.Array(Type.Enum(WORKSPACE_ACTIONS), {
    description: 'what the caller may do in the current workspace, from the server\'s access policy (a record\'s own allowed_actions say what may be done to it)',
  }),
});

export const LoginBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 128 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const LoginResult = Type.Object({ token: Type.String(), user: UserView });

export const ChangePasswordBody = Type.Object({
  current_password: Type.String({ minLength: 1, maxLength: 1024 }),
  new_password: Type.String({ minLength: 10, maxLength: 1024 }),
});
