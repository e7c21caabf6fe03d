import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, DateTime, Id, IdParams, Nullable, Ok, ok, OkEmpty } from '../../http/schemas.js';
import { absentBodyAsEmpty } from '../../http/validation.js';
import * as service from './service.js';

const tags = ['review'];
const writers = { access: { can: 'tasks.write' as const } };
const CommentParams = Type.Object({ id: Id, comment_id: Id });

const Anchor = Type.Union([
  Type.Object({ kind: Type.Literal('task') }),
  Type.Object({ kind: Type.Literal('text'), candidate_id: Id, line: Type.Integer({ minimum: 1, maximum: 1000, description: '1-based line of the text\'s body' }) }),
  Type.Object({ kind: Type.Literal('image'), candidate_id: Id }),
]);

const CommentView = Type.Object({
  id: Type.Integer(),
  task_id: Type.Integer(),
  author_id: Type.Integer(),
  author_name: Type.String(),
  anchor: Anchor,
  quote: Nullable(Type.String({ description: 'the commented line as it read when the comment was made' })),
  body: Type.String(),
  resolved: Type.Boolean(),
  resolved_at: Nullable(DateTime),
  resolved_by: Nullable(Type.Integer()),
  created_at: DateTime,
});

export const commentRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/tasks/:id/comments',
    { schema: { tags, operationId: 'listTaskComments', summary: 'Comments on a task', description: 'Review comments, oldest first, open and resolved', params: IdParams, response: { 200: Ok(Type.Object({ items: Type.Array(CommentView) })), ...commonErrors } } },
    async (request) => ok(await service.listComments(ctx, currentUser(request), request.params.id)),
  );

  app.post(
    '/tasks/:id/comments',
    {
      config: writers,
      schema: {
        tags,
        operationId: 'addTaskComment',
        summary: 'Comment on a task, a line of a text, or an image',
        description: 'A remark for the operator or the reviewer, anchored to a line of a text candidate\'s body (its words are kept), to an image candidate, or to the task (no anchor).',
        params: IdParams,
        body: Type.Object({ body: Type.String({ minLength: 1, maxLength: 500 }), anchor: Type.Optional(Anchor) }),
        response: { 200: Ok(CommentView), ...commonErrors },
      },
    },
    async (request) => ok(await service.addComment(ctx, currentUser(request), request.params.id, request.body)),
  );

  app.post(
    '/tasks/:id/comments/:comment_id/resolve',
    {
      config: writers,
      preValidation: absentBodyAsEmpty,
      schema: {
        tags,
        operationId: 'resolveTaskComment',
        summary: 'Mark a comment addressed (or open it again)',
        description: 'resolved: true when the remark was addressed (default), false to open it again',
        params: CommentParams,
        body: Type.Object({ resolved: Type.Optional(Type.Boolean({ default: true })) }),
        response: { 200: Ok(CommentView), ...commonErrors },
      },
    },
    async (request) => ok(await service.resolveComment(ctx, currentUser(request), request.params.id, request.params.comment_id, request.body.resolved ?? true)),
  );

  app.delete(
    '/tasks/:id/comments/:comment_id',
    {
      config: writers,
      schema: { tags, operationId: 'deleteTaskComment', summary: 'Withdraw a comment', description: 'The author, a supervisor or an admin', params: CommentParams, response: { 200: OkEmpty, ...commonErrors } },
    },
    async (request) => {
      await service.deleteComment(ctx, currentUser(request), request.params.id, request.params.comment_id);
      return ok({});
    },
  );
};
