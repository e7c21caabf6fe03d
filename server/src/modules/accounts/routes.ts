import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, IdParams, Nullable, Ok, ok, PageQuery, Paged } from '../../http/schemas.js';
import * as service from './service.js';
import { AccountView } from './views.js';

const tags = ['accounts'];
const managers = { access: { can: 'accounts.manage' as const } };
const fields = {
  name: Type.String({ minLength: 1, maxLength: 40 }),
  profile_url: Type.Optional(Nullable(Type.String({ maxLength: 300, description: 'a xiaohongshu.com profile link' }))),
  persona: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'positioning and voice, given to generation for notes meant for this account' }))),
  daily_cap: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 2 })),
  min_gap_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1440, default: 180 })),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, default: 'Asia/Shanghai' })),
};

export const accountRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/accounts',
    {
      schema: {
        tags,
        operationId: 'listAccounts',
        summary: 'List the team\'s Xiaohongshu accounts',
        description: 'Active accounts first. The service never logs into an account: it plans posts on it and hands them to a person (contract-decisions §11).',
        querystring: Type.Intersect([PageQuery, Type.Object({ active: Type.Optional(Type.Boolean()) })]),
        response: { 200: Ok(Paged(AccountView)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listAccounts(ctx, currentUser(request), request.query)),
  );

  app.post(
    '/accounts',
    {
      config: managers,
      schema: { tags, operationId: 'createAccount', summary: 'Add an account (supervisor or admin)', description: 'An account of the team with its persona, daily cap, minimum gap between posts and time zone.', body: Type.Object(fields), response: { 200: Ok(AccountView), ...commonErrors } },
    },
    async (request) => ok(await service.createAccount(ctx, currentUser(request), request.body)),
  );

  app.get(
    '/accounts/:id',
    { schema: { tags, operationId: 'getAccount', summary: 'Get an account', description: 'One account of the workspace', params: IdParams, response: { 200: Ok(AccountView), ...commonErrors } } },
    async (request) => ok(await service.getAccount(ctx, currentUser(request), request.params.id)),
  );

  app.patch(
    '/accounts/:id',
    {
      config: managers,
      schema: {
        tags,
        operationId: 'updateAccount',
        summary: 'Change an account (supervisor or admin)',
        description: 'Any field of the account, and `active`. A changed cap or gap applies to posts planned from now on; posts already planned stay.',
        params: IdParams,
        // No defaults here: a field left out of a change stays as it is.
        body: Type.Object({
          name: Type.Optional(fields.name),
          profile_url: fields.profile_url,
          persona: fields.persona,
          daily_cap: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
          min_gap_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1440 })),
          timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          active: Type.Optional(Type.Boolean()),
        }),
        response: { 200: Ok(AccountView), ...commonErrors },
      },
    },
    async (request) => ok(await service.updateAccount(ctx, currentUser(request), request.params.id, request.body)),
  );

  app.delete(
    '/accounts/:id',
    {
      config: managers,
      schema: {
        tags,
        operationId: 'deleteAccount',
        summary: 'Remove an account (supervisor or admin)',
        description: 'An account without posts is deleted; one with posts is deactivated instead, keeping its posts and their results.',
        params: IdParams,
        response: { 200: Ok(Type.Object({ deleted: Type.Boolean(), deactivated: Type.Boolean() })), ...commonErrors },
      },
    },
    async (request) => ok(await service.deleteAccount(ctx, currentUser(request), request.params.id)),
  );
};
