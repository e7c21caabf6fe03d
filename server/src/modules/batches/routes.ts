import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { multipartBody } from '../../http/openapi.js';
import { ERROR_REASONS, type ErrorReason } from '../../http/reasons.js';
import { commonErrors, DateTime, ErrorEnvelope, FailureKey, FailureParams, Id, IdParams, Nullable, Ok, ok, PageQuery, Paged, ReasonParams } from '../../http/schemas.js';
import { readUpload, uploadScope } from '../../http/upload.js';
import * as service from './service.js';
import { ITEM_LIMITS } from './plan.js';

const tags = ['batches'];
const writers = { access: { can: 'tasks.write' as const } };

const count = (what: keyof typeof ITEM_LIMITS, description: string) => Type.Integer({ minimum: ITEM_LIMITS[what].min, maximum: ITEM_LIMITS[what].max, description });
const ItemInput = Type.Object({
  product_id: Id,
  theme: Type.String({ minLength: 1, maxLength: 500 }),
  text_count: count('text_count', 'texts per strategy set, as a task'),
  image_count: count('image_count', 'images per strategy set, as a task'),
  fission_count: Type.Optional(count('fission_count', 'notes of a fission started from the task once its notes are written (0: none)')),
  account_id: Type.Optional(Id),
  publish_at: Type.Optional(DateTime),
});
const Matrix = Type.Object({
  product_ids: Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true }),
  themes: Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { minItems: 1, maxItems: 50 }),
  tasks_each: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'tasks per product and theme (default 1)' })),
  text_count: count('text_count', 'texts per strategy set'),
  image_count: count('image_count', 'images per strategy set'),
  fission_count: Type.Optional(count('fission_count', 'fission notes per task (default 0)')),
  account_ids: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 50, uniqueItems: true, description: 'accounts the notes are meant for, in turn' })),
  start_date: Type.Optional(Type.String({ format: 'date', description: 'first day of posting: with accounts, each task gets a posting slot (day × time × account, in the account’s zone)' })),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 31, description: 'days of posting from start_date (default 7)' })),
  post_times: Type.Optional(Type.Array(Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }), { minItems: 1, maxItems: 6, description: 'HH:MM in the account’s zone (default 12:00)' })),
});

const State = Type.Enum(['waiting', 'running', 'done', 'failed', 'cancelled'], {
  description: 'waiting: queued behind the provider’s pace (or the batch’s turn); running: generating; done: its notes are written; failed; cancelled: the batch was cancelled before it started',
});
const Counts = Type.Object({ waiting: Type.Integer(), running: Type.Integer(), done: Type.Integer(), failed: Type.Integer(), cancelled: Type.Integer() });
const StoredReason = Type.Object({ reason: Type.String({ description: 'a reason key (error or failure catalogue)' }), params: ReasonParams });

const BatchSummary = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  status: Type.Enum(['running', 'finished', 'cancelled']),
  total: Type.Integer(),
  counts: Counts,
  rate_per_minute: Nullable(Type.Number({ description: 'tasks settled per minute since the batch started, as measured' })),
  eta: Nullable(DateTime),
  created_at: DateTime,
  created_by: Type.Integer(),
  finished_at: Nullable(DateTime),
  allowed_actions: Type.Array(Type.Enum(['cancel'])),
});
const BatchItemView = Type.Object({
  seq: Type.Integer(),
  task_id: Type.Integer(),
  product_id: Type.Integer(),
  product_name: Type.String(),
  theme: Type.String(),
  text_count: Type.Integer(),
  image_count: Type.Integer(),
  account_id: Nullable(Type.Integer()),
  account_name: Nullable(Type.String()),
  publish_at: Nullable(DateTime),
  fission_count: Type.Integer(),
  fission_id: Nullable(Type.Integer()),
  fission_status: Nullable(Type.String()),
  post_id: Nullable(Type.Integer()),
  state: State,
  task_status: Type.String(),
  failure: Nullable(Type.Object({ reason: FailureKey, params: FailureParams })),
  post_failure: Nullable(StoredReason),
});
const Pace = Type.Union([
  Type.Object({
    rpm: Type.Integer({ description: 'the connection’s budget, requests a minute' }),
    factor: Type.Number({ description: 'the share of the budget used now: below 1 after the provider answered 429, rising again with each success' }),
    blocked_until: Nullable(DateTime),
  }),
  Type.Null(),
], { description: 'the pacing of the connection the batch writes with, where this process sees it (with Redis, or in npm start’s one process); null otherwise' });
const BatchDetail = Type.Object({ ...BatchSummary.properties, pace: Pace, items: Type.Array(BatchItemView) });

