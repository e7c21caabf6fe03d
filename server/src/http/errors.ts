/**
 * The error kinds of contract-decisions §2. Services throw these; the error handler turns them
 * into `{code, message}` with the matching HTTP status.
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
  /** Ours (the contract has no row): a request that reaches a process while it shuts down. */
  unavailable: { status: 503, code: 50300 },
} as const;

export type ErrorKind = keyof typeof ErrorKinds;

export class AppError extends Error {
  readonly status: number;
  readonly code: number;
  readonly headers: Record<string, string>;

  constructor(kind: ErrorKind, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.status = ErrorKinds[kind].status;
    this.code = ErrorKinds[kind].code;
    this.headers = headers;
  }
}

export const badRequest = (message: string) => new AppError('validation', message);
export const notFound = (what: string) => new AppError('notFound', `${what} not found`);
export const forbidden = (message = 'your role does not allow this operation') => new AppError('forbidden', message);
export const conflict = (message: string) => new AppError('conflict', message);
