import type { ProviderErrorKind, ProviderSituation } from './types.js';

/**
 * A provider's refusal read from its documented error body, not its status alone: Zhipu reports
 * an empty balance (1113) as HTTP 429, OpenAI an exhausted quota as 429 `insufficient_quota`,
 * DashScope arrears as 400 `Arrearage`, Ark as 403 `AccountOverdueError`; moderation arrives as
 * 400 under a different code at every provider. Sources per provider: docs/providers.md.
 */
export interface FailureReading {
  kind: ProviderErrorKind;
  retryable: boolean;
  /** The request was refused for its `response_format` (a relay or model without json_schema / json_object). */
  refusedResponseFormat: boolean;
  /** What to do, where the kind alone would mislead (a region refusal is not a wrong key). */
  advice?: string;
  /** The same, as a key the console words (a stored failure's `situation` param). */
  situation?: ProviderSituation;
  /** The request was refused for this parameter: a connection whose option is `auto` may ask again without it. */
  refusedParam?: RefusedParam;
}

export type RefusedParam = 'max_tokens' | 'max_completion_tokens' | 'temperature';

/**
 * OpenAI's reasoning models: "Unsupported parameter: 'max_tokens' … Use 'max_completion_tokens'
 * instead" and "Unsupported value: 'temperature' does not support 0.2"; older relays:
 * "Unrecognized request argument supplied: max_completion_tokens".
 */
function refusedParamOf(param: string, message: string): RefusedParam | undefined {
  const names = ['max_tokens', 'max_completion_tokens', 'temperature'] as const;
  const byParam = names.find((name) => name === param);
  if (byParam) return byParam;
  // The refused name comes first in every wording seen ("… 'max_tokens' … Use 'max_completion_tokens' instead").
  return names.find((name) =>
    new RegExp(`(Unsupported (parameter|value)|Unrecognized request argument( supplied)?|unknown (parameter|field))\\W{0,4}'?${name}\\b|'${name}' (is not supported|does not support)`, 'i').test(message),
  );
}

/** Advice for the log and the English message; the console words the `situation` instead. */
export const REGION_ADVICE = "the provider refuses requests from this server's country or region: use a relay or another provider";
export const CONTEXT_ADVICE = "the request is longer than the model's context window: choose a model with a larger context or shorten the product's texts";

/** The fields providers put their error in: `{error: {code, type, message, param}}` or `{code, message}`. */
export function errorFields(body: unknown): { code: string; type: string; message: string; param: string } {
  const root = (typeof body === 'object' && body !== null ? body : {}) as Record<string, any>;
  const inner = typeof root.error === 'object' && root.error !== null ? (root.error as Record<string, any>) : root;
  const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  return {
    code: text(inner.code) || text(root.code),
    type: text(inner.type),
    message: text(inner.message) || text(root.message) || (typeof root.error === 'string' ? root.error : ''),
    param: text(inner.param),
  };
}

const BALANCE = /Arrearage|AccountOverdue|insufficient_quota|exceeded_current_quota|insufficient[_ ]balance|balance is insufficient|余额不足|欠费/i;
const BLOCKED =
  /Content Exists Risk|moderation_blocked|content_policy_violation|content_filter|DataInspectionFailed|data_inspection_failed|SensitiveContentDetected|RiskDetection|considered high risk|不安全或敏感/i;
const AUTH = /invalid_api_key|InvalidApiKey|AuthenticationError|invalid_authentication|Incorrect API key|API key.*(invalid|missing)/i;
const MODEL = /Model Not Exist|model_not_found|ModelNotFound|ModelNotOpen|InvalidEndpointOrModel|resource_not_found|Model does not exist|model .{0,80}does not exist|模型不存在/i;
// OpenAI answers 403 unsupported_country_region_territory from a country it does not serve.
const REGION = /unsupported_country_region_territory|country, region,? or territory (is )?not supported/i;
// DeepSeek and OpenAI ("maximum context length"), DashScope ("Range of input length"), Ark, Zhipu.
const CONTEXT = /context_length_exceeded|maximum context length|context window|Range of input length|input length.{0,40}exceed|prompt is too long|上下文.{0,8}(超|过长)/i;
const RATE = /Throttling|rate[_ ]limit|RateLimitExceeded|ServerOverloaded|too many requests/i;

const ZHIPU_AUTH = new Set(['1000', '1001', '1002', '1003', '1004']);
const ZHIPU_RATE = new Set(['1302', '1303', '1304', '1305', '1312']);

export function readFailure(status: number, body: unknown): FailureReading {
  const { code, type, message, param } = errorFields(body);
  const text = `${code} ${type} ${message}`;
  const final = (kind: ProviderErrorKind): FailureReading => ({ kind, retryable: false, refusedResponseFormat: false });
  const again = (kind: ProviderErrorKind): FailureReading => ({ kind, retryable: true, refusedResponseFormat: false });

  // Balance before rate limits and auth: these arrive as 402, 403, 400 and 429 alike.
  if (status === 402 || code === '1113' || code === '30001' || BALANCE.test(text)) return final('insufficient_balance');
  if (code === '1301' || BLOCKED.test(text)) return final('content_blocked');
  if (REGION.test(text)) return { ...final('unsupported'), advice: REGION_ADVICE, situation: 'region' };
  if (status === 401 || ZHIPU_AUTH.has(code) || AUTH.test(text)) return final('auth');
  if (code === '1211' || code === '20012' || MODEL.test(text) || (status === 404 && /model|endpoint/i.test(text))) return final('model_not_found');
  if ((status === 400 || status === 413 || status === 422) && CONTEXT.test(text)) return { ...final('unsupported'), advice: CONTEXT_ADVICE, situation: 'context' };
  if (status === 429 || ZHIPU_RATE.has(code) || RATE.test(text)) return again('rate_limited');
  if (status === 403) return final('auth');
  if (status === 408) return again('timeout');
  if (status >= 500) return again('unavailable');
  if ((status === 400 || status === 422) && (param === 'response_format' || /response_format|json_schema|json_object/i.test(message))) {
    return { kind: 'unsupported', retryable: false, refusedResponseFormat: true };
  }
  const refusedParam = status === 400 || status === 422 ? refusedParamOf(param, message) : undefined;
  if (refusedParam) return { ...final('unsupported'), refusedParam };
  return final('unsupported');
}
