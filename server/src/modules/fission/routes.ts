import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { IMAGE_ROLES } from '../../content/schemas.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, DateTime, ErrorEnvelope, FailureKey, FailureParams, IdParams, Nullable, Ok, ok, PageQuery, Paged } from '../../http/schemas.js';
import { contentDisposition } from '../../http/content-disposition.js';
import { fileResponse } from '../../http/openapi.js';
import { REFERENCE_LEVELS } from '../../content/fission.js';
import * as service from './service.js';

const tags = ['fission'];
const errors409 = { ...commonErrors, 409: ErrorEnvelope };

const ReferenceLevel = Type.Union(
  [Type.Literal(REFERENCE_LEVELS[0]), Type.Literal(REFERENCE_LEVELS[1]), Type.Literal(REFERENCE_LEVELS[2])],
  { description: 'low: new angles and structure; mid: same topic, new angle or structure; high: same structure, fresh wording and images' },
);
const FissionStatus = Type.Union([Type.Literal('generating'), Type.Literal('completed'), Type.Literal('failed')]);

const FissionView = Type.Object({
  fission_id: Type.Integer(),
  source_task_id: Type.Integer(),
  reference_level: ReferenceLevel,
  fanout_count: Type.Integer(),
  status: FissionStatus,
  progress: Type.Object({
    done: Type.Integer({ description: 'notes with status image_done' }),
    failed: Type.Integer({ description: 'notes with status failed' }),
    total: Type.Integer({ description: 'notes stored' }),
    running: Type.Integer({ description: 'images not settled yet (being made, or queued for a retry): poll while it is above 0 or the fission is generating' }),
  }),
  error: Nullable(Type.String({ description: 'why the fission failed or has no usable set' })),
  error_key: FailureKey,
  error_params: FailureParams,
  created_at: DateTime,
  updated_at: DateTime,
});

const FissionListItem = Type.Object({
  fission_id: Type.Integer(),
  source_task_id: Type.Integer(),
  reference_level: ReferenceLevel,
  fanout_count: Type.Integer(),
  status: FissionStatus,
  progress: FissionView.properties.progress,
  created_at: DateTime,
  created_by: Type.Object({ user_id: Type.Integer(), username: Type.String({ description: 'empty when the user was removed' }) }),
});

const ImageElement = Type.Object({
  seq: Type.Integer(),
  role: Type.Enum(IMAGE_ROLES),
  url: Type.Optional(Type.String({ description: 'signed, short-lived link to the image' })),
  error: Type.Optional(Type.String({ description: 'error marker: this image failed; retry-images makes it again' })),
  error_kind: Type.Optional(Nullable(Type.String({ description: 'the provider failure kind of a failed image (contract-decisions §7), null when not a provider failure' }))),
  error_key: Type.Optional(FailureKey),
  error_params: Type.Optional(FailureParams),
  retrying: Type.Optional(Type.Boolean({ description: 'queued for a retry; poll the notes' })),
});

const NoteBody = Type.Object(
  {
    angle_label: Type.String(),
    title: Type.String(),
    content: Type.String(),
    tags: Type.Array(Type.String()),
    cover_title: Type.String(),
    image_brief: Type.String(),
    image_plan: Type.Array(Type.Object({ role: Type.Enum(IMAGE_ROLES), brief: Type.String() })),
  },
  { additionalProperties: true, description: 'the package: text, tags and image plan (never the internal _score/_passed/_block)' },
);

const FissionNoteView = Type.Object({
  seq: Type.Integer(),
  note: NoteBody,
  images: Type.Array(ImageElement),
  score: Type.Number(),
  passed: Type.Boolean({ description: 'score ≥ 80' }),
  needs_optimization: Type.Boolean({ description: 'score < 80: kept, flagged' }),
  dimension: Type.String({ description: 'what distinguishes this set' }),
  status: Type.String({ description: 'image_done or failed once its images are settled; pending before' }),
  banned_word_status: Type.Union([Type.Literal('pass'), Type.Literal('auto_fixed'), Type.Literal('soft_warn'), Type.Literal('hard_block')]),
});

