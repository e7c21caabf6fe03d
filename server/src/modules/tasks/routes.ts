import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser, sessionIsCurrent } from '../../http/auth.js';
import { documentedQuery, multipartBody } from '../../http/openapi.js';
import { commonErrors, ErrorEnvelope, IdParams, Nullable, Ok, ok, PageQuery, Paged } from '../../http/schemas.js';
import { ImageCandidateSchema, TextCandidateSchema } from './views.js';
import * as service from './service.js';
import * as images from './images.js';
import * as captions from './captions.js';
import { readUpload, uploadScope } from '../../http/upload.js';
import { absentBodyAsEmpty } from '../../http/validation.js';
import { fail } from '../../http/errors.js';
import { IMAGE_ROLES } from '../../content/schemas.js';
import { NOTE_LIMITS } from '../../content/limits.js';
import * as tickets from './tickets.js';
import { TaskListCache } from './list-cache.js';
import { PAGE_WINDOW } from './list-paging.js';
import { EventStreams } from './stream.js';
import { StrategySchema, TaskDetail, TaskListItem, TaskStatusSchema } from './views.js';

const tags = ['tasks'];
const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
const CandidateParams = Type.Object({ id: Id, candidate_id: Id });
const SelectBody = Type.Object({
  candidate_id: Id,
  selected: Type.Optional(Type.Boolean({ description: 'false deselects (no preference signal)', default: true })),
});
const Tags = Type.Array(Type.String({ maxLength: 50 }), { maxItems: 20 });
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7e]+$', description: 'a repeat within 24 h returns the first task' }),
  ),
});
const StreamQuery = Type.Object({
  ticket: Type.Optional(Type.String({ maxLength: 200 })),
  last_seq: Type.Integer({ minimum: 0, maximum: 2147483647, default: 0 }),
  follow: Type.Boolean({
    default: false,
    description: 'true: stay open after `done` and for a settled task, carrying later status changes and package progress (ends after 15 min; reconnect)',
  }),
});
const stateErrors = { ...commonErrors, 409: ErrorEnvelope };
const TaskListPage = Type.Object({
  ...Paged(TaskListItem).properties,
  next_cursor: Nullable(Type.String({ description: 'pass as cursor for the tasks after this page; null when this page was not full' })),
});

