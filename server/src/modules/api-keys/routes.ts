import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, DateTime, IdParams, Nullable, Ok, ok, OkEmpty, PageQuery, Paged } from '../../http/schemas.js';
import { PROVIDER_LABELS } from '../../providers/labels.js';
import { PROVIDER_ERROR_KINDS, TEMPERATURE_OPTIONS, THINKING_OPTIONS, TOKEN_PARAM_OPTIONS } from '../../providers/types.js';
import * as service from './service.js';

const tags = ['connections'];

const Capabilities = Type.Object({ text: Type.Boolean(), vision: Type.Boolean(), image: Type.Boolean() });
const TestResult = Type.Object({
  capability: Type.Union([Type.Literal('text'), Type.Literal('vision'), Type.Literal('image')]),
  ok: Type.Boolean(),
  model: Type.String(),
  latency_ms: Type.Integer(),
  error_kind: Nullable(Type.String({ description: `one of ${PROVIDER_ERROR_KINDS.join(', ')}` })),
  message: Nullable(Type.String({ description: "the provider's reason (English, never the key); the console words error_kind instead" })),
});
const Retiring = Type.Object(
  {
    capability: Type.Union([Type.Literal('text'), Type.Literal('vision'), Type.Literal('image')]),
    model: Type.String(),
    retires_on: Type.String({ format: 'date', description: 'the provider’s announced shutdown day (past: already shut down)' }),
  },
  { description: 'a model of this connection the dated catalogue knows shuts down within 30 days' },
);
const ConnectionTest = Type.Object({
  ok: Type.Boolean(),
  at: DateTime,
  results: Type.Array(TestResult),
  retiring: Type.Optional(Type.Array(Retiring, { description: 'models of the connection that shut down within 30 days, as at the test' })),
});
const ConnectionOptions = Type.Object(
  {
    thinking: Type.Enum(THINKING_OPTIONS),
    token_param: Type.Enum(TOKEN_PARAM_OPTIONS),
    temperature: Type.Enum(TEMPERATURE_OPTIONS),
  },
  { description: 'thinking: off (default: writing and judging without reasoning), on, provider_default (send no switch); token_param: auto = the preset’s; temperature: auto = sent where the preset takes it, omit = never sent' },
);

const ApiKeyView = Type.Object({
  id: Type.Integer(),
  provider: Type.String(),
  name: Type.String(),
  key_last4: Type.String(),
  base_url: Type.String({ description: 'effective endpoint (the preset’s unless set)' }),
  text_model: Type.String({ description: 'effective model; "" = no text capability' }),
  vision_model: Type.String({ description: 'effective model; "" = no vision capability' }),
  image_model: Type.String({ description: 'effective model; "" = no image capability' }),
  image_size: Nullable(Type.String({ description: 'sent verbatim when set; null = sized per request by the preset’s rules' })),
  concurrency: Type.Integer({ description: 'calls of this connection in flight at once (per process)' }),
  rpm: Type.Integer({ description: 'requests per minute the connection is paced to, shared by every process (the preset’s unless set); 0 = not paced (the offline provider)' }),
  tpm: Type.Integer({ description: 'tokens per minute (input + output budget) the connection is paced to (the preset’s unless set); 0 = not paced' }),
  capabilities: Capabilities,
  options: ConnectionOptions,
  retiring: Type.Array(Retiring),
  last_test: Nullable(ConnectionTest),
  created_at: DateTime,
  created_by: Type.Integer(),
  allowed_actions: Type.Array(Type.Enum(['update', 'delete', 'test']), { description: 'what the caller may do with this connection (operators: the ones they added)' }),
});

