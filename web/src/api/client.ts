/**
 * The one door to the API: adds the bearer token, unwraps the `{code, data}` envelope and turns
 * every failure into an ApiError carrying the envelope's `code`, `message`, `reason` and
 * `params`; screens show `errorMessage(error)`, worded from the reason in the interface language,
 * never a stack, an English server sentence or `[object Object]`.
 */
import createClient from 'openapi-fetch';
import i18n from '../i18n';
import { wordServerError } from './errorText';
import type { paths } from './schema';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    /** The reason key of the error body (server: http/reasons.ts) and its params; absent when the answer had none. */
    readonly reason: string | null = null,
    readonly params: Record<string, unknown> | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** What the console shows for a failure: worded in the interface language by its reason, else its code (errorText.ts). */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.code === 0 ? error.message : wordServerError(i18n.t, error.status, error.code, error.reason, error.params);
  return i18n.t('error.unexpected');
}

const TOKEN_KEY = 'cps.token';

/** API origin; empty = same origin (the server serves the client). Tests point it at their server. */
let apiBase = (import.meta.env.VITE_API_BASE as string | undefined) ?? '';
export function setApiBase(base: string) {
  apiBase = base;
  http = createHttp();
}
export function apiUrl(path: string): string {
  return `${apiBase}/api/v1${path}`;
}

type SessionListener = (reason: 'expired' | 'password-change') => void;
let sessionListener: SessionListener | undefined;
/** The app shell listens: an expired token sends the user to the login page, 40301 to the password page. */
export function onSessionProblem(listener: SessionListener) {
  sessionListener = listener;
}

export const tokenStore = {
  get: (): string | null => localStorage.getItem(TOKEN_KEY),
  set: (token: string) => localStorage.setItem(TOKEN_KEY, token),
  clear: () => localStorage.removeItem(TOKEN_KEY),
};

/** The request with the session's bearer token; a failure becomes an ApiError (network, or the envelope). */
async function authorizedFetch(request: Request): Promise<Response> {
  const token = tokenStore.get();
  if (token) request.headers.set('authorization', `Bearer ${token}`);
  let res: Response;
  try {
    res = await fetch(request);
  } catch {
    throw new ApiError(0, 0, i18n.t('error.network'));
  }
  if (!res.ok) throw await toApiError(res, Boolean(token));
  return res;
}

function createHttp() {
  // A Request needs an absolute URL outside the browser too (tests); same origin by default.
  return createClient<paths>({ baseUrl: apiBase || globalThis.location?.origin || '', fetch: authorizedFetch });
}

/**
 * The typed client (openapi-fetch over the generated schema.d.ts): paths, parameters, bodies and
 * answers are the server's OpenAPI document's, checked by `npm run typecheck`.
 */
export let http = createHttp();

/** `data` of a `{code: 0, data}` answer (failures were thrown as ApiError by authorizedFetch). */
export async function dataOf<T>(call: Promise<{ data?: { code: 0; data: T }; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (!data || data.code !== 0) throw new ApiError(response.status, 50000, i18n.t('error.unexpected'));
  return data.data;
}

/** A multipart form from a typed body: text fields first, then the files (the server reads them in that order). */
export function formData(body: unknown): FormData {
  const form = new FormData();
  const entries = Object.entries(body as Record<string, string | Blob | undefined>).filter(
    (entry): entry is [string, string | Blob] => entry[1] !== undefined,
  );
  for (const [name, value] of entries) if (!(value instanceof Blob)) form.append(name, value);
  for (const [name, value] of entries) if (value instanceof Blob) form.append(name, value);
  return form;
}

async function toApiError(res: Response, hadToken: boolean): Promise<ApiError> {
  let envelope: { code?: unknown; message?: unknown; reason?: unknown; params?: unknown } | undefined;
  try {
    envelope = (await res.json()) as typeof envelope;
  } catch {
    // not JSON (a proxy error page): fall through to the generic text
  }
  const code = typeof envelope?.code === 'number' ? envelope.code : res.status * 100;
  const message =
    typeof envelope?.message === 'string' && envelope.message ? envelope.message : i18n.t('error.http', { status: res.status });
  if (res.status === 401 && hadToken) sessionListener?.('expired');
  if (code === 40301) sessionListener?.('password-change');
  const reason = typeof envelope?.reason === 'string' ? envelope.reason : null;
  const params = typeof envelope?.params === 'object' && envelope.params !== null ? (envelope.params as Record<string, unknown>) : null;
  return new ApiError(res.status, code, message, reason, params);
}