const SeqParams = Type.Object({ ...IdParams.properties, seq: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

export const fissionRoutes: ApiModule = async (app, ctx) => {
  app.post(
    '/fission',
    {
      config: { access: { can: 'tasks.write' } },
      schema: {
        tags,
        operationId: 'createFission',
        summary: 'Start a fission',
        description: 'Fission a task into 1-5 complete note packages; only the fission id is queued',
        body: Type.Object({
          source_task_id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
          reference_level: Type.Optional({ ...ReferenceLevel, default: 'mid' }),
          fanout_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 3 })),
          account_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'the account the notes are meant for (§11): its persona goes to generation; default: the source task\'s' })),
        }),
        response: {
          200: Ok(Type.Object({ fission_id: Type.Integer(), source_task_id: Type.Integer(), reference_level: ReferenceLevel, fanout_count: Type.Integer(), status: FissionStatus })),
          ...errors409,
          422: ErrorEnvelope,
        },
      },
    },
    async (request) => {
      const { source_task_id, reference_level = 'mid', fanout_count = 3, account_id } = request.body;
      return ok(await service.createFission(ctx, currentUser(request), { source_task_id, reference_level, fanout_count, account_id }));
    },
  );

  app.get(
    '/fission',
    {
      schema: {
        tags,
        operationId: 'listFissions',
        summary: 'The workspace’s fissions, newest first (contract-decisions §8)',
        description: 'Every member of the workspace sees every fission, whoever started it; `source_task_id` narrows the list to the fissions of one task.',
        querystring: Type.Object({ ...PageQuery.properties, source_task_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })) }),
        response: { 200: Ok(Paged(FissionListItem)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listFissions(ctx, currentUser(request), request.query)),
  );

  app.get(
    '/fission/:id',
    { schema: { tags, operationId: 'getFission', summary: 'Get a fission', description: 'The fission with its progress (reading never changes it)', params: IdParams, response: { 200: Ok(FissionView), ...commonErrors } } },
    async (request) => ok(await service.getFission(ctx, currentUser(request), request.params.id)),
  );

  app.get(
    '/fission/:id/notes',
    {
      schema: {
        tags,
        operationId: 'listFissionNotes',
        summary: 'List the note packages of a fission',
        description: 'The note packages, by seq',
        params: IdParams,
        response: {
          200: Ok(
            Type.Object({
              fission_id: Type.Integer(),
              status: FissionStatus,
              fanout_count: Type.Integer(),
              running: Type.Integer({ description: 'images not settled yet (being made, or queued for a retry): poll while it is above 0 or the fission is generating' }),
              notes: Type.Array(FissionNoteView),
            }),
          ),
          ...commonErrors,
        },
      },
    },
    async (request) => ok(await service.listNotes(ctx, currentUser(request), request.params.id)),
  );

  app.get(
    '/fission/:id/download',
    {
      schema: {
        tags,
        operationId: 'downloadFission',
        summary: 'Download the fission zip',
        description: 'fission_<id>.zip: checklist.md and a folder per set (set_01, …) with note.txt and images',
        params: IdParams,
        response: { 200: fileResponse('The zip file (attachment)', ['application/zip']), ...errors409 },
      },
    },
    async (request, reply) => {
      const file = await service.exportFission(ctx, currentUser(request), request.params.id);
      return reply
        .type('application/zip')
        .header('content-disposition', contentDisposition(file.fileName, `fission_${request.params.id}.zip`))
        .header('cache-control', 'private, no-store')
        .send(file.output);
    },
  );

  app.post(
    '/fission/:id/notes/:seq/edit',
    {
      config: { access: { can: 'tasks.write' } },
      schema: {
        tags,
        operationId: 'editFissionNote',
        summary: 'Edit one note of a fission (title, body, tags, cover title)',
        description:
          'The note as it would be published: plain body, hashtags moved into the tags, each part within the limits of contract-decisions §9 (400 naming the limit otherwise), checked again against the banned words; the score stays the judge’s. Any member of the workspace; 409 while the fission is still generating.',
        params: SeqParams,
        body: Type.Object({
          title: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          content: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000 })),
          tags: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 20 })),
          cover_title: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
        }),
        response: { 200: Ok(FissionNoteView), ...errors409 },
      },
    },
    async (request) => ok(await service.editNote(ctx, currentUser(request), request.params.id, request.params.seq, request.body)),
  );

  app.get(
    '/fission/:id/notes/:seq/download',
    {
      schema: {
        tags,
        operationId: 'downloadFissionSet',
        summary: 'Download one set of a fission alone',
        description: 'fission_<id>_set_<seq>.zip: checklist.md of this set and its folder (note.txt and images); the same checks and 409s as the whole download.',
        params: SeqParams,
        response: { 200: fileResponse('The zip file of one set (attachment)', ['application/zip']), ...errors409 },
      },
    },
    async (request, reply) => {
      const file = await service.exportFission(ctx, currentUser(request), request.params.id, request.params.seq);
      return reply
        .type('application/zip')
        .header('content-disposition', contentDisposition(file.fileName, `fission_${request.params.id}_set.zip`))
        .header('cache-control', 'private, no-store')
        .send(file.output);
    },
  );

  app.post(
    '/fission/:id/notes/:seq/retry-images',
    {
      config: { access: { can: 'tasks.write' } },
      schema: {
        tags,
        operationId: 'retryFissionImages',
        summary: 'Retry the failed images of a set',
        description: 'Regenerate, in the background, only the images of this set that carry an error marker',
        params: SeqParams,
        response: {
          200: Ok(
            Type.Object({
              fission_id: Type.Integer(),
              seq: Type.Integer(),
              queued: Type.Boolean(),
              note_id: Type.Optional(Type.Integer()),
              failed_roles: Type.Optional(Type.Array(Type.Enum(IMAGE_ROLES))),
              message: Type.Optional(Type.String()),
            }),
          ),
          ...errors409,
        },
      },
    },
    async (request) => ok(await service.retryImages(ctx, currentUser(request), request.params.id, request.params.seq)),
  );
};
