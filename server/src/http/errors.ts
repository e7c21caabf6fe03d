import { ERROR_REASONS, FAILURE_REASONS, paramNames, renderReason, type ErrorReason, type FailureReason, type Params, type ParamsArg } from './reasons.js';

/**
 * The error kinds of contract-decisions §2. Every reason of the catalogue (reasons.ts) belongs to
 * one; the error handler answers `{code, message, reason, params}` with the kind's HTTP status.
 */
export const ErrorKinds = {
  validation: { status: 400, code: 40000 },
  credentialsMissing: { status: 401, code: 40100 },
  tokenInvalid: { status: 401, code: 40101 },
  wrongCredentials: { status: 401, code: 40102 },
  forbidden: { status: 403, code: 40300 },
  passwordChangeRequired: { status: 403, code: 40301 },
  notFound: { status: 404, code: 40400 },
  conflict: { status: 409, code: 40900 },
  generationNotFinished: { status: 409, code: 40901 },
  packageNotReady: { status: 409, code: 40902 },
  packageFileAbsent: { status: 409, code: 40903 },
  fissionEmpty: { status: 409, code: 40904 },
  fissionExportRejected: { status: 409, code: 40905 },
  downloadTokenInvalid: { status: 410, code: 41000 },
  payloadTooLarge: { status: 413, code: 41300 },
  unsupportedMediaType: { status: 415, code: 41500 },
  noApiKey: { status: 422, code: 42201 },
  bannedWordBlock: { status: 422, code: 42202 },
  noImageConnection: { status: 422, code: 42203 },
  rateLimited: { status: 429, code: 42900 },
  internal: { status: 500, code: 50000 },
  providerFailed: { status: 502, code: 50200 },
  /** Ours (the contract has no row): a download range outside the file; the code follows the status × 100 rule. */
  rangeNotSatisfiable: { status: 416, code: 41600 },
  /** Ours (the contract has no row): a request that reaches a process while it shuts down. */
  unavailable: { status: 503, code: 50300 },
} as const;

export type ErrorKind = keyof typeof ErrorKinds;

/**
 * An error the API answers: a reason of the catalogue (reasons.ts) with its params. The kind,
 * and so the status and code, come from the reason; the English message is rendered from it.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: number;
  readonly reason: ErrorReason;
  readonly params: Params;
  readonly headers: Record<string, string>;

  constructor(reason: ErrorReason, params: Params = {}, headers: Record<string, string> = {}) {
    super(renderReason(reason, params));
    this.name = 'AppError';
    const kind = ERROR_REASONS[reason].kind;
    this.status = ErrorKinds[kind].status;
    this.code = ErrorKinds[kind].code;
    this.reason = reason;
    this.params = params;
    this.headers = headers;
  }

  /** The error body (contract-decisions §2 plus the reason and its params). */
  body() {
    return { code: this.code, message: this.message, reason: this.reason, params: this.params };
  }
}

/** The error a throw site names: `throw fail('task.not_found')`, `throw fail('product.too_many_images', { max: 9 })`. */
export function fail<R extends ErrorReason>(reason: R, ...[params, headers]: [...ParamsArg<R>, headers?: Record<string, string>]): AppError {
  return new AppError(reason, (params ?? {}) as Params, headers);
}

/** The generated catalogue the console reads (web/src/api/constants.ts): key → code and param names. */
export function reasonCatalogue() {
  return {
    errors: Object.fromEntries(
      (Object.keys(ERROR_REASONS) as ErrorReason[]).map((r) => [r, { code: ErrorKinds[ERROR_REASONS[r].kind].code, params: paramNames(r) }]),
    ),
    failures: Object.fromEntries((Object.keys(FAILURE_REASONS) as FailureReason[]).map((r) => [r, { params: paramNames(r) }])),
  };
}

/** A note part over its limit (contract-decisions §9), refused with 400 naming the field and the limit. */
export function limitError(problem: { field: string; limit: number; actual: number }): AppError {
  const field = `body.${problem.field}`;
  if (problem.field === 'tags') return fail('note.too_many_tags', { field, actual: problem.actual, limit: problem.limit });
  return fail('note.too_long', { field, name: problem.field, actual: problem.actual, limit: problem.limit });
}