const model = (what: string) => Type.String({ maxLength: 200, description: `${what} model; "" = this connection has no ${what} capability; absent = the preset’s` });
const ConnectionFields = {
  name: Type.Optional(Type.String({ maxLength: 60 })),
  base_url: Type.Optional(Type.String({ maxLength: 500, description: 'http(s); required for openai-compatible; must resolve to public addresses unless ALLOW_PRIVATE_PROVIDER_URLS=1 or its host:port is in ALLOW_PRIVATE_PROVIDER_HOSTS. Changing it on PATCH needs api_key again (400 otherwise): a stored key is only sent to the address it was entered for' })),
  text_model: Type.Optional(model('text')),
  vision_model: Type.Optional(model('vision')),
  image_model: Type.Optional(model('image')),
  image_size: Type.Optional(Type.String({ maxLength: 32, pattern: '^[0-9A-Za-z*x]*$', description: 'e.g. 2K or 1536x2048, sent verbatim; "" = by the preset’s rules' })),
  concurrency: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 64, description: 'null = the preset’s' }))),
  rpm: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100_000, description: 'requests per minute of the account behind the key; null = the preset’s. Applies from the next call' }))),
  tpm: Type.Optional(Nullable(Type.Integer({ minimum: 1_000, maximum: 100_000_000, description: 'tokens per minute of the account behind the key; null = the preset’s. Applies from the next call' }))),
  options: Type.Optional(Type.Partial(ConnectionOptions, { description: 'only the options named change; the others keep their values' })),
};

const Routing = Type.Object({
  text_key_id: Nullable(Type.Integer({ minimum: 1 })),
  vision_key_id: Nullable(Type.Integer({ minimum: 1 })),
  image_key_id: Nullable(Type.Integer({ minimum: 1 })),
});

const CapabilityName = Type.Union([Type.Literal('text'), Type.Literal('vision'), Type.Literal('image')]);
const ModelList = Type.Object({
  ok: Type.Boolean(),
  source: Type.Union([Type.Literal('provider'), Type.Literal('catalogue')], { description: 'provider: its own list; catalogue: the preset documents none' }),
  models: Type.Array(
    Type.Object({
      id: Type.String(),
      capabilities: Type.Array(CapabilityName, { description: 'as far as the id tells: empty for embeddings, speech and the like' }),
      retires_on: Nullable(Type.String({ format: 'date' })),
    }),
  ),
  error_kind: Nullable(Type.String({ description: `one of ${PROVIDER_ERROR_KINDS.join(', ')}` })),
  message: Nullable(Type.String({ description: "the provider's reason (English, never the key)" })),
});

const RoutingView = Type.Object({
  ...Routing.properties,
  warnings: Type.Array(
    Type.Object({ capability: Type.Union([Type.Literal('text'), Type.Literal('vision'), Type.Literal('image')]), key_id: Type.Integer(), error_kind: Nullable(Type.String()) }),
    { description: 'connections chosen by hand whose latest test failed for the capability they are routed for: kept, but tasks will likely fail until fixed' },
  ),
});

const Preset = Type.Object({
  provider: Type.String(),
  display_name: Type.String(),
  base_url: Type.String(),
  text_model: Type.String(),
  vision_model: Type.String(),
  image_model: Type.String(),
  draws_images: Type.Boolean(),
  reference_images: Type.Boolean({ description: 'the product photo is sent to the image model' }),
  structured_output: Type.String({ description: 'json_schema, json_object or prompt' }),
  concurrency: Type.Integer(),
  rpm: Type.Integer({ description: 'default requests per minute (docs/providers.md “Rate limits”)' }),
  tpm: Type.Integer({ description: 'default tokens per minute' }),
});

