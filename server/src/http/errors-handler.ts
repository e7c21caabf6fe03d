import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorKinds, type ErrorKind } from './errors.js';

/** Fastify's and its plugins' own error codes, mapped onto the contract's kinds. */
const FRAMEWORK_ERRORS: Record<string, ErrorKind> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'validation',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'validation',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payloadTooLarge',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupportedMediaType',
  FST_ERR_CTP_INVALID_TYPE: 'unsupportedMediaType',
  FST_REQ_FILE_TOO_LARGE: 'payloadTooLarge',
  FST_PARTS_LIMIT: 'payloadTooLarge',
  FST_FILES_LIMIT: 'payloadTooLarge',
  FST_FIELDS_LIMIT: 'payloadTooLarge',
  FST_PROTO_VIOLATION: 'validation',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'unsupportedMediaType',
  FST_ERR_VALIDATION: 'validation',
  FST_ERR_BAD_URL: 'validation',
};

function describeFrameworkError(kind: ErrorKind, error: FastifyError, request: FastifyRequest): string {
  switch (kind) {
    case 'payloadTooLarge':
      return 'request body too large';
    case 'unsupportedMediaType': {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().slice(0, 100);
      return `unsupported content type "${type}" for this route`;
    }
    default:
      return error.message.replace(/^body\//, 'body.').slice(0, 500);
  }
}

type ValidationIssue = NonNullable<FastifyError['validation']>[number];

/**
 * One readable sentence naming the field: `body.password is required`, `body.role must be one
 * of admin, supervisor, operator`, `querystring.page_size must be >= 1`.
 */
function describeValidation(context: string, issues: ValidationIssue[]): string {
  const first = issues[0];
  if (!first) return `${context} is invalid`;
  const field = `${context}${first.instancePath.replaceAll('/', '.')}`;
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'required') return `${field}.${String(params.missingProperty)} is required`;
  // A union of literals fails once per branch: list what would have been accepted.
  const allowed = issues
    .filter((i) => i.instancePath === first.instancePath && i.keyword === 'const')
    .map((i) => String((i.params as Record<string, unknown>).allowedValue));
  if (first.keyword === 'enum') allowed.push(...((params.allowedValues as unknown[]) ?? []).map(String));
  if (allowed.length > 0) return `${field} must be one of ${allowed.join(', ')}`;
  return `${field} ${first.message ?? 'is invalid'}`;
}

export function sendError(reply: FastifyReply, kind: ErrorKind, message: string, headers: Record<string, string> = {}) {
  const { status, code } = ErrorKinds[kind];
  return reply.code(status).headers(headers).send({ code, message });
}

export function installErrorHandlers(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      return reply.code(error.status).headers(error.headers).send({ code: error.code, message: error.message });
    }
    if ((error as FastifyError).validation) {
      const fastifyError = error as FastifyError;
      return sendError(reply, 'validation', describeValidation(fastifyError.validationContext ?? 'request', fastifyError.validation ?? []));
    }
    const kind = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
    if (kind) return sendError(reply, kind, describeFrameworkError(kind, error as FastifyError, request));
    const status = (error as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      // Other client errors raised by Fastify or a plugin: keep the status, wrap it in the envelope.
      const mapped = (Object.keys(ErrorKinds) as ErrorKind[]).find((k) => ErrorKinds[k].status === status);
      return reply.code(status).send({ code: mapped ? ErrorKinds[mapped].code : status * 100, message: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 'internal', 'internal error; the request id is ' + request.id);
  });
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request headers or URL too large (limit 16 KB)'],
};

/**
 * Requests Node's parser refuses before Fastify sees them (malformed HTTP, oversized headers or
 * URL, timeouts) still get the error envelope, with code 40000: the request itself is invalid.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad Request', 'malformed HTTP request'];
  const body = JSON.stringify({ code: ErrorKinds.validation.code, message });
  if (!socket.writable) {
    socket.destroy(err);
    return;
  }
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  // Read and drop what the client is still sending (a body behind oversized headers): closing
  // with unread data would reset the connection before the client reads the answer.
  socket.resume();
  setTimeout(() => socket.destroy(), 5_000).unref();
}
