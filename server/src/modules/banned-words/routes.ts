import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, DateTime, ErrorEnvelope, IdParams, Nullable, Ok, ok, OkEmpty, PageQuery, Paged } from '../../http/schemas.js';
import * as service from './service.js';

const tags = ['banned-words'];
const Level = Type.Union([Type.Literal('auto_fix'), Type.Literal('soft_warn'), Type.Literal('hard_block')]);
const BannedWordView = Type.Object({
  id: Type.Integer(),
  word: Type.String(),
  level: Level,
  replacement: Nullable(Type.String()),
  updatable: Type.Boolean(),
  preset: Nullable(Type.String({ description: 'the built-in list the word came from (ad-law, health-claims, xhs-diversion: the legal baseline every workspace starts with; xhs-inducement), null for the team\'s own word' })),
  workspace_id: Type.Integer(),
  created_at: DateTime,
  updated_at: DateTime,
  allowed_actions: Type.Array(Type.Enum(['update', 'delete']), { description: 'what the caller may do to this word (a locked word: an admin only)' }),
});
const BannedWordBody = Type.Object({
  word: Type.String({ minLength: 1, maxLength: 100 }),
  level: Level,
  replacement: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'used by auto_fix; null or empty removes the word' }))),
  updatable: Type.Optional(Type.Boolean({ default: true, description: 'false: only an admin may change or delete the word' })),
});
const PresetView = Type.Object({
  name: Type.String(),
  title: Type.String(),
  description: Type.String(),
  word_count: Type.Integer(),
  words: Type.Array(Type.Object({ word: Type.String(), level: Level, replacement: Nullable(Type.String()) })),
});
const writers = { access: { can: 'banned_words.write' as const } };

export const bannedWordRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/banned-words',
    {
      schema: {
        tags,
        operationId: 'listBannedWords',
        summary: 'List banned words',
        description: 'Banned words of the workspace (optional text search and level filter)',
        querystring: Type.Intersect([
          PageQuery,
          Type.Object({ q: Type.Optional(Type.String({ maxLength: 100 })), level: Type.Optional(Level) }),
        ]),
        response: { 200: Ok(Paged(BannedWordView)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listBannedWords(ctx, currentUser(request), request.query)),
  );

  app.post(
    '/banned-words',
    {
      config: writers,
      schema: { tags, operationId: 'createBannedWord', summary: 'Add a banned word', description: 'Add a banned word (supervisor or admin)', body: BannedWordBody, response: { 200: Ok(BannedWordView), 409: ErrorEnvelope, ...commonErrors } },
    },
    async (request) => ok(await service.createBannedWord(ctx, currentUser(request), request.body)),
  );

  app.post(
    '/banned-words/bulk',
    {
      config: writers,
      schema: {
        tags,
        operationId: 'createBannedWords',
        summary: 'Add many banned words at once (supervisor or admin)',
        description:
          'A pasted list in one transaction. A word repeated within the list counts once; words already in the workspace are skipped and named in `skipped`; pasting the same list again changes nothing.',
        body: Type.Object({ items: Type.Array(BannedWordBody, { minItems: 1, maxItems: 1000 }) }),
        response: { 200: Ok(Type.Object({ created: Type.Integer(), skipped: Type.Array(Type.String()) })), ...commonErrors },
      },
    },
    async (request) => ok(await service.createBannedWords(ctx, currentUser(request), request.body.items)),
  );

  app.post(
    '/banned-words/bulk-delete',
    {
      config: writers,
      schema: {
        tags,
        operationId: 'deleteBannedWords',
        summary: 'Delete many banned words at once (supervisor or admin)',
        description:
          'All or none: an id that is no word of this workspace answers 404, a locked word (updatable: false) 403 for a non-admin, and then nothing is deleted. Deleted words are removed from the products that list them.',
        body: Type.Object({ ids: Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), { minItems: 1, maxItems: 500 }) }),
        response: { 200: Ok(Type.Object({ deleted: Type.Integer() })), ...commonErrors },
      },
    },
    async (request) => ok(await service.deleteBannedWords(ctx, currentUser(request), request.body.ids)),
  );

  app.get(
    '/banned-words/presets',
    { schema: { tags, operationId: 'listBannedWordPresets', summary: 'List the built-in word lists', description: 'Built-in word lists that can be imported', response: { 200: Ok(Type.Object({ items: Type.Array(PresetView) })), ...commonErrors } } },
    async () => ok({ items: service.listPresets() }),
  );

  app.post(
    '/banned-words/presets/:name/import',
    {
      config: writers,
      schema: {
        tags,
        operationId: 'importBannedWordPreset',
        summary: 'Import a built-in word list',
        description: 'Import a built-in list (idempotent: words already present stay as they are); imported words are updatable: false',
        params: Type.Object({ name: Type.String({ pattern: '^[a-z0-9-]{1,40}$' }) }),
        response: { 200: Ok(Type.Object({ preset: Type.String(), imported: Type.Integer(), skipped: Type.Integer() })), ...commonErrors },
      },
    },
    async (request) => ok(await service.importPreset(ctx, currentUser(request), request.params.name)),
  );

  app.get(
    '/banned-words/:id',
    { schema: { tags, operationId: 'getBannedWord', summary: 'Get a banned word', description: 'One banned word of the current workspace', params: IdParams, response: { 200: Ok(BannedWordView), ...commonErrors } } },
    async (request) => ok(await service.getBannedWord(ctx, currentUser(request), request.params.id)),
  );

  app.put(
    '/banned-words/:id',
    {
      config: writers,
      schema: {
        tags,
        operationId: 'updateBannedWord',
        summary: 'Change a banned word',
        description: 'Change a banned word (supervisor or admin; updatable: false words admin only)',
        params: IdParams,
        body: BannedWordBody,
        response: { 200: Ok(BannedWordView), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => ok(await service.updateBannedWord(ctx, currentUser(request), request.params.id, request.body)),
  );

  app.delete(
    '/banned-words/:id',
    {
      config: writers,
      schema: { tags, operationId: 'deleteBannedWord', summary: 'Delete a banned word', description: 'Delete a banned word (updatable: false words admin only)', params: IdParams, response: { 200: OkEmpty, ...commonErrors } },
    },
    async (request) => {
      await service.deleteBannedWord(ctx, currentUser(request), request.params.id);
      return ok({});
    },
  );
};
