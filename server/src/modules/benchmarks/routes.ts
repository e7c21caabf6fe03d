import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { badRequest } from '../../http/errors.js';
import { commonErrors, DateTime, ErrorEnvelope, IdParams, Nullable, Ok, ok, OkEmpty, PageQuery, Paged } from '../../http/schemas.js';
import { BinaryFile } from '../../http/binary.js';
import { readUpload, uploadScope } from '../../http/upload.js';
import { analyzeBenchmark } from './analysis.js';
import * as service from './service.js';

const tags = ['benchmarks'];
const BenchmarkView = Type.Object({
  id: Type.Integer(),
  product_id: Type.Integer(),
  screenshot_url: Nullable(Type.String({ description: 'legacy link, or a signed link to the uploaded screenshot' })),
  has_uploaded_screenshot: Type.Boolean(),
  highlights: Type.String(),
  link_url: Nullable(Type.String()),
  features: Nullable(Type.Object({}, { additionalProperties: true, description: 'the eight analysis dimensions' })),
  analyze_status: Type.Union([Type.Literal('pending'), Type.Literal('analyzing'), Type.Literal('done'), Type.Literal('failed')]),
  analysis_source: Nullable(Type.String({ description: 'vision, text or fallback' })),
  analysis_warning: Nullable(Type.String({ description: 'why the analysis is partial or failed, in Chinese; the text of analysis_warning_codes' })),
  analysis_warning_codes: Type.Array(Type.String(), {
    description: 'the same reasons as codes from a fixed set (link_unreachable, link_timeout, screenshot_too_large, provider_timeout, fallback_used, …; docs/decisions.md)',
  }),
  created_at: DateTime,
  updated_at: DateTime,
});
const Url = Type.String({ maxLength: 2048, description: 'http or https' });
const HIGHLIGHTS_MAX = 10_000;

export const benchmarkRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/products/:id/benchmarks',
    {
      schema: { tags, summary: 'Benchmark notes of a product', params: IdParams, querystring: PageQuery, response: { 200: Ok(Paged(BenchmarkView)), ...commonErrors } },
    },
    async (request) => ok(await service.listBenchmarks(ctx, currentUser(request), request.params.id, request.query)),
  );

  app.post(
    '/products/:id/benchmarks',
    {
      schema: {
        tags,
        summary: 'Add a benchmark note by link and highlights (nothing is uploaded)',
        params: IdParams,
        body: Type.Object({
          screenshot_url: Type.Optional(Nullable(Url)),
          highlights: Type.Optional(Type.String({ maxLength: HIGHLIGHTS_MAX })),
          link_url: Type.Optional(Nullable(Url)),
        }),
        response: { 200: Ok(BenchmarkView), ...commonErrors },
      },
    },
    async (request) => ok(await service.createBenchmark(ctx, currentUser(request), request.params.id, request.body)),
  );

  await uploadScope(app, (scope) => {
    scope.post(
      '/products/:id/benchmarks/upload',
      {
        schema: {
          tags,
          summary: 'Add a benchmark note with a screenshot: multipart `screenshot` (JPEG/PNG/WebP by content, ≤ 10 MB), `highlights`, `link_url`',
          consumes: ['multipart/form-data'],
          params: IdParams,
          response: { 200: Ok(BenchmarkView), 413: ErrorEnvelope, 415: ErrorEnvelope, ...commonErrors },
        },
      },
      async (request) => {
        const auth = currentUser(request);
        const upload = await readUpload(request, 'screenshot');
        if (!upload.file) throw badRequest('multipart field "screenshot" (the file) is required');
        const { highlights, link_url } = upload.fields;
        if (highlights && highlights.length > HIGHLIGHTS_MAX) throw badRequest(`highlights must be at most ${HIGHLIGHTS_MAX} characters`);
        if (link_url && link_url.length > 2048) throw badRequest('link_url must be at most 2048 characters');
        return ok(await service.createBenchmark(ctx, auth, request.params.id, { highlights, link_url }, upload.file));
      },
    );
  });

  app.get(
    '/benchmarks/export.csv',
    {
      schema: {
        tags,
        summary: 'Benchmarks as CSV (UTF-8 with byte-order mark), optionally of one product',
        produces: ['text/csv'],
        querystring: Type.Object({ product_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })) }),
        response: { 200: BinaryFile, ...commonErrors },
      },
    },
    async (request, reply) => {
      const csv = await service.benchmarksCsv(ctx, currentUser(request), request.query.product_id);
      const date = ctx.clock.now().toISOString().slice(0, 10);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="benchmarks-${date}.csv"`)
        .send(csv);
    },
  );

  app.get(
    '/benchmarks/:id',
    { schema: { tags, summary: 'One benchmark note', params: IdParams, response: { 200: Ok(BenchmarkView), ...commonErrors } } },
    async (request) => ok(await service.getBenchmark(ctx, currentUser(request), request.params.id)),
  );

  app.delete(
    '/benchmarks/:id',
    { schema: { tags, summary: 'Delete a benchmark note', params: IdParams, response: { 200: OkEmpty, ...commonErrors } } },
    async (request) => {
      await service.deleteBenchmark(ctx, currentUser(request), request.params.id);
      return ok({});
    },
  );

  app.post(
    '/benchmarks/:id/analyze',
    {
      schema: {
        tags,
        summary: 'Analyse the note now (vision model with the screenshot; text model otherwise); falls back to the highlights on provider failure',
        params: IdParams,
        response: {
          200: Type.Object({ code: Type.Literal(0), message: Type.String(), data: BenchmarkView }),
          409: ErrorEnvelope,
          422: ErrorEnvelope,
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const data = await analyzeBenchmark(ctx, currentUser(request), request.params.id);
      // The contract shows `message` next to `data` for this endpoint: say which result was written.
      const message =
        data.analyze_status === 'failed' ? 'analysis failed' : data.analysis_source === 'fallback' ? 'fallback analysis written' : 'analysis done';
      return { code: 0 as const, message, data };
    },
  );
};
