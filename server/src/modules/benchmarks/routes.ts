import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { commonErrors, ErrorEnvelope, IdParams, Nullable, Ok, ok, OkEmpty, PageQuery, Paged } from '../../http/schemas.js';
import { multipartBody } from '../../http/openapi.js';
import { readUpload, uploadScope } from '../../http/upload.js';
import { analyzeBenchmark } from './analysis.js';
import * as service from './service.js';
import { BenchmarkView } from './views.js';

const tags = ['benchmarks'];
const Url = Type.String({ maxLength: 2048, description: 'http or https' });
const HIGHLIGHTS_MAX = 10_000;
const SHARE_TEXT_MAX = 5_000;
const ShareText = Type.String({
  maxLength: SHARE_TEXT_MAX,
  description: 'a pasted share text (the Xiaohongshu app shares "title … http://xhslink.com/… 复制本条信息…"): its link becomes link_url when link_url is absent, its title the highlights when they are blank; 400 when it holds no http(s) link',
});

export const benchmarkRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/products/:id/benchmarks',
    {
      schema: { tags, operationId: 'listBenchmarks', summary: 'List the benchmark notes of a product', description: 'Benchmark notes of a product, newest first', params: IdParams, querystring: PageQuery, response: { 200: Ok(Paged(BenchmarkView)), ...commonErrors } },
    },
    async (request) => ok(await service.listBenchmarks(ctx, currentUser(request), request.params.id, request.query)),
  );

  app.post(
    '/products/:id/benchmarks',
    {
      config: { access: { can: 'products.write' } },
      schema: {
        tags,
        operationId: 'createBenchmark',
        summary: 'Add a benchmark note',
        description: 'Add a benchmark note by link and highlights (nothing is uploaded). External links go to link_url; a pasted share text may stand for the link (share_text).',
        params: IdParams,
        body: Type.Object({
          screenshot_url: Type.Optional(Nullable(Url)),
          highlights: Type.Optional(Type.String({ maxLength: HIGHLIGHTS_MAX })),
          link_url: Type.Optional(Nullable(Url)),
          share_text: Type.Optional(ShareText),
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
        config: {
          access: { can: 'products.write' },
          swaggerTransform: multipartBody(
            Type.Object({
              screenshot: Type.String({ format: 'binary', description: 'JPEG, PNG or WebP (judged by its bytes), at most 10 MB' }),
              highlights: Type.Optional(Type.String({ maxLength: HIGHLIGHTS_MAX })),
              link_url: Type.Optional(Url),
              share_text: Type.Optional(ShareText),
            }),
          ),
        },
        schema: {
          tags,
          operationId: 'uploadBenchmark',
          summary: 'Add a benchmark note with a screenshot',
          description: 'Add a benchmark note with a screenshot: multipart `screenshot` (JPEG/PNG/WebP by content, ≤ 10 MB), `highlights`, `link_url`, `share_text` (as in the JSON create)',
          consumes: ['multipart/form-data'],
          params: IdParams,
          response: { 200: Ok(BenchmarkView), 413: ErrorEnvelope, 415: ErrorEnvelope, ...commonErrors },
        },
      },
      async (request) => {
        const auth = currentUser(request);
        const upload = await readUpload(request, 'screenshot');
        if (!upload.file) throw fail('upload.file_missing', { field: 'screenshot' });
        const { highlights, link_url, share_text } = upload.fields;
        if (highlights && highlights.length > HIGHLIGHTS_MAX) throw fail('validation.too_long', { field: 'highlights', max: HIGHLIGHTS_MAX });
        if (link_url && link_url.length > 2048) throw fail('validation.too_long', { field: 'link_url', max: 2048 });
        if (share_text && share_text.length > SHARE_TEXT_MAX) throw fail('validation.too_long', { field: 'share_text', max: SHARE_TEXT_MAX });
        return ok(await service.createBenchmark(ctx, auth, request.params.id, { highlights, link_url, share_text }, upload.file));
      },
    );
  });

  app.get(
    '/benchmarks/export.csv',
    {
      schema: {
        tags,
        operationId: 'exportBenchmarksCsv',
        summary: 'Export benchmark notes as CSV',
        description: 'Benchmarks as CSV (UTF-8 with byte-order mark), optionally of one product',
        querystring: Type.Object({ product_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })) }),
        response: { 200: { description: 'The CSV file (attachment)', content: { 'text/csv': { schema: Type.String() } } }, ...commonErrors },
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
    { schema: { tags, operationId: 'getBenchmark', summary: 'Get a benchmark note', description: 'One benchmark note of the current workspace, with its analysis', params: IdParams, response: { 200: Ok(BenchmarkView), ...commonErrors } } },
    async (request) => ok(await service.getBenchmark(ctx, currentUser(request), request.params.id)),
  );

  app.patch(
    '/benchmarks/:id',
    {
      config: { access: { can: 'products.write' } },
      schema: {
        tags,
        operationId: 'updateBenchmark',
        summary: 'Change a benchmark note\'s highlights or link',
        description: 'Fields left out stay as they are; `link_url: null` removes the link; `share_text` as on create. The analysis written before stays until it is run again.',
        params: IdParams,
        body: Type.Object(
          {
            highlights: Type.Optional(Type.String({ maxLength: HIGHLIGHTS_MAX })),
            link_url: Type.Optional(Nullable(Url)),
            share_text: Type.Optional(ShareText),
          },
          { minProperties: 1 },
        ),
        response: { 200: Ok(BenchmarkView), ...commonErrors },
      },
    },
    async (request) => ok(await service.updateBenchmark(ctx, currentUser(request), request.params.id, request.body)),
  );

  app.delete(
    '/benchmarks/:id',
    { config: { access: { can: 'products.write' } }, schema: { tags, operationId: 'deleteBenchmark', summary: 'Delete a benchmark note', description: 'Delete a benchmark note (its screenshot goes with the unused-file sweep)', params: IdParams, response: { 200: OkEmpty, ...commonErrors } } },
    async (request) => {
      await service.deleteBenchmark(ctx, currentUser(request), request.params.id);
      return ok({});
    },
  );

  app.post(
    '/benchmarks/:id/analyze',
    {
      config: { access: { can: 'products.write' } },
      schema: {
        tags,
        operationId: 'analyzeBenchmark',
        summary: 'Analyse a benchmark note',
        description: 'Analyse the note now (vision model with the screenshot; text model otherwise); falls back to the highlights on provider failure',
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
