import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { readUpload, uploadScope } from '../../http/upload.js';
import { multipartBody } from '../../http/openapi.js';
import { commonErrors, DateTime, ErrorEnvelope, Id, IdParams, Nullable, Ok, ok } from '../../http/schemas.js';
import { MetricsSnapshotView } from '../posts/views.js';
import * as service from './service.js';

const tags = ['metrics'];
const writers = { access: { can: 'posts.write' as const } };
const Count = Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 2_000_000_000 })));

const Group = Type.Object({ key: Type.String(), label: Type.String(), posts: Type.Integer(), median_engagement: Nullable(Type.Number()), views: Type.Integer() });

const Overview = Type.Object({
  posts: Type.Object({ scheduled: Type.Integer({ description: 'scheduled or due' }), published: Type.Integer(), missed: Type.Integer() }),
  engagement: Type.Object({
    median: Nullable(Type.Number({ description: 'median engagement of the published posts with results: (likes + collects + comments + shares) / views' })),
    by_strategy: Type.Array(Group),
    by_angle: Type.Array(Group),
    by_product: Type.Array(Group),
    by_account: Type.Array(Group),
    by_week: Type.Array(
      Type.Object({
        week: Type.String({ description: 'the Monday of the week of publishing (YYYY-MM-DD, Beijing time)' }),
        posts: Type.Integer(),
        median_engagement: Nullable(Type.Number()),
        by_strategy: Type.Record(Type.String(), Nullable(Type.Number()), { description: 'median engagement per strategy that week' }),
      }),
      { description: 'engagement over time, oldest week first' },
    ),
  }),
  production: Type.Object({
    tasks: Type.Integer({ description: 'tasks created in the window' }),
    approved: Type.Integer(),
    approval_rate: Nullable(Type.Number({ description: 'approved ÷ submitted for review' })),
    median_hours_to_approve: Nullable(Type.Number({ description: 'from submission to approval' })),
  }),
  cost: Type.Object({
    calls: Type.Integer({ description: 'paid provider calls in the window (the ledger)' }),
    input_tokens: Nullable(Type.Integer({ description: 'null: the ledger does not record token counts yet' })),
    output_tokens: Nullable(Type.Integer()),
    images: Type.Integer({ description: 'calls that made an image' }),
    per_approved_note: Nullable(Type.Object({ calls: Type.Number(), images: Type.Number() })),
  }),
});

const UnmatchedReason = Type.Union(
  [Type.Literal('no_note'), Type.Literal('not_found'), Type.Literal('ambiguous'), Type.Literal('invalid_number'), Type.Literal('no_counts')],
  { description: 'no_note: the row names no note; not_found: no published post has its link, id, or title on its day; ambiguous: several do; invalid_number: a count is not a whole number; no_counts: no count at all' },
);

export const metricsRoutes: ApiModule = async (app, ctx) => {
  app.post(
    '/posts/:id/metrics',
    {
      config: writers,
      schema: {
        tags,
        operationId: 'recordPostMetrics',
        summary: 'Record a published post\'s results',
        description: 'A snapshot of the counts at `captured_at` (now unless given); a missing count is unknown. A second snapshot for the same moment corrects the first. The post\'s performance signal follows its latest snapshot (contract-decisions §11).',
        params: IdParams,
        body: Type.Object({ captured_at: Type.Optional(DateTime), views: Count, likes: Count, collects: Count, comments: Count, shares: Count, follows: Count }),
        response: { 200: Ok(MetricsSnapshotView), 409: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => ok(await service.recordSnapshot(ctx, currentUser(request), request.params.id, request.body)),
  );

  await uploadScope(app, (scope) => {
    scope.post(
      '/metrics/import',
      {
        config: {
          ...writers,
          swaggerTransform: multipartBody(Type.Object({ file: Type.String({ format: 'binary', description: 'the creator centre\'s note-data export, CSV (UTF-8 or GB18030) or XLSX, at most 10 MB' }) })),
        },
        schema: {
          tags,
          operationId: 'importMetrics',
          summary: 'Import the creator centre\'s note data',
          description:
            'Rows are matched to published posts by note link or id, else by exact title and publishing day; each matched row becomes a snapshot unless the post already shows the same counts (importing a file twice changes nothing). Every row not matched is listed with its reason. The whole file is imported in one transaction.',
          consumes: ['multipart/form-data'],
          response: {
            200: Ok(
              Type.Object({
                rows: Type.Integer({ description: 'data rows read' }),
                matched: Type.Integer(),
                created: Type.Integer({ description: 'new snapshots' }),
                unmatched: Type.Array(Type.Object({ row: Type.Integer({ description: 'the row number in the file' }), reason: UnmatchedReason, title: Nullable(Type.String()) })),
              }),
            ),
            413: ErrorEnvelope,
            ...commonErrors,
          },
        },
      },
      async (request) => {
        const upload = await readUpload(request, 'file');
        if (!upload.file) throw fail('upload.file_missing', { field: 'file' });
        return ok(await service.importMetrics(ctx, currentUser(request), upload.file));
      },
    );
  });

  app.get(
    '/analytics/overview',
    {
      schema: {
        tags,
        operationId: 'getAnalyticsOverview',
        summary: 'What worked: posts, engagement, production and cost',
        description:
          'contract-decisions §11. Posts are counted by scheduled time in the window, engagement over the published posts of the window (each by its latest snapshot), production over the tasks created in it, cost over the paid calls made in it (the whole workspace: calls are not filtered by product or account).',
        querystring: Type.Object({ from: Type.Optional(DateTime), to: Type.Optional(DateTime), product_id: Type.Optional(Id), account_id: Type.Optional(Id) }),
        response: { 200: Ok(Overview), ...commonErrors },
      },
    },
    async (request) => ok(await service.analyticsOverview(ctx, currentUser(request), request.query)),
  );
};
