import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, DateTime, ErrorEnvelope, Id, IdParams, Ok, ok, OkEmpty, PageQuery, Paged } from '../../http/schemas.js';
import * as service from './service.js';
import { KitView, PostStatusSchema, PostView } from './views.js';

const tags = ['posts'];
const writers = { access: { can: 'posts.write' as const } };
const Strategy = Type.Union([Type.Literal('A'), Type.Literal('B'), Type.Literal('C')]);

export const postRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/posts',
    {
      schema: {
        tags,
        operationId: 'listPosts',
        summary: 'The calendar: posts in a time window',
        description: 'Posts by scheduled time (earliest first), optionally of one account or status. `from` and `to` bound `scheduled_at` (from inclusive, to exclusive).',
        querystring: Type.Intersect([
          PageQuery,
          Type.Object({ from: Type.Optional(DateTime), to: Type.Optional(DateTime), account_id: Type.Optional(Id), status: Type.Optional(PostStatusSchema) }),
        ]),
        response: { 200: Ok(Paged(PostView)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listPosts(ctx, currentUser(request), request.query)),
  );

  app.post(
    '/posts',
    {
      config: writers,
      schema: {
        tags,
        operationId: 'createPost',
        summary: 'Plan an approved note on an account',
        description:
          'The note is `task_id` + `strategy` (the selected set of an approved task) or `fission_id` + `seq` (a note of a completed fission of an approved task); its text and images are frozen now. 409 when the note is not approved or hard-blocked, is already on a live post, the account\'s daily cap or minimum gap would break (naming the conflicting post), or the note is near-identical to a post of the last 30 days (`force: true` from a supervisor or admin schedules it with a `near_duplicate` warning).',
        body: Type.Object({
          account_id: Id,
          scheduled_at: DateTime,
          task_id: Type.Optional(Id),
          strategy: Type.Optional(Strategy),
          fission_id: Type.Optional(Id),
          seq: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
          force: Type.Optional(Type.Boolean({ description: 'schedule a near-duplicate anyway (supervisor or admin)' })),
        }),
        response: { 200: Ok(PostView), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => ok(await service.createPost(ctx, currentUser(request), request.body)),
  );

  app.get(
    '/posts/:id',
    { schema: { tags, operationId: 'getPost', summary: 'Get a post', description: 'One post with its latest metrics', params: IdParams, response: { 200: Ok(PostView), ...commonErrors } } },
    async (request) => ok(await service.getPost(ctx, currentUser(request), request.params.id)),
  );

  app.patch(
    '/posts/:id',
    {
      config: writers,
      schema: {
        tags,
        operationId: 'updatePost',
        summary: 'Move a post to another time or account',
        description: 'While `scheduled` or `due`; the account\'s cap and gap hold at the new place (409 naming the conflict). A due post moved to a later time is scheduled again.',
        params: IdParams,
        body: Type.Object({ scheduled_at: Type.Optional(DateTime), account_id: Type.Optional(Id) }, { minProperties: 1 }),
        response: { 200: Ok(PostView), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => ok(await service.updatePost(ctx, currentUser(request), request.params.id, request.body)),
  );

  app.delete(
    '/posts/:id',
    {
      config: writers,
      schema: { tags, operationId: 'cancelPost', summary: 'Cancel a post', description: 'A post not yet published is cancelled (kept, status `cancelled`); its note may be planned again.', params: IdParams, response: { 200: OkEmpty, 409: ErrorEnvelope, ...commonErrors } },
    },
    async (request) => {
      await service.cancelPost(ctx, currentUser(request), request.params.id);
      return ok({});
    },
  );

  app.get(
    '/posts/:id/kit',
    {
      schema: {
        tags,
        operationId: 'getPostKit',
        summary: 'The posting kit',
        description: 'What a person needs on a phone to post the note: title, body, tags and their `#tag` line, the images in posting order (cover first) as signed links, and the AI-content declaration steps (contract-decisions §12).',
        params: IdParams,
        response: { 200: Ok(KitView), ...commonErrors },
      },
    },
    async (request) => ok(await service.postKit(ctx, currentUser(request), request.params.id)),
  );

  app.post(
    '/posts/:id/published',
    {
      config: writers,
      schema: {
        tags,
        operationId: 'markPostPublished',
        summary: 'Mark a post published',
        description: 'With the note\'s link (a xiaohongshu.com note link or a xhslink.com short link) and optionally when it went up; from `scheduled`, `due` or `missed`. Emits `post.published`.',
        params: IdParams,
        body: Type.Object({ note_url: Type.String({ minLength: 1, maxLength: 500 }), published_at: Type.Optional(DateTime) }),
        response: { 200: Ok(PostView), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => ok(await service.markPublished(ctx, currentUser(request), request.params.id, request.body)),
  );
};
