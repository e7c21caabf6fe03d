import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import type { AppContext } from '../../context.js';
import { authenticate, bearerToken, currentUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { commonErrors, DateTime, ErrorEnvelope, FailureKey, FailureParams, IdParams, Nullable, Ok, ok, PageQuery, Paged } from '../../http/schemas.js';
import { parseRange } from '../../http/download.js';
import * as service from './service.js';
import { contentDisposition } from '../../http/content-disposition.js';
import { fileResponse } from '../../http/openapi.js';

const tags = ['delivery'];

const PackageView = Type.Object({
  id: Type.Integer(),
  task_id: Type.Integer(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('ready'), Type.Literal('downloaded'), Type.Literal('failed')], {
    description: 'failed (with error) is added to the contract\'s pending/ready/downloaded: a build that cannot finish says so',
  }),
  download_url: Nullable(Type.String({ description: 'the download-file path, once ready' })),
  expires_at: Nullable(DateTime),
  file_name: Nullable(Type.String()),
  size_bytes: Nullable(Type.Integer()),
  note_ids: Type.Array(Type.Integer(), { description: 'the text candidates packed, in folder order' }),
  error: Nullable(Type.String()),
  error_key: FailureKey,
  error_params: FailureParams,
  created_at: DateTime,
  ready_at: Nullable(DateTime),
}, { $id: 'DeliveryPackage' });

const errors409 = { ...commonErrors, 409: ErrorEnvelope };

/** The bearer rules of download-file without a token: none 401/40100, bad 401/40101. */
async function bearerUser(ctx: AppContext, request: FastifyRequest) {
  const token = bearerToken(request);
  if (token === undefined) throw fail('auth.download_credentials_missing');
  const user = await authenticate(ctx, token);
  if (user.mustChangePassword) throw fail('auth.password_change_required');
  return user;
}

async function sendPackageFile(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, file: { key: string; size: number; name: string }, id: number) {
  const range = parseRange(request.headers.range, file.size);
  reply.header('accept-ranges', 'bytes').header('cache-control', 'private, no-store');
  if (range === 'unsatisfiable') {
    // 416 is not in the contract's table; its code follows the handler's status × 100 rule.
    throw fail('download.range_not_satisfiable', { size: file.size }, { 'content-range': `bytes */${file.size}` });
  }
  const stream = await ctx.storage.createReadStream(file.key, range);
  reply
    .type('application/zip')
    .header('content-disposition', contentDisposition(file.name, `package_${id}.zip`))
    .header('content-length', String(range ? range.end - range.start + 1 : file.size));
  if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${file.size}`);
  return reply.send(stream);
}

export const deliveryRoutes: ApiModule = async (app, ctx) => {
  app.post(
    '/tasks/:id/package',
    {
      config: { access: { can: 'tasks.write' } },
      // The body is optional: a bare POST means "no note_ids".
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        operationId: 'createPackage',
        summary: 'Create a delivery package',
        description: 'Create a delivery package (task approved or pending_selection); only its id is queued for the build',
        params: IdParams,
        body: Type.Object({
          note_ids: Type.Optional(
            Type.Array(Type.Integer({ minimum: 1 }), {
              minItems: 1,
              maxItems: 100,
              description: 'text candidates to pack; absent: each set\'s selected text, else its best-scored text',
            }),
          ),
        }),
        response: {
          200: Ok(Type.Object({ delivery_package_id: Type.Integer(), status: Type.Literal('pending') })),
          ...errors409,
          422: ErrorEnvelope,
        },
      },
    },
    async (request) => ok(await service.createPackage(ctx, currentUser(request), request.params.id, request.body.note_ids)),
  );

  app.get(
    '/tasks/:id/packages',
    {
      schema: { tags, operationId: 'listTaskPackages', summary: 'List the delivery packages of a task', description: "The task's delivery packages, newest first", params: IdParams, querystring: PageQuery, response: { 200: Ok(Paged(PackageView)), ...commonErrors } },
    },
    async (request) => ok(await service.listTaskPackages(ctx, currentUser(request), request.params.id, request.query)),
  );

  app.get(
    '/delivery-packages/:id/download',
    { schema: { tags, operationId: 'getPackage', summary: 'Get a delivery package', description: 'The delivery package with its status and download path (reading never changes it)', params: IdParams, response: { 200: Ok(PackageView), ...commonErrors } } },
    async (request) => ok(await service.getPackage(ctx, currentUser(request), request.params.id)),
  );

  app.post(
    '/delivery-packages/:id/mark-downloaded',
    { config: { access: { can: 'tasks.write' } }, schema: { tags, operationId: 'markPackageDownloaded', summary: 'Mark a package downloaded', description: 'Moves a ready package to downloaded (ready → downloaded)', params: IdParams, response: { 200: Ok(PackageView), ...errors409 } } },
    async (request) => ok(await service.markDownloaded(ctx, currentUser(request), request.params.id)),
  );

  app.post(
    '/delivery-packages/:id/download-token',
    {
      config: { access: { scope: 'read' } },
      schema: {
        tags,
        operationId: 'createDownloadToken',
        summary: 'Get a one-time download token',
        description: 'A one-time download token for this package, valid 60 s',
        params: IdParams,
        response: { 200: Ok(Type.Object({ token: Type.String(), expires_in: Type.Integer() })), ...errors409 },
      },
    },
    async (request) => ok(await service.issueDownloadToken(ctx, currentUser(request), request.params.id)),
  );

  app.get(
    '/delivery-packages/:id/download-file',
    {
      // No HEAD twin: a HEAD with ?token= would use the token up without delivering anything.
      exposeHeadRoute: false,
      // The bearer is optional here (a token may stand in for it), so the route checks it itself.
      config: { access: { auth: 'public' } },
      schema: {
        tags,
        operationId: 'downloadPackageFile',
        summary: 'Download the package zip',
        description: 'The zip file (with ?token= or a bearer token); supports Range',
        params: IdParams,
        querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) }),
        // The bearer token, or a one-time download token alone (an <a href> sends no header).
        security: [{ bearer: [] }, { downloadToken: [] }],
        response: {
          200: fileResponse('The whole zip file (attachment)', ['application/zip']),
          206: fileResponse('The requested range of the zip file (Content-Range)', ['application/zip']),
          410: ErrorEnvelope,
          416: ErrorEnvelope,
          ...errors409,
        },
      },
    },
    async (request, reply) => {
      const { token } = request.query;
      const who = token !== undefined ? { token } : { auth: await bearerUser(ctx, request) };
      const file = await service.fileForDownload(ctx, request.params.id, who);
      return sendPackageFile(ctx, request, reply, file, request.params.id);
    },
  );
};
