import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, DateTime, ErrorEnvelope, IdParams, Nullable, Ok, ok, PageQuery, Paged } from '../../http/schemas.js';
import { ImageCandidateSchema, TextCandidateSchema } from '../tasks/views.js';
import { StrategySchema, TaskProvidersSchema, TaskStatusSchema } from '../tasks/views.js';
import { absentBodyAsEmpty } from '../../http/validation.js';
import * as service from './service.js';

const tags = ['review'];
const errors409 = { ...commonErrors, 409: ErrorEnvelope };

const ReviewState = Type.Object({
  task_id: Type.Integer(),
  status: TaskStatusSchema,
  review_status: Nullable(Type.String()),
  reject_reason: Nullable(Type.String()),
  reviewed_at: Nullable(DateTime),
  submitted_at: Nullable(DateTime),
});

const ReviewQueueItem = Type.Object({
  task_id: Type.Integer(),
  product_name: Type.String(),
  theme: Type.String(),
  submitted_at: DateTime,
  operator_name: Type.String(),
  providers: TaskProvidersSchema,
  submit_note: Nullable(Type.String({ description: 'what the operator said when submitting (required below the pass line)' })),
  previous_rejection: Nullable(
    Type.Object(
      {
        reason: Nullable(Type.String()),
        final: Type.Boolean(),
        username: Type.String({ description: 'who rejected' }),
        created_at: DateTime,
        texts: Type.Array(
          Type.Object({ strategy: Nullable(Type.String()), title: Type.String(), content: Type.String(), tags: Type.Array(Type.String()), cover_title: Type.String(), score_total: Type.Number() }),
          { description: 'the selected texts it rejected: compare with selected_sets for what changed since' },
        ),
      },
      { description: 'the latest rejection of this task, null when it was never rejected' },
    ),
  ),
  open_comments: Type.Integer({ description: 'comments not resolved yet' }),
  selected_text: Nullable(TextCandidateSchema),
  selected_image: Nullable(ImageCandidateSchema),
  selected_sets: Type.Array(
    Type.Object({
      strategy: StrategySchema,
      selected_text: Nullable(TextCandidateSchema),
      selected_images: Type.Array(ImageCandidateSchema),
    }),
  ),
});

const ReviewRecord = Type.Object({
  id: Type.Integer(),
  action: Type.Enum(['submit', 'approve', 'reject']),
  user_id: Type.Integer(),
  username: Type.String(),
  reason: Nullable(Type.String()),
  final: Type.Boolean(),
  created_at: DateTime,
});

const TaskIdParams = Type.Object({ task_id: IdParams.properties.id });
const supervisors = { access: { can: 'review.decide' as const } };

export const reviewRoutes: ApiModule = async (app, ctx) => {
  app.post(
    '/tasks/:id/submit-review',
    {
      config: { access: { can: 'tasks.write' } },
      preValidation: absentBodyAsEmpty,
      schema: {
        tags,
        operationId: 'submitForReview',
        summary: 'Submit a task for review',
        description:
          'pending_selection → pending_review (needs at least one selected text), with an optional `note` for the reviewer, shown in the queue (the console asks for one when a selected text scores below the pass line of 80).',
        params: IdParams,
        body: Type.Object({ note: Type.Optional(Type.String({ maxLength: 300, description: 'for the reviewer, e.g. why a text below the pass line should be reviewed anyway' })) }),
        response: { 200: Ok(ReviewState), ...errors409 },
      },
    },
    async (request) => ok(await service.submitForReview(ctx, currentUser(request), request.params.id, request.body.note)),
  );

  app.get(
    '/review/queue',
    {
      config: supervisors,
      schema: {
        tags,
        operationId: 'listReviewQueue',
        summary: 'List tasks waiting for review',
        description: 'Tasks waiting for review, oldest submission first (supervisors and admins)',
        querystring: PageQuery,
        response: { 200: Ok(Paged(ReviewQueueItem)), ...commonErrors },
      },
    },
    async (request) => ok(await service.reviewQueue(ctx, currentUser(request), request.query)),
  );

  app.post(
    '/review/:task_id/approve',
    {
      config: supervisors,
      schema: { tags, operationId: 'approveTask', summary: 'Approve a task', description: 'pending_review → approved (+5)', params: TaskIdParams, response: { 200: Ok(ReviewState), ...errors409 } },
    },
    async (request) => ok(await service.approve(ctx, currentUser(request), request.params.task_id)),
  );

  app.post(
    '/review/:task_id/reject',
    {
      config: supervisors,
      schema: {
        tags,
        operationId: 'rejectTask',
        summary: 'Reject a task',
        description: 'pending_review → pending_selection (−3, reason stored verbatim); with final: true → rejected',
        params: TaskIdParams,
        body: Type.Object({
          reason: Type.String({ minLength: 1, maxLength: 2000 }),
          final: Type.Optional(Type.Boolean({ description: 'end the task in status rejected (no further submission)' })),
        }),
        response: { 200: Ok(ReviewState), ...errors409 },
      },
    },
    async (request) => ok(await service.reject(ctx, currentUser(request), request.params.task_id, request.body.reason, request.body.final ?? false)),
  );

  app.get(
    '/tasks/:id/reviews',
    {
      schema: {
        tags,
        operationId: 'listTaskReviews',
        summary: 'List the review steps of a task',
        description: 'Every review step of the task (submit, approve, reject: who, when, reason), oldest first',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: Ok(Paged(ReviewRecord)), ...commonErrors },
      },
    },
    async (request) => ok(await service.reviewHistory(ctx, currentUser(request), request.params.id, request.query)),
  );
};
