import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorKinds, fail, type ErrorKind } from './errors.js';
import { renderReason, type ErrorReason, type Params } from './reasons.js';

/** Fastify's and its plugins' own error codes, mapped onto reasons of the catalogue. */
const FRAMEWORK_ERRORS: Record<string, ErrorReason> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'request.malformed',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'request.malformed',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'request.malformed',
  FST_ERR_CTP_BODY_TOO_LARGE: 'request.too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'request.media_type',
  FST_ERR_CTP_INVALID_TYPE: 'request.media_type',
  FST_REQ_FILE_TOO_LARGE: 'request.too_large',
  FST_PARTS_LIMIT: 'request.too_large',
  FST_FILES_LIMIT: 'request.too_large',
  FST_FIELDS_LIMIT: 'request.too_large',
  FST_PROTO_VIOLATION: 'request.malformed',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'request.media_type',
  FST_ERR_VALIDATION: 'request.malformed',
  FST_ERR_BAD_URL: 'request.malformed',
};

function frameworkError(reason: ErrorReason, error: FastifyError, request: FastifyRequest): AppError {
  switch (reason) {
    case 'request.too_large':
      return fail(reason);
    case 'request.media_type':
      return fail(reason, { type: (request.headers['content-type'] ?? '').split(';')[0]!.trim().slice(0, 100) });
    default:
      return fail('request.malformed', { detail: error.message.replace(/^body\//, 'body.').slice(0, 500) });
  }
}

type ValidationIssue = NonNullable<FastifyError['validation']>[number];

/** Ajv keywords with a reason of their own, and the params that reason takes from the issue. */
const KEYWORD_REASONS: Record<string, (p: Record<string, unknown>) => AppErrorArgs> = {
  type: (p) => ['validation.type', { type: String(p.type) }],
  format: (p) => ['validation.format', { format: String(p.format) }],
  pattern: (p) => ['validation.pattern', { pattern: String(p.pattern) }],
  minimum: (p) => ['validation.minimum', { comparison: String(p.comparison), limit: Number(p.limit) }],
  exclusiveMinimum: (p) => ['validation.minimum', { comparison: String(p.comparison), limit: Number(p.limit) }],
  maximum: (p) => ['validation.maximum', { comparison: String(p.comparison), limit: Number(p.limit) }],
  exclusiveMaximum: (p) => ['validation.maximum', { comparison: String(p.comparison), limit: Number(p.limit) }],
  minLength: (p) => ['validation.min_length', { limit: Number(p.limit) }],
  maxLength: (p) => ['validation.max_length', { limit: Number(p.limit) }],
  minItems: (p) => ['validation.min_items', { limit: Number(p.limit) }],
  maxItems: (p) => ['validation.max_items', { limit: Number(p.limit) }],
  additionalProperties: () => ['validation.unknown_property', {}],
};
type AppErrorArgs = [ErrorReason, Params];

/**
 * One reason naming the field: `body.password is required` (validation.required), `body.role
 * must be one of admin, supervisor, operator` (validation.one_of), `querystring.page_size must be
 * >= 1` (validation.minimum). The English message is the catalogue's, which mirrors Ajv's own.
 */
export function validationError(context: string, issues: ValidationIssue[]): AppError {
  const first = issues[0];
  if (!first) return fail('validation.invalid', { field: context, detail: 'is invalid' });
  const field = `${context}${first.instancePath.replaceAll('/', '.')}`;
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'required') return fail('validation.required', { field: `${field}.${String(params.missingProperty)}` });
  // A union of literals fails once per branch: list what would have been accepted.
  const allowed = issues
    .filter((i) => i.instancePath === first.instancePath && i.keyword === 'const')
    .map((i) => String((i.params as Record<string, unknown>).allowedValue));
  if (first.keyword === 'enum') allowed.push(...((params.allowedValues as unknown[]) ?? []).map(String));
  if (allowed.length > 0) return fail('validation.one_of', { field, allowed });
  const known = KEYWORD_REASONS[first.keyword]?.(params);
  if (known) {
    const error = new AppError(known[0], { field, ...known[1] });
    // The catalogue's sentence must be Ajv's (a keyword worded differently keeps Ajv's words).
    if (first.message === undefined || error.message === `${field} ${first.message}`) return error;
  }
  return fail('validation.invalid', { field, detail: first.message ?? 'is invalid' });
}

export function sendError(reply: FastifyReply, error: AppError) {
  return reply.code(error.status).headers(error.headers).send(error.body());
}

export function installErrorHandlers(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) return sendError(reply, error);
    if ((error as FastifyError).validation) {
      const fastifyError = error as FastifyError;
      return sendError(reply, validationError(fastifyError.validationContext ?? 'request', fastifyError.validation ?? []));
    }
    const reason = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
    if (reason) return sendError(reply, frameworkError(reason, error as FastifyError, request));
    const status = (error as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      // Other client errors raised by Fastify or a plugin: keep the status, wrap it in the envelope.
      const mapped = (Object.keys(ErrorKinds) as ErrorKind[]).find((k) => ErrorKinds[k].status === status);
      const refused = fail('request.refused', { detail: error.message });
      return reply.code(status).send({ ...refused.body(), code: mapped ? ErrorKinds[mapped].code : status * 100 });
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, fail('server.internal', { request_id: request.id }));
  });
}

const CLIENT_ERRORS: Record<string, [number, string, ErrorReason]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request.timeout'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request.headers_too_large'],
};

/**
 * Requests Node's parser refuses before Fastify sees them (malformed HTTP, oversized headers or
 * URL, timeouts) still get the error envelope, with code 40000: the request itself is invalid.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, statusText, reason] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad Request', 'request.malformed_http'];
  const body = JSON.stringify({ code: ErrorKinds.validation.code, message: renderReason(reason), reason, params: {} });
  if (!socket.writable) {
    socket.destroy(err);
    return;
  }
  socket.end(`HTTP/1.1 ${status} ${statusText}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  // Read and drop what the client is still sending (a body behind oversized headers): closing
  // with unread data would reset the connection before the client reads the answer.
  socket.resume();
  setTimeout(() => socket.destroy(), 5_000).unref();
}
