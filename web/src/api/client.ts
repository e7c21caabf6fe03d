/**
 * The one door to the API: adds the bearer token, unwraps the `{code, data}` envelope and turns
 * every failure into an ApiError carrying the envelope's `code` and `message`; screens show
 * `errorMessage(error)`, worded by code in the interface language, never a stack, an English
 * server sentence or `[object Object]`.
 */
import i18n from '../i18n';
import { wordServerError } from './errorText';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** What the console shows for a failure: worded in the interface language by its code (errorText.ts). */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.code === 0 ? error.message : wordServerError(i18n.t, error.status, error.code, error.message);
  return i18n.t('error.unexpected');
}

const TOKEN_KEY = 'cps.token';

/** API origin; empty = same origin (the server serves the client). Tests point it at their server. */
let apiBase = (import.meta.env.VITE_API_BASE as string | undefined) ?? '';
export function setApiBase(base: string) {
  apiBase = base;
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

export type Query = Record<string, string | number | boolean | undefined | null>;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  form?: FormData;
}

/** Sends a request with the session's bearer token; returns the raw Response (for files). */
export async function send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  const token = tokenStore.get();
  if (token) headers.authorization = `Bearer ${token}`;
  let body: BodyInit | undefined;
  if (opts.form) body = opts.form;
  else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(apiUrl(withQuery(path, opts.query)), { method, headers, body });
  } catch {
    throw new ApiError(0, 0, i18n.t('error.network'));
  }
  if (!res.ok) throw await toApiError(res, Boolean(token));
  return res;
}

async function toApiError(res: Response, hadToken: boolean): Promise<ApiError> {
  let envelope: { code?: unknown; message?: unknown } | undefined;
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
  return new ApiError(res.status, code, message);
}

export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await send(method, path, opts);
  const envelope = (await res.json().catch(() => undefined)) as { code: number; data: T; message?: string } | undefined;
  if (!envelope || envelope.code !== 0) {
    throw new ApiError(res.status, envelope?.code ?? 50000, envelope?.message ?? i18n.t('error.unexpected'));
  }
  return envelope.data;
}
