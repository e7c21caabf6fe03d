import { Type } from 'typebox';
import { fail } from '../../http/errors.js';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, ErrorEnvelope, Ok, ok } from '../../http/schemas.js';
import { ChangePasswordBody, CurrentUserView, LoginBody, LoginResult } from './views.js';
import * as auth from './service.js';

const tags = ['auth'];

export const authRoutes: ApiModule = async (app, ctx) => {
  app.post(
    '/auth/login',
    {
      config: { access: { auth: 'public' } },
      schema: {
        tags,
        security: [],
        operationId: 'login',
        summary: 'Log in',
        description: 'Log in with username and password',
        body: LoginBody,
        response: { 200: Ok(LoginResult), 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 429: ErrorEnvelope },
      },
    },
    async (request, reply) => {
      // A client that gives up leaves the line of password checks (ctx.logins).
      const gone = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) gone.abort();
      });
      const result = await auth.login(ctx, request.body.username, request.body.password, { client: request.ip, signal: gone.signal }).catch((err: unknown) => {
        // Nobody is left to answer: not an error of the service.
        if (gone.signal.aborted) throw fail('request.closed');
        throw err;
      });
      return ok(result);
    },
  );

  app.post(
    '/auth/change-password',
    {
      config: { access: { auth: 'token' } },
      schema: {
        tags,
        operationId: 'changePassword',
        summary: 'Change the password',
        description: 'Change the password (required first when must_change_password is true); returns a fresh token',
        body: ChangePasswordBody,
        response: { 200: Ok(LoginResult), ...commonErrors },
      },
    },
    async (request) =>
      ok(await auth.changePassword(ctx, currentUser(request), request.body.current_password, request.body.new_password)),
  );

  app.get(
    '/auth/me',
    {
      config: { access: { auth: 'token' } },
      schema: { tags, operationId: 'getCurrentUser', summary: 'Get the current user', description: 'The current user and workspace', response: { 200: Ok(CurrentUserView), ...commonErrors } },
    },
    async (request) => ok(await auth.currentUserView(ctx, currentUser(request))),
  );

  app.post(
    '/workspaces/switch',
    {
      schema: {
        tags: ['workspaces'],
        operationId: 'switchWorkspace',
        summary: 'Switch the current workspace',
        description: 'Switch the current workspace (membership checked); returns a new token',
        body: Type.Object({ workspace_id: Type.Integer({ minimum: 1 }) }),
        response: {
          200: Ok(Type.Object({ current_workspace_id: Type.Integer(), role: Type.String(), token: Type.String() })),
          ...commonErrors,
        },
      },
    },
    async (request) => ok(await auth.switchWorkspace(ctx, currentUser(request), request.body.workspace_id)),
  );
};