export const taskRoutes: ApiModule = async (app, ctx) => {
  const streams = new EventStreams(ctx.config.sseHeartbeatMs);
  const listCache = new TaskListCache(ctx.config.taskListCacheBytes);
  // Streams hold their connection open; shutdown would wait for them forever.
  app.addHook('preClose', async () => streams.closeAll());

  app.post(
    '/tasks',
    {
      config: { access: { can: 'tasks.write' } },
      schema: {
        tags,
        operationId: 'createTask',
        summary: 'Create a task',
        description: 'Create a production task (pending; only its id is queued)',
        headers: IdempotencyHeaders,
        body: Type.Object({
          product_id: Id,
          benchmark_ids: Type.Optional(Type.Array(Id, { maxItems: 20 })),
          theme: Type.String({ minLength: 1, maxLength: 500 }),
          text_count: Type.Integer({ minimum: 1, maximum: 30 }),
          image_count: Type.Integer({ minimum: 0, maximum: 9, description: 'images per strategy set' }),
          track: Type.Enum(['ai', 'import']),
          overlay_text: Type.Optional(Type.Boolean({ description: 'draw the cover title on the first image (default true)' })),
          account_id: Type.Optional(Id),
        }),
        response: { 200: Ok(TaskListItem), 422: ErrorEnvelope, ...commonErrors },
      },
    },
    async (request) => ok(await service.createTask(ctx, currentUser(request), request.body, request.headers['idempotency-key'])),
  );

  app.get(
    '/tasks',
    {
      schema: {
        tags,
        operationId: 'listTasks',
        summary: 'Tasks of the workspace, newest first',
        description: `Pages by number up to page × page_size = ${PAGE_WINDOW}; beyond that (400 / 40000), read on with \`cursor\`: every page answers \`next_cursor\` (null when the page is not full), and \`cursor=<next_cursor>\` returns the tasks after it, newest first, with the same filters. \`total\` is always the count of every task the filters match. \`q\` keeps the tasks whose theme or product name contains it (case ignored), through an index of the themes' character pairs; \`hide_archived=true\` leaves archived tasks out unless \`status\` asks for them.`,
        querystring: Type.Object({
          ...PageQuery.properties,
          cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of a page: the page starts after it (page must be 1 or absent)' })),
          status: Type.Optional(TaskStatusSchema),
          product_id: Type.Optional(Id),
          date_from: Type.Optional(Type.String({ maxLength: 40, description: 'YYYY-MM-DD (whole UTC day) or ISO 8601 date-time' })),
          date_to: Type.Optional(Type.String({ maxLength: 40, description: 'YYYY-MM-DD (whole UTC day, inclusive) or ISO 8601 date-time' })),
          q: Type.Optional(Type.String({ maxLength: 100, description: 'keyword: the theme or the product name contains it (case ignored); blank means none' })),
          hide_archived: Type.Optional(Type.Boolean({ description: 'true: archived tasks are left out (the console\'s default view); ignored when status is given' })),
        }),
        response: { 200: Ok(TaskListPage), ...commonErrors },
      },
    },
    async (request, reply) => {
      // This route's response schema serializes the page (to a string: no custom serializer is set).
      const serialize = (page: Parameters<typeof ok>[0]) => reply.serialize(ok(page)) as string;
      const body = await service.listTasksSerialized(ctx, currentUser(request), request.query, listCache, serialize);
      // Bytes are sent as they are, with the content type set here.
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
    },
  );

  app.get(
    '/tasks/covers',
    {
      schema: {
        tags,
        operationId: 'listTaskCovers',
        summary: 'Cover images of some tasks, for list thumbnails',
        description:
          'For each listed task id of the workspace that has images: a short-lived signed link to its cover (the first image of a set whose cover is selected, else of the newest generation). Other ids (no images, another workspace, unknown) are left out. Kept apart from `GET /tasks`, whose pages are cached, so that no cached page carries an expired link.',
        querystring: Type.Object({
          ids: Type.String({ pattern: '^[0-9]{1,10}(,[0-9]{1,10}){0,99}$', description: 'task ids, comma-separated, at most 100' }),
        }),
        response: { 200: Ok(Type.Object({ items: Type.Array(Type.Object({ task_id: Type.Integer(), url: Type.String() })) })), ...commonErrors },
      },
    },
    async (request) => ok(await service.taskCovers(ctx, currentUser(request), request.query.ids.split(',').map(Number).filter((id) => id >= 1 && id <= 2147483647))),
  );

  app.get(
    '/tasks/:id',
    {
      schema: { tags, operationId: 'getTask', summary: 'Get a task', description: 'Task detail with candidates and progress', params: IdParams, response: { 200: Ok(TaskDetail), ...commonErrors } },
    },
    async (request) => ok(await service.getTask(ctx, currentUser(request), request.params.id)),
  );

  app.post(
    '/tasks/:id/sse-ticket',
    {
      config: { access: { scope: 'read' } },
      schema: {
        tags,
        operationId: 'createStreamTicket',
        summary: 'Get a ticket for the event stream',
        description: 'One-time ticket (60 s) to open the task event stream',
        params: IdParams,
        response: { 200: Ok(Type.Object({ ticket: Type.String(), expires_in: Type.Integer() })), ...commonErrors },
      },
    },
    async (request) => ok(await tickets.issueTicket(ctx, currentUser(request), request.params.id)),
  );

  app.get(
    '/tasks/:id/stream',
    {
      config: {
        access: { auth: 'public' },
        // The contract requires the ticket; its absence is let through validation so that it
        // answers 401 / 40101 like a spent or foreign ticket (contract-decisions), not 400.
        swaggerTransform: documentedQuery(Type.Object({ ...StreamQuery.properties, ticket: Type.String({ maxLength: 200, description: 'from POST /tasks/{id}/sse-ticket' }) })),
      },
      schema: {
        tags,
        operationId: 'streamTaskEvents',
        summary: 'Stream task events',
        description: 'Server-sent task events: replay after max(last_seq, Last-Event-ID), then live until done',
        security: [],
        params: IdParams,
        querystring: StreamQuery,
        response: {
          200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          400: ErrorEnvelope,
          401: ErrorEnvelope,
          404: ErrorEnvelope,
        },
      },
    },
    async (request, reply) => {
      const { task, session } = await tickets.redeemTicket(ctx, request.params.id, request.query.ticket);
      const afterSeq = Math.max(request.query.last_seq, lastEventId(request.headers['last-event-id']));
      streams.start(ctx, request, reply, task, afterSeq, request.query.follow, () => sessionIsCurrent(ctx, session));
      return reply;
    },
  );

  app.post(
    '/tasks/:id/text-candidates/select',
    {
      config: { access: { can: 'tasks.write' } },
      schema: {
        tags,
        operationId: 'selectTextCandidate',
        summary: 'Select a text',
        description: 'Select (or deselect) a text: one selected text per strategy set',
        params: IdParams,
        body: SelectBody,
        response: { 200: Ok(TextCandidateSchema), ...stateErrors },
      },
    },
    async (request) =>
      ok(await service.selectTextCandidate(ctx, currentUser(request), request.params.id, request.body.candidate_id, request.body.selected ?? true)),
  );

  app.post(
    '/tasks/:id/image-candidates/select',
    {
      config: { access: { can: 'tasks.write' } },
      schema: {
        tags,
        operationId: 'selectImageCandidate',
        summary: 'Select an image',
        description: 'Select (or deselect) an image: any number per strategy set',
        params: IdParams,
        body: SelectBody,
        response: { 200: Ok(ImageCandidateSchema), ...stateErrors },
      },
    },
    async (request) =>
      ok(await service.selectImageCandidate(ctx, currentUser(request), request.params.id, request.body.candidate_id, request.body.selected ?? true)),
  );

  app.post(
    '/tasks/:id/text-candidates/:candidate_id/edit',
    {
      config: { access: { can: 'tasks.write' } },
      schema: {
        tags,
        operationId: 'editTextCandidate',
        summary: 'Edit a text',
        description: 'Overwrite a text: re-checked, re-scored, edited: true',
        params: CandidateParams,
        body: Type.Object({
          content: Type.String({ minLength: 1, maxLength: 20_000 }),
          title: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          tags: Type.Optional(Tags),
          cover_title: Type.Optional(
            Type.String({ minLength: 1, maxLength: 50, description: `at most ${NOTE_LIMITS.cover_title} characters (graphemes): drawn on the set's cover when this text is its chosen text` }),
          ),
        }),
        response: { 200: Ok(TextCandidateSchema), ...stateErrors },
      },
    },
    async (request) => ok(await service.editTextCandidate(ctx, currentUser(request), request.params.id, request.params.candidate_id, request.body)),
  );

  app.post(
    '/tasks/:id/import-text',
    {
      config: { access: { can: 'tasks.write' } },
      schema: {
        tags,
        operationId: 'importText',
        summary: 'Import an external text',
        description: 'Add an external text to an import-track task (scored and checked)',
        params: IdParams,
        body: Type.Object({
          content: Type.String({ minLength: 1, maxLength: 20_000 }),
          angle_label: Type.String({ minLength: 1, maxLength: 100 }),
          strategy: Type.Optional(StrategySchema),
          title: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          tags: Type.Optional(Tags),
        }),
        response: { 200: Ok(TextCandidateSchema), ...stateErrors },
      },
    },
    async (request) => ok(await service.importText(ctx, currentUser(request), request.params.id, request.body)),
  );

  app.post(
    '/tasks/:id/image-candidates/:candidate_id/regenerate',
    {
      config: { access: { can: 'tasks.write' } },
      schema: {
        tags,
        operationId: 'regenerateImageCandidate',
        summary: 'Make one image again, optionally with an instruction (contract-decisions §8)',
        description:
          'Queues a new image of the same set, seq and role (`is_regen: true`), streamed as `image_candidate` when made; the image it replaces stays a candidate. Records a `regenerate` preference signal (−1). Accepted in `pending_selection` by the roles that may write tasks (409 / 40900 otherwise); an instruction with hard-blocked words is refused (422).',
        params: CandidateParams,
        body: Type.Object({
          instruction: Type.Optional(Type.String({ maxLength: 200, description: 'what to change in this image, e.g. 换成浅色背景' })),
        }),
        response: { 200: Ok(Type.Object({ queued: Type.Literal(true) })), 422: ErrorEnvelope, ...stateErrors },
      },
    },
    async (request) =>
      ok(await images.regenerateImage(ctx, currentUser(request), request.params.id, request.params.candidate_id, request.body.instruction)),
  );

  app.patch(
    '/tasks/:id/image-candidates/:candidate_id',
    {
      config: { access: { can: 'tasks.write' } },
      schema: {
        tags,
        operationId: 'editImageCandidate',
        summary: 'Set the caption printed on a slide (contract-decisions §8)',
        description: `Letters the image again from its original with \`caption\` (at most ${NOTE_LIMITS.caption} characters; \`""\` removes it), held to the banned words like a text: a hard-blocked word is refused (422), auto-fix words are replaced. A cover carries its set's cover title instead (409). Streamed as \`image_candidate\`. Accepted in \`pending_selection\` by the roles that may write tasks (409 / 40900 otherwise).`,
        params: CandidateParams,
        body: Type.Object({
          caption: Type.String({ maxLength: 50, description: `at most ${NOTE_LIMITS.caption} characters (graphemes); "" removes the caption` }),
        }),
        response: { 200: Ok(ImageCandidateSchema), 422: ErrorEnvelope, ...stateErrors },
      },
    },
    async (request) => ok(await captions.editImageCaption(ctx, currentUser(request), request.params.id, request.params.candidate_id, request.body.caption)),
  );

  app.post(
    '/tasks/:id/retry-images',
    {
      config: { access: { can: 'tasks.write' } },
      // A request without a body retries every failed image, as before the body existed.
      preValidation: absentBodyAsEmpty,
      schema: {
        tags,
        operationId: 'retryTaskImages',
        summary: 'Make again the images of the latest generation that failed',
        description:
          'Queues again the failed images of the latest generation (each keeps its slot), or only those named in `candidate_ids` (409 naming one that did not fail), answered with which and their roles; each is streamed as `image_candidate` when settled. Nothing failed: `{queued: false, count: 0, failed_roles: []}`. Accepted in `pending_selection` (409 / 40900 otherwise).',
        params: IdParams,
        body: Type.Object({ candidate_ids: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 50, description: 'retry only these failed images (one tile\'s retry)' })) }),
        response: {
          200: Ok(
            Type.Object({
              queued: Type.Boolean({ description: 'whether anything was queued' }),
              count: Type.Integer({ description: 'images queued' }),
              candidate_ids: Type.Array(Type.Integer(), { description: 'the image candidates queued again' }),
              failed_roles: Type.Array(Type.Enum(IMAGE_ROLES)),
            }),
          ),
          ...stateErrors,
        },
      },
    },
    async (request) => ok(await images.retryImages(ctx, currentUser(request), request.params.id, request.body.candidate_ids)),
  );

  await uploadScope(app, (scope) => {
    scope.post(
      '/tasks/:id/image-candidates/upload',
      {
        config: {
          access: { can: 'tasks.write' },
          swaggerTransform: multipartBody(
            Type.Object({
              image: Type.String({ format: 'binary', description: 'JPEG, PNG or WebP (judged by its bytes), at most 10 MB' }),
              strategy: Type.Union([Type.Literal('A'), Type.Literal('B'), Type.Literal('C')]),
              seq: Type.String({ pattern: '^[0-9]{1,3}$', description: 'the slot number within the set' }),
              role: Type.Enum(IMAGE_ROLES, { description: 'the slot role, as the image candidate shows it' }),
              fit: Type.Optional(Type.Union([Type.Literal('crop'), Type.Literal('pad')], { description: 'a picture of another ratio: crop a 3:4 window (default) or pad it whole' })),
              focus: Type.Optional(Type.String({ pattern: '^[01](\\.[0-9]+)?$', description: 'with crop: where the window sits along the cut axis, 0 (left/top) to 1 (right/bottom); default 0.5' })),
              background: Type.Optional(Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'with pad: the colour around the picture (default #ffffff)' })),
            }),
          ),
        },
        schema: {
          tags,
          operationId: 'uploadImageCandidate',
          summary: 'Replace one image with the team’s own: multipart `image`, `strategy`, `seq`, `role`',
          description:
            'The file (JPEG, PNG or WebP by its content, ≤ 10 MB) becomes a new image candidate of the slot (`source: "upload"`), upright, made 3:4 (1080×1440: a window at `focus`, or padded whole with `fit: pad`) and without metadata; a cover gets its set’s cover title drawn on it like a generated one. Where the task has selected images, the upload takes its slot\'s place in the selection (every package ships it). Accepted in `pending_selection` (409 / 40900 otherwise).',
          consumes: ['multipart/form-data'],
          params: IdParams,
          response: { 200: Ok(ImageCandidateSchema), 413: ErrorEnvelope, 415: ErrorEnvelope, ...stateErrors },
        },
      },
      async (request) => {
        const upload = await readUpload(request, 'image');
        if (!upload.file) throw fail('upload.file_missing', { field: 'image' });
        return ok(await images.uploadImage(ctx, currentUser(request), request.params.id, upload.file, upload.fields));
      },
    );
  });

  app.post(
    '/tasks/:id/regenerate',
    {
      config: { access: { can: 'tasks.write' } },
      schema: { tags, operationId: 'regenerateTask', summary: 'Generate again', description: 'Run generation again (keeps earlier candidates)', params: IdParams, response: { 200: Ok(TaskListItem), ...stateErrors } },
    },
    async (request) => ok(await service.regenerateTask(ctx, currentUser(request), request.params.id)),
  );

  app.post(
    '/tasks/:id/archive',
    {
      config: { access: { can: 'tasks.write' } },
      schema: { tags, operationId: 'archiveTask', summary: 'Archive a task', description: 'Archive a task (approved, pending_selection or failed): it leaves the working lists for good', params: IdParams, response: { 200: Ok(TaskListItem), ...stateErrors } },
    },
    async (request) => ok(await service.archiveTask(ctx, currentUser(request), request.params.id)),
  );
};

/** The standard reconnect header; anything but a plain seq is ignored rather than refused. */
function lastEventId(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  return value && /^\d{1,10}$/.test(value.trim()) ? Math.min(Number(value.trim()), 2147483647) : 0;
}
