import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, IdParams, Nullable, Ok, ok, OkEmpty, PageQuery, Paged } from '../../http/schemas.js';
import * as service from './service.js';
import { DeliveryView, WebhookEventSchema, WebhookKindSchema, WebhookView } from './views.js';

const tags = ['webhooks'];
const admins = { access: { can: 'webhooks.manage' as const } };
const Name = Type.String({ minLength: 1, maxLength: 60 });
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http(s); must resolve to public addresses unless ALLOW_PRIVATE_PROVIDER_URLS=1 or its host:port is in ALLOW_PRIVATE_PROVIDER_HOSTS' });
const Events = Type.Array(WebhookEventSchema, { minItems: 1, maxItems: 7, uniqueItems: true });
const Secret = Type.String({ minLength: 1, maxLength: 512, description: 'signing secret (generic: HMAC key; feishu, dingtalk: the bot\'s signing secret); stored encrypted, never returned' });

export const webhookRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/webhooks',
    {
      config: admins,
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: 'Webhooks of the workspace',
        description: 'Every webhook of the current workspace; URLs masked, secrets never shown (admin).',
        response: { 200: Ok(Type.Object({ items: Type.Array(WebhookView) })), ...commonErrors },
      },
    },
    async (request) => ok(await service.listWebhooks(ctx, currentUser(request))),
  );

  app.post(
    '/webhooks',
    {
      config: admins,
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Add a webhook',
        description: 'Notifies a Feishu, WeCom or DingTalk group bot, or any HTTP receiver (generic), of the chosen events (admin).',
        body: Type.Object({ name: Name, url: Url, kind: WebhookKindSchema, events: Events, secret: Type.Optional(Secret), is_active: Type.Optional(Type.Boolean()) }),
        response: { 200: Ok(WebhookView), ...commonErrors },
      },
    },
    async (request) => ok(await service.createWebhook(ctx, currentUser(request), request.body)),
  );

  app.patch(
    '/webhooks/:id',
    {
      config: admins,
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: 'Change a webhook',
        description: 'Any field of the creation; `secret: null` removes the secret, `is_active: false` pauses new notifications (admin).',
        params: IdParams,
        body: Type.Object({
          name: Type.Optional(Name),
          url: Type.Optional(Url),
          kind: Type.Optional(WebhookKindSchema),
          events: Type.Optional(Events),
          secret: Type.Optional(Nullable(Secret)),
          is_active: Type.Optional(Type.Boolean()),
        }),
        response: { 200: Ok(WebhookView), ...commonErrors },
      },
    },
    async (request) => ok(await service.updateWebhook(ctx, currentUser(request), request.params.id, request.body)),
  );

  app.delete(
    '/webhooks/:id',
    {
      config: admins,
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook',
        description: 'Deletes the webhook with its delivery history; pending deliveries are dropped (admin).',
        params: IdParams,
        response: { 200: OkEmpty, ...commonErrors },
      },
    },
    async (request) => {
      await service.deleteWebhook(ctx, currentUser(request), request.params.id);
      return ok({});
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      config: admins,
      schema: {
        tags,
        operationId: 'testWebhook',
        summary: 'Send a test message',
        description: 'Queues a `webhook.test` delivery through the same outbox and retries as real events; answers the delivery, still pending (admin).',
        params: IdParams,
        response: { 200: Ok(DeliveryView), ...commonErrors },
      },
    },
    async (request) => ok(await service.testWebhook(ctx, currentUser(request), request.params.id)),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: admins,
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'Deliveries of a webhook',
        description: 'Newest first, each with its status, attempts and the latest attempts\' HTTP status, latency and answer excerpt (admin).',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: Ok(Paged(DeliveryView)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listDeliveries(ctx, currentUser(request), request.params.id, request.query)),
  );
};
