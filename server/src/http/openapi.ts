import type { SwaggerOptions, SwaggerTransform } from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import { API_PREFIX } from './module.js';
import { BinaryFile } from './binary.js';
import { ErrorEnvelope } from './schemas.js';

/**
 * The OpenAPI document (GET /api/v1/openapi.json) is built by @fastify/swagger from the routes'
 * TypeBox schemas. This file holds what a route schema cannot say by itself, so that client
 * generators read the document right: the declared tags, the shared error responses (all in the
 * ErrorEnvelope), the security schemes, and the rule that no API route goes undocumented.
 * `npm run lint:openapi` (Redocly recommended, Spectral oas) keeps it at 0 warnings and
 * test/platform/openapi-responses.test.ts holds real responses against it.
 */

/** Every tag an operation may carry, in the order the document lists them. */
export const API_TAGS = [
  { name: 'auth', description: 'Logging in, the current user, passwords' },
  { name: 'workspaces', description: 'Workspaces, switching between them, members' },
  { name: 'invitations', description: 'Membership by consent: invite, accept, decline' },
  { name: 'users', description: 'User administration within the current workspace' },
  { name: 'connections', description: 'Provider connections of the workspace (key stored encrypted, never returned; endpoint, models, test) and which connection writes, sees and draws' },
  { name: 'files', description: 'Stored files behind signed, short-lived links' },
  { name: 'products', description: 'Products and their images' },
  { name: 'benchmarks', description: 'Benchmark notes of a product and their analysis' },
  { name: 'banned-words', description: 'Banned words checked in every generated text' },
  { name: 'tasks', description: 'Production tasks: creation, candidates, events, editing' },
  { name: 'review', description: 'Submitting, approving and rejecting tasks' },
  { name: 'preferences', description: 'Preference signals and scores learnt from selections and reviews' },
  { name: 'delivery', description: 'Delivery packages (zip files) of a task' },
  { name: 'fission', description: 'Fission: several complete note packages from one task' },
  { name: 'webhooks', description: 'Team notifications to Feishu, WeCom, DingTalk or any HTTP receiver (admin)' },
  { name: 'accounts', description: 'The team\'s Xiaohongshu accounts: persona, daily cap, gap between posts, time zone' },
  { name: 'posts', description: 'The calendar: approved notes planned on accounts, due and missed, the phone kit, marking published' },
  { name: 'metrics', description: 'Results of published posts: snapshots by hand or imported from the creator centre, and the analytics overview' },
  { name: 'batches', description: 'Many tasks from one request (a form\'s matrix or a plan file), paced to the provider\'s budget, with their fissions and posts planned' },
] as const;

export type ApiTag = (typeof API_TAGS)[number]['name'];

const declaredTags = new Set<string>(API_TAGS.map((tag) => tag.name));

/** A response reference to the shared error body (documentEveryRoute adds the schema). */
const errorResponse = (description: string) => ({ $ref: 'ErrorEnvelope#', description });

/** What each error status means, whichever route gives it. */
const ERROR_MEANINGS: Record<number, string> = {
  400: 'Invalid input: a parameter, the query or the body breaks the schema or a rule',
  401: 'Credentials missing, invalid or expired',
  403: 'Not allowed: role too low, or the password must be changed first',
  404: 'No such record in the current workspace (a record of another workspace is a 404 as well)',
  409: 'The record is not in a state that allows this',
  410: 'Gone: the file expired',
  413: 'The body or upload is too large',
  415: 'Unsupported media type',
  416: 'Range not satisfiable',
  422: 'Understood but not processable (see the message)',
  429: 'Rate limit exceeded: retry after Retry-After seconds',
  500: 'Internal error (logged with the request id)',
  503: 'The server is shutting down or not ready: retry',
};

/** The error statuses a route can give whatever its own rules: the layers every request passes. */
function sharedErrors(route: RouteOptions): number[] {
  const statuses = [400, 429, 500, 503];
  if (route.config?.access?.auth !== 'public') statuses.push(401, 403);
  if (route.schema?.body || route.schema?.consumes) statuses.push(413, 415);
  return statuses;
}

