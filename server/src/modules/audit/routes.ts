import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, DateTime, IdParams, Nullable, Ok, ok } from '../../http/schemas.js';
import * as service from './service.js';

const AuditEntrySchema = Type.Object({
  id: Type.Integer(),
  created_at: DateTime,
  kind: Type.Enum(['generation', 'edit', 'selection', 'review', 'package', 'post'], {
    description: 'generation: a run, its connection and models, each prompt; edit: a text or image changed (before and after); selection; review: submit, approve, reject; package; post: scheduled, moved, cancelled, published (§11)',
  }),
  action: Type.String({ description: 'what happened, e.g. start_generation, notes_prompt, edit_text, select_text, approve, create_package' }),
  user_id: Nullable(Type.Integer({ description: 'who; null for the generation job' })),
  username: Nullable(Type.String()),
  detail: Type.Record(Type.String(), Type.Unknown(), { description: 'what the entry records, by action (docs/api.md)' }),
});

const AuditTrail = Type.Object({ task_id: Type.Integer(), items: Type.Array(AuditEntrySchema) });

export const auditRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/tasks/:id/audit',
    {
      config: { access: { can: 'audit.read' } },
      schema: {
        tags: ['tasks'],
        operationId: 'getTaskAudit',
        summary: 'Read the audit trail of a task',
        description:
          'Append-only, oldest first: every generation (connection, provider, model, prompt snapshot), edit (who, before and after), selection, review (who, reason) and package of the task (supervisors and admins; a token needs the `review` scope). `?format=csv` answers the same entries as a CSV download (UTF-8 with byte-order mark, `detail` as JSON text).',
        params: IdParams,
        querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json' })) }),
        response: {
          200: {
            description: 'The trail (JSON), or with `format=csv` the CSV file (attachment)',
            content: { 'application/json': { schema: Ok(AuditTrail) }, 'text/csv': { schema: Type.String() } },
          },
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const auth = currentUser(request);
      if (request.query.format !== 'csv') return ok(await service.taskAudit(ctx, auth, request.params.id));
      const csv = await service.taskAuditCsv(ctx, auth, request.params.id);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="task-${request.params.id}-audit.csv"`)
        .send(csv);
    },
  );
};
