import { Type } from 'typebox';
import { DateTime, Nullable } from '../../http/schemas.js';

/** contract-decisions §10: the events a webhook can listen to, and the receiver kinds. */
export const WebhookEventSchema = Type.Union([
  Type.Literal('task.pending_selection'),
  Type.Literal('task.failed'),
  Type.Literal('task.submitted'),
  Type.Literal('task.approved'),
  Type.Literal('task.rejected'),
  Type.Literal('package.ready'),
  Type.Literal('fission.completed'),
  Type.Literal('post.due'),
  Type.Literal('post.missed'),
  Type.Literal('post.published'),
]);
export const WebhookKindSchema = Type.Union([Type.Literal('generic'), Type.Literal('feishu'), Type.Literal('wecom'), Type.Literal('dingtalk')]);
const ErrorKind = Type.Union([Type.Literal('timeout'), Type.Literal('unreachable'), Type.Literal('blocked_address'), Type.Literal('http_status'), Type.Literal('app_error')]);

/** A webhook as the API shows it: the URL masked (a bot's URL carries its key), the secret never. */
export const WebhookView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  kind: WebhookKindSchema,
  url: Type.String({ description: 'the receiver URL with its credentials masked; never the full URL' }),
  events: Type.Array(WebhookEventSchema),
  has_secret: Type.Boolean(),
  is_active: Type.Boolean(),
  created_at: DateTime,
  updated_at: DateTime,
}, { $id: 'Webhook' });

export const AttemptView = Type.Object({
  attempt: Type.Integer(),
  at: DateTime,
  ok: Type.Boolean(),
  http_status: Nullable(Type.Integer()),
  latency_ms: Type.Integer(),
  error_kind: Nullable(ErrorKind),
  excerpt: Nullable(Type.String({ description: 'the start of the receiver answer' })),
});

export const DeliveryView = Type.Object({
  id: Type.String({ description: 'the stable delivery id (the `id` of a generic payload); the same on every retry' }),
  event: Type.Union([WebhookEventSchema, Type.Literal('webhook.test')]),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  http_status: Nullable(Type.Integer()),
  attempts: Type.Integer(),
  created_at: DateTime,
  delivered_at: Nullable(DateTime),
  next_attempt_at: Nullable(DateTime),
  last_error: Nullable(ErrorKind),
  attempt_log: Type.Array(AttemptView, { description: 'the latest attempts, newest first (at most 5)' }),
});