/**
 * The onRoute hook: refuses at startup an API route without operationId, summary, description and
 * a declared tag, or a multipart route without its documented form, and gives every route the
 * shared error responses, all in the ErrorEnvelope.
 */
export function documentEveryRoute(app: FastifyInstance) {
  app.addSchema(ErrorEnvelope);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(`${API_PREFIX}/`) || route.schema?.hide) return;
    const schema = route.schema ?? {};
    const where = `${String(route.method)} ${route.url}`;
    const missing = (['operationId', 'summary', 'description'] as const).filter((key) => typeof schema[key] !== 'string' || !schema[key]);
    if (missing.length > 0) throw new Error(`route ${where} lacks ${missing.join(', ')} in its schema (see server/src/http/openapi.ts)`);
    if (!schema.tags?.length || !schema.tags.every((tag) => declaredTags.has(tag))) {
      throw new Error(`route ${where} needs tags from API_TAGS (server/src/http/openapi.ts), has ${JSON.stringify(schema.tags ?? [])}`);
    }
    if (schema.consumes?.includes('multipart/form-data') && !route.config?.swaggerTransform) {
      throw new Error(`route ${where} reads a multipart form: document it with config.swaggerTransform = multipartBody(form)`);
    }
    const response: Record<string, unknown> = { ...(schema.response as Record<string, unknown> | undefined) };
    const statuses = new Set([...Object.keys(response).map(Number).filter((status) => status >= 400), ...sharedErrors(route)]);
    for (const status of statuses) response[status] = errorResponse(ERROR_MEANINGS[status] ?? 'Error');
    route.schema = { ...schema, response };
  });
}

/** A response of raw bytes in the given media types (a file, an image, a zip), never re-serialised. */
export function fileResponse(description: string, mediaTypes: readonly string[]) {
  return { description, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: BinaryFile }])) };
}

/**
 * A swaggerTransform (route config) documenting a multipart/form-data body: the route reads the
 * parts itself (http/upload.ts), so the form is described for the document only.
 */
export function multipartBody(form: TSchema): SwaggerTransform {
  return ({ schema, url }) => ({ schema: { ...schema, body: { content: { 'multipart/form-data': { schema: form } } } }, url });
}

/** A swaggerTransform (route config) documenting a query other than the one validated. */
export function documentedQuery(querystring: TSchema): SwaggerTransform {
  return ({ schema, url }) => ({ schema: { ...schema, querystring }, url });
}

type Document = Record<string, any>;

/**
 * A parameter with a default is filled in by the validator (useDefaults), so the client need not
 * send it: the document says so (TypeBox lists it as required, as the handler sees it).
 */
function optionalWhenDefaulted(document: Document): Document {
  for (const item of Object.values(document.paths ?? {}) as Document[]) {
    for (const operation of Object.values(item) as Document[]) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'path' && parameter.schema?.default !== undefined) parameter.required = false;
      }
    }
  }
  return document;
}

/** The @fastify/swagger options: the document's frame; the routes fill in the rest. */
export function openapiOptions(): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Content Production API',
        version: '1.0.0',
        description:
          'Contract content-production-api-v1 with contract-decisions. Every JSON success is `{code: 0, data}`; every error is the ErrorEnvelope `{code, message}`.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'Content production service maintainers' },
      },
      servers: [{ url: '/' }],
      tags: API_TAGS.map((tag) => ({ ...tag })),
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token of POST /auth/login' },
          downloadToken: {
            type: 'apiKey',
            in: 'query',
            name: 'token',
            description: 'A one-time download token of POST /delivery-packages/{id}/download-token (download-file only)',
          },
        },
      },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documents) => optionalWhenDefaulted(('openapiObject' in documents ? documents.openapiObject : documents.swaggerObject) as Document),
  };
}
