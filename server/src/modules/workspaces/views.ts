import { Type } from 'typebox';
import { RoleSchema } from '../auth/views.js';

/** A workspace of the caller with the role held there. */
export const WorkspaceView = Type.Object({ id: Type.Integer(), name: Type.String(), slug: Type.String(), role: RoleSchema });
