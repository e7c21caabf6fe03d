/**
 * Server errors and stored failures worded in the interface language, from their reason key and
 * params (server: http/reasons.ts, generated into constants.ts). The server's `message` is
 * English for developers and API users; nothing here reads it: a reason the client has no words
 * for falls back to the words of its `code`, then of its HTTP status.
 */
import type { TFunction } from 'i18next';
import { ERROR_CODES, ERROR_REASONS, FAILURE_REASONS } from './constants';

export type ReasonParams = Record<string, unknown>;

/** A stored failure as the API gives it: the reason key and params beside the English text. */
export interface StoredFailure {
  key?: string | null;
  params?: ReasonParams | null;
  /** The provider failure kind (contract-decisions §7), where the row carries it apart from params. */
  kind?: string | null;
}

const isErrorReason = (key: string): key is keyof typeof ERROR_REASONS => Object.hasOwn(ERROR_REASONS, key);
const isFailureReason = (key: string): key is keyof typeof FAILURE_REASONS => Object.hasOwn(FAILURE_REASONS, key);

/** Why a provider call failed, in words: its situation (region, context, thinking) where known, else its kind. */
export function cause(t: TFunction, kind?: string | null, situation?: string | null): string {
  const found = situation ?? kind;
  return t(`failure.kind.${found ?? 'other'}`, { defaultValue: t('failure.kind.other') });
}

/** Where a reason's `status` (and `allowed` statuses) are a post's (§11), not a task's. */
const POST_STATUS_REASON = /^(post|results)\./;

/** The params as the wording shows them: fields, statuses, lists and provider kinds in the interface language. */
function wordedParams(t: TFunction, params: ReasonParams | null | undefined, kind?: string | null, reason?: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  const postStatuses = reason !== undefined && POST_STATUS_REASON.test(reason);
  const statusWord = (value: string) =>
    postStatuses ? t(`publishing.status.${value}`, { defaultValue: value }) : t(`taskStatus.${value}`, { defaultValue: value });
  for (const [name, value] of Object.entries(params ?? {})) {
    if (Array.isArray(value)) out[name] = value.map((v) => (name === 'allowed' && typeof v === 'string' ? statusWord(v) : String(v))).join(t('failure.listSeparator'));
    else if (typeof value === 'number' || typeof value === 'string') out[name] = value;
  }
  if (typeof out.field === 'string') {
    // `body.theme`, `querystring.page_size`, `body.items/3/word`: the last name, worded where the console knows it.
    const name = out.field.split(/[./]/).filter((p) => p && !/^\d+$/.test(p)).pop() ?? out.field;
    out.field = t(`apiError.fields.${name}`, { defaultValue: name });
  }
  if (typeof out.status === 'string') out.status = statusWord(out.status);
  // A reason that carries another's key (a batch item's, a refused post's): that one in words too.
  if (typeof params?.reason === 'string' && /^[a-z_]+\.[a-z_.]+$/.test(params.reason)) out.reason = wordReason(t, params.reason, isRecord(params.params) ? params.params : {});
  const errorKind = typeof params?.error_kind === 'string' ? params.error_kind : kind;
  const situation = typeof params?.situation === 'string' ? params.situation : null;
  out.cause =
    typeof params?.because === 'string' && isFailureReason(params.because) ? t(`reason.${params.because}`, wordedParams(t, {})) : cause(t, errorKind, situation);
  return out;
}

const isRecord = (value: unknown): value is ReasonParams => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Any reason key the console has words for (an error body's, a stored failure's, a plan row's),
 * with its params; a key it has no words for reads as the generic failure.
 */
export function wordReason(t: TFunction, key: string, params?: ReasonParams | null): string {
  if (isFailureReason(key)) return wordFailure(t, { key, params });
  return t(`reason.${key}`, { ...wordedParams(t, params, undefined, key), defaultValue: t('reason.failure.other', { cause: cause(t) }) });
}

/** An error answer in words: by its reason, else by its code, else by its HTTP status. */
export function wordServerError(t: TFunction, status: number, code: number, reason?: string | null, params?: ReasonParams | null): string {
  if (reason && isErrorReason(reason)) return t(`reason.${reason}`, wordedParams(t, params, undefined, reason));
  if ((ERROR_CODES as readonly number[]).includes(code)) return t(`apiError.code.${code}`);
  return t('error.http', { status });
}

/**
 * A failure the server recorded (a task's `failure_key`, a stream `error` event's `reason`, a
 * package's, fission's or image's `error_key`) in words: what failed and why (the provider kind).
 */
export function wordFailure(t: TFunction, failure: StoredFailure): string {
  const { key, params, kind } = failure;
  if (key && isFailureReason(key)) {
    const values = wordedParams(t, params, kind);
    if (key === 'failure.partly') {
      const parts = [
        ...(params?.texts_failed ? [t('failure.partlyTexts', { failed: params.texts_failed, total: params.texts_total })] : []),
        ...(params?.images_failed ? [t('failure.partlyImages', { failed: params.images_failed, total: params.images_total })] : []),
      ];
      values.parts = parts.join(t('failure.separator'));
    }
    return t(`reason.${key}`, values);
  }
  return t('reason.failure.other', { cause: cause(t, kind) });
}