const PlanError = Type.Object({
  row: Type.Integer({ description: 'the row number as the spreadsheet shows it' }),
  field: Type.String(),
  reason: Type.Enum(Object.keys(ERROR_REASONS).filter((r) => r.startsWith('plan.')) as ErrorReason[]),
  params: ReasonParams,
});

export const batchRoutes: ApiModule = async (app, ctx) => {
  app.post(
    '/batches',
    {
      config: writers,
      schema: {
        tags,
        operationId: 'createBatch',
        summary: 'Create many tasks at once',
        description:
          'Either `items` (one task each) or `matrix` (products × themes × tasks_each, spread over accounts and days). Every item is checked as a task would be; one refused item refuses the request (400 `batch.item_invalid` naming it), so a batch is stored whole or not at all. Tasks run in the bulk lane, a few per batch at a time, paced to the connection’s budget; a task that fails does not stop the others. A planned fission starts once a task’s notes are written; a planned post is put on the calendar once its note is approved. A repeat with the same Idempotency-Key within 24 h answers the first batch.',
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7e]+$', description: 'a repeat within 24 h returns the first batch' })) }),
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 60 }),
          items: Type.Optional(Type.Array(ItemInput, { minItems: 1, maxItems: service.MAX_BATCH_ITEMS })),
          matrix: Type.Optional(Matrix),
        }),
        response: { 200: Ok(BatchDetail), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => ok(await service.createBatch(ctx, currentUser(request), request.body, request.headers['idempotency-key'])),
  );

  app.get(
    '/batches',
    {
      schema: {
        tags,
        operationId: 'listBatches',
        summary: 'Batches of the workspace, newest first',
        description: 'Each with its counts by state, the measured rate and the predicted finish (items: GET /batches/{id}).',
        querystring: PageQuery,
        response: { 200: Ok(Paged(BatchSummary)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listBatches(ctx, currentUser(request), request.query)),
  );

  app.get(
    '/batches/:id',
    {
      schema: {
        tags,
        operationId: 'getBatch',
        summary: 'A batch with its progress and items',
        description: 'Counts by state, the measured rate and the finish it predicts, and every item with its task, fission and post.',
        params: IdParams,
        response: { 200: Ok(BatchDetail), ...commonErrors },
      },
    },
    async (request) => ok(await service.getBatch(ctx, currentUser(request), request.params.id)),
  );

  app.post(
    '/batches/:id/cancel',
    {
      config: writers,
      schema: {
        tags,
        operationId: 'cancelBatch',
        summary: 'Cancel a running batch',
        description: 'Tasks not started yet fail as cancelled; tasks already generating finish (their calls are under way); no planned fission or post follows. 409 when the batch is not running.',
        params: IdParams,
        response: { 200: Ok(BatchDetail), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => ok(await service.cancelBatch(ctx, currentUser(request), request.params.id)),
  );

  await uploadScope(app, (scope) => {
    scope.post(
      '/batches/plan',
      {
        config: {
          ...writers,
          swaggerTransform: multipartBody(Type.Object({ file: Type.String({ format: 'binary', description: 'a plan, CSV (UTF-8 or GB18030) or XLSX, at most 10 MB: one task per row, columns 产品, 主题, 文案数, 图片数, 裂变数, 账号, 发布时间' }) })),
        },
        schema: {
          tags,
          operationId: 'readBatchPlan',
          summary: 'Read a batch plan file',
          description:
            'Reads the file into items for `POST /batches` without creating anything. Products and accounts are named or numbered; empty counts take their defaults (3 texts, 3 images, no fission); a publishing time (YYYY-MM-DD HH:MM) is in the account’s zone and needs an account. Every row that cannot be an item is listed with its reason, the others are answered as items.',
          consumes: ['multipart/form-data'],
          response: { 200: Ok(Type.Object({ items: Type.Array(ItemInput), errors: Type.Array(PlanError) })), 413: ErrorEnvelope, ...commonErrors },
        },
      },
      async (request) => {
        const upload = await readUpload(request, 'file');
        if (!upload.file) throw fail('upload.file_missing', { field: 'file' });
        return ok(await service.readBatchPlan(ctx, currentUser(request), upload.file));
      },
    );
  });
};