export const apiKeyRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/api-keys',
    {
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: 'Provider connections of the workspace',
        description: 'Each connection with its effective endpoint, models and capabilities and its latest test; the key itself only as its last four characters.',
        querystring: PageQuery,
        response: { 200: Ok(Paged(ApiKeyView)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listApiKeys(ctx, currentUser(request), request.query)),
  );

  app.get(
    '/api-keys/presets',
    {
      schema: {
        tags,
        operationId: 'listProviderPresets',
        summary: 'Provider presets and their defaults',
        description: 'What a new connection starts from: endpoint, default models, capabilities and concurrency of every preset (contract-decisions §7).',
        response: { 200: Ok(Type.Array(Preset)), ...commonErrors },
      },
    },
    async () => ok(service.presetList()),
  );

  app.post(
    '/api-keys',
    {
      config: { access: { can: 'api_keys.create' } },
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Add a provider connection',
        description: 'Stores the key encrypted (never returned) with the connection’s optional endpoint, models, image size and concurrency.',
        body: Type.Object({
          provider: Type.String({ minLength: 1, maxLength: 32, description: `one of ${PROVIDER_LABELS.join(', ')}` }),
          api_key: Type.String({ minLength: 1, maxLength: 4096 }),
          ...ConnectionFields,
        }),
        response: { 200: Ok(ApiKeyView), ...commonErrors },
      },
    },
    async (request) => ok(await service.createApiKey(ctx, currentUser(request), request.body)),
  );

  app.patch(
    '/api-keys/:id',
    {
      config: { access: { scope: 'admin' } },
      schema: {
        tags,
        operationId: 'updateApiKey',
        summary: 'Change a provider connection',
        description: 'Any field of the connection, and the key itself; operators only their own connections. A changed endpoint, model or key clears the last test.',
        params: IdParams,
        body: Type.Object({ api_key: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })), ...ConnectionFields }),
        response: { 200: Ok(ApiKeyView), ...commonErrors },
      },
    },
    async (request) => ok(await service.updateApiKey(ctx, currentUser(request), request.params.id, request.body)),
  );

  app.post(
    '/api-keys/:id/test',
    {
      config: { access: { scope: 'admin' } },
      schema: {
        tags,
        operationId: 'testApiKey',
        summary: 'Test a provider connection',
        description: 'One tiny text call, a vision call when the connection has a vision model, and one image only when asked; stored as last_test. Provider failures are results, never HTTP errors.',
        params: IdParams,
        body: Type.Optional(Type.Object({ image: Type.Optional(Type.Boolean()) })),
        response: { 200: Ok(ConnectionTest), ...commonErrors },
      },
    },
    async (request) => ok(await service.testApiKey(ctx, currentUser(request), request.params.id, { image: request.body?.image === true })),
  );

  app.get(
    '/api-keys/:id/models',
    {
      schema: {
        tags,
        operationId: 'listConnectionModels',
        summary: 'Models the provider offers this connection',
        description:
          'The provider’s own model list (`GET {base_url}/models`) where its preset documents one, else the dated catalogue’s models; each marked by capability where its id tells and by its announced shutdown day. Provider failures are answers with error_kind, never HTTP errors.',
        params: IdParams,
        response: { 200: Ok(ModelList), ...commonErrors },
      },
    },
    async (request) => ok(await service.listConnectionModels(ctx, currentUser(request), request.params.id)),
  );

  app.delete(
    '/api-keys/:id',
    {
      config: { access: { scope: 'admin' } },
      schema: {
        tags,
        operationId: 'deleteApiKey',
        summary: 'Delete a provider connection',
        description: 'Operators may delete only the connections they added; routing that named it falls back to automatic.',
        params: IdParams,
        response: { 200: OkEmpty, ...commonErrors },
      },
    },
    async (request) => {
      await service.deleteApiKey(ctx, currentUser(request), request.params.id);
      return ok({});
    },
  );

  app.get(
    '/workspaces/current/generation',
    {
      schema: {
        tags,
        operationId: 'getGenerationRouting',
        summary: 'Which connection writes, sees and draws',
        description: 'Each capability’s connection id, or null for automatic (the caller’s newest connection with that capability whose latest test did not fail for it, else the workspace’s newest such; when all failed, the newest), with warnings for hand-chosen connections whose latest test failed.',
        response: { 200: Ok(RoutingView), ...commonErrors },
      },
    },
    async (request) => ok(await service.getRouting(ctx, currentUser(request))),
  );

  app.put(
    '/workspaces/current/generation',
    {
      config: { access: { can: 'generation_routing.write' } },
      schema: {
        tags,
        operationId: 'putGenerationRouting',
        summary: 'Route text, vision and images to connections',
        description: 'Admins and supervisors; a connection lacking the capability it is routed for is refused (400), another workspace’s is a 404.',
        body: Routing,
        response: { 200: Ok(RoutingView), ...commonErrors },
      },
    },
    async (request) => ok(await service.putRouting(ctx, currentUser(request), request.body)),
  );
};
