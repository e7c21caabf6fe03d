import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, DateTime, ErrorEnvelope, Id, IdParams, Nullable, Ok, ok, OkEmpty, PageQuery, Paged } from '../../http/schemas.js';
import { RoleSchema } from '../auth/views.js';
import { WorkspaceView } from '../workspaces/views.js';
import * as service from './service.js';

const tags = ['invitations'];

const InvitationView = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  invitee: Type.String({ description: 'the username or email address as invited (addresses lower-cased)' }),
  invitee_kind: Type.Union([Type.Literal('username'), Type.Literal('email')]),
  role: RoleSchema,
  status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('declined'), Type.Literal('revoked'), Type.Literal('expired')], {
    description: 'pending until the invitee answers, it is revoked, or it expires after 7 days',
  }),
  invited_by: Nullable(Type.String({ description: 'username of the admin who sent (or last renewed) it' })),
  created_at: DateTime,
  expires_at: DateTime,
  responded_at: Nullable(DateTime),
});

const CreatedInvitationView = Type.Intersect([
  InvitationView,
  Type.Object({
    token: Nullable(
      Type.String({
        description:
          'email invitations only: the one-time link token, shown this once (only its hash is stored). The admin hands it to the invitee, who redeems it with POST /invitations/redeem; inviting the address again issues a new one and the old stops working. null for a username invitation.',
      }),
    ),
  }),
]);

const MyInvitationView = Type.Object({
  id: Type.Integer(),
  workspace: Type.Object({ id: Type.Integer(), name: Type.String(), slug: Type.String() }),
  role: RoleSchema,
  invited_by: Nullable(Type.String()),
  created_at: DateTime,
  expires_at: DateTime,
});

const conflicts = { ...commonErrors, 409: ErrorEnvelope };

/** Membership by consent: admins invite, the invited account accepts or declines (docs/decisions.md). */
export const invitationRoutes: ApiModule = async (app, ctx) => {
  app.post(
    '/workspaces/:id/invitations',
    {
      config: { access: { scope: 'admin' } },
      schema: {
        tags,
        operationId: 'createInvitation',
        summary: 'Invite a user',
        description:
          'Invite a username or an email address with a role; needs the admin role in that workspace. A username invitation reaches the account of that name (if any), which accepts or declines it; the answer is the same whether it exists. Email addresses are not verified, so an email invitation names no account: its answer carries a one-time link token (`token`) the admin hands over, and whoever redeems it (POST /invitations/redeem) joins. Inviting the same name or address again renews the pending invitation (and issues a new token).',
        params: IdParams,
        body: Type.Object({
          username: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
          email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
          role: RoleSchema,
        }),
        response: { 200: Ok(CreatedInvitationView), ...conflicts },
      },
    },
    async (request) => ok(await service.invite(ctx, currentUser(request), request.params.id, request.body)),
  );

  app.get(
    '/workspaces/:id/invitations',
    {
      schema: {
        tags,
        operationId: 'listWorkspaceInvitations',
        summary: 'List a workspace\'s invitations',
        description: 'Invitations of a workspace, newest first; needs the admin role in that workspace',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: Ok(Paged(InvitationView)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listWorkspaceInvitations(ctx, currentUser(request), request.params.id, request.query)),
  );

  app.delete(
    '/workspaces/:id/invitations/:invitation_id',
    {
      config: { access: { scope: 'admin' } },
      schema: {
        tags,
        operationId: 'revokeInvitation',
        summary: 'Revoke an invitation',
        description: 'Revoke a pending invitation; needs the admin role in that workspace',
        params: Type.Object({ id: Id, invitation_id: Id }),
        response: { 200: Ok(InvitationView), ...conflicts },
      },
    },
    async (request) => ok(await service.revoke(ctx, currentUser(request), request.params.id, request.params.invitation_id)),
  );

  app.get(
    '/invitations',
    {
      schema: {
        tags,
        operationId: 'listMyInvitations',
        summary: 'List my invitations',
        description: 'Pending invitations addressed to the caller',
        querystring: PageQuery,
        response: { 200: Ok(Paged(MyInvitationView)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listMine(ctx, currentUser(request), request.query)),
  );

  app.post(
    '/invitations/:id/accept',
    {
      schema: {
        tags,
        operationId: 'acceptInvitation',
        summary: 'Accept an invitation',
        description: 'Accept an invitation: join the workspace with its role (switch to it with POST /workspaces/switch)',
        params: IdParams,
        response: { 200: Ok(WorkspaceView), ...conflicts },
      },
    },
    async (request) => ok(await service.accept(ctx, currentUser(request), request.params.id)),
  );

  app.post(
    '/invitations/redeem',
    {
      schema: {
        tags,
        operationId: 'redeemInvitation',
        summary: 'Redeem an invitation link',
        description:
          "Join the workspace of an email invitation with the link token its admin handed over, with the invitation's role; the token works once. An unknown or spent token answers 404, an expired or revoked invitation 409.",
        body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: Ok(WorkspaceView), ...conflicts },
      },
    },
    async (request) => ok(await service.redeem(ctx, currentUser(request), request.body.token)),
  );

  app.post(
    '/invitations/:id/decline',
    {
      schema: { tags, operationId: 'declineInvitation', summary: 'Decline an invitation', description: 'Decline an invitation addressed to the caller: it can no longer be accepted', params: IdParams, response: { 200: OkEmpty, ...conflicts } },
    },
    async (request) => {
      await service.decline(ctx, currentUser(request), request.params.id);
      return ok({});
    },
  );
};
