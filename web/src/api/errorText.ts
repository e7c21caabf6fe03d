/**
 * Server errors worded in the interface language. The server's `message` is English for
 * developers and API users; the console words what it shows from the error `code` (contract-
 * decisions §2) and, where one code covers several situations a user meets, from the shape of
 * the message (the server's own stable wording), keeping the data it carries (words, names).
 */
import type { TFunction } from 'i18next';

interface Rule {
  test: RegExp;
  key: string;
  values?: (m: RegExpMatchArray) => Record<string, string>;
}

const RULES: Rule[] = [
  { test: /^current_password is wrong/, key: 'apiError.wrongCurrentPassword' },
  { test: /^new_password must differ/, key: 'apiError.samePassword' },
  { test: /too many failed logins.* in (\d+) min/, key: 'apiError.loginLocked', values: (m) => ({ minutes: m[1]! }) },
  { test: /rate limit .* retry in (\d+) s/, key: 'apiError.rateLimited', values: (m) => ({ seconds: m[1]! }) },
  { test: /^too many logins in progress/, key: 'apiError.loginBusy' },
  { test: /(?:hard_block\) found|hard-blocked words): (.+)$/, key: 'apiError.hardBlock', values: (m) => ({ words: m[1]!.split(', ').join('、') }) },
  { test: /contains hard-blocked words and cannot be selected/, key: 'apiError.blockedSelect' },
  { test: /^this username is not available/, key: 'apiError.usernameTaken' },
  { test: /^a workspace with slug "(.+)" already exists/, key: 'apiError.slugTaken', values: (m) => ({ slug: m[1]! }) },
  { test: /^banned word "(.+)" already exists/, key: 'apiError.wordExists', values: (m) => ({ word: m[1]! }) },
  { test: /must keep at least one (active )?admin/, key: 'apiError.lastAdmin' },
  { test: /^select at least one text candidate/, key: 'apiError.selectFirst' },
  { test: /^the product has production tasks/, key: 'apiError.productInUse' },
  { test: /^a product holds at most (\d+) images/, key: 'apiError.tooManyImages', values: (m) => ({ max: m[1]! }) },
  { test: /^the source task has no text yet/, key: 'apiError.fissionNoText' },
  { test: /^the fission is still generating/, key: 'apiError.fissionRunning' },
  { test: /^this benchmark is being analysed/, key: 'apiError.benchmarkBusy' },
  { test: /pending invitations: revoke some first/, key: 'apiError.tooManyInvitations' },
  { test: /^this invitation (is|was answered)/, key: 'apiError.invitationSettled' },
  { test: /^nothing to package/, key: 'apiError.nothingToPackage' },
  { test: /^the task changed meanwhile/, key: 'apiError.changedMeanwhile' },
  { test: /is not accepted while the task is (\w+)/, key: 'apiError.taskState', values: (m) => ({ status: m[1]! }) },
  { test: /^(?:body\.)?(\w+) must not be blank/, key: 'apiError.blank', values: (m) => ({ field: m[1]! }) },
  { test: /must be an http or https URL/, key: 'apiError.badUrl' },
  { test: /^api_key is too short/, key: 'apiError.keyTooShort' },
  { test: /^changing base_url needs api_key again/, key: 'apiError.keyForNewUrl' },
  { test: /^the stored api_key cannot be used for this connection/, key: 'apiError.keyDoesNotOpen' },
  { test: /^body\.url: .*only public http\(s\) addresses/, key: 'apiError.webhookUrl' },
  { test: /WeCom group robot has no signing secret/, key: 'apiError.wecomSecret' },
];

/** Codes of contract-decisions §2 that have their own text (the others fall back to their HTTP class). */
const CODES = [40000, 40100, 40101, 40102, 40300, 40301, 40400, 40900, 40901, 40902, 40903, 40904, 40905, 41000, 41300, 41500, 42201, 42202, 42900, 50000, 50200, 50300];

export function wordServerError(t: TFunction, status: number, code: number, message: string): string {
  for (const rule of RULES) {
    const m = rule.test.exec(message);
    if (!m) continue;
    const values = rule.values?.(m) ?? {};
    if (values.status) values.status = t(`taskStatus.${values.status}`, { defaultValue: values.status });
    if (values.field) values.field = t(`apiError.fields.${values.field}`, { defaultValue: values.field });
    return t(rule.key, values);
  }
  // A provider failure says what to fix, from the advice the server put in its message.
  if (code === 50200) return t('apiError.provider', { cause: cause(t, message) });
  if (CODES.includes(code)) return t(`apiError.code.${code}`);
  return t('error.http', { status });
}

/** The provider failure kinds (contract-decisions §7), recognised by the advice the server adds to each. */
const PROVIDER_ADVICE: Array<[RegExp, string]> = [
  [/the key was refused/, 'auth'],
  [/the account has no balance left/, 'insufficient_balance'],
  [/moderation blocked/, 'content_blocked'],
  [/the model does not exist/, 'model_not_found'],
  [/rate limit was hit/, 'rate_limited'],
  [/the provider refused the request|has no (text|vision|image) model/, 'unsupported'],
  [/no answer in time|did not finish in time/, 'timeout'],
  [/the provider is unreachable or failing/, 'unavailable'],
  [/was cut off by its output budget|reached its output budget/, 'truncated'],
  [/the reply was not usable|does not fit the|answered without/, 'bad_output'],
  [/no connection (that writes text|draws images)/, 'no_connection'],
];

/**
 * Situations one kind covers where the fix differs, told apart by the server's stable advice
 * (server/src/providers/errors.ts, openai-compatible.ts): a region refusal is `unsupported` but
 * needs a relay, not a model change; a budget spent on thinking is `truncated` but needs thinking off.
 */
const PROVIDER_SITUATIONS: Array<[RegExp, string]> = [
  [/refuses requests from this server's country or region/, 'region'],
  [/longer than the model's context window/, 'context'],
  [/thinking used the whole budget/, 'thinking'],
];

/** Why a provider call failed, in words: by its kind when known (fission images carry it), else by the server's advice. */
export function cause(t: TFunction, detail: string, kind?: string | null): string {
  const found = PROVIDER_SITUATIONS.find(([test]) => test.test(detail))?.[1] ?? kind ?? PROVIDER_ADVICE.find(([test]) => test.test(detail))?.[1];
  return t(`failure.kind.${found ?? 'other'}`, { defaultValue: t('failure.kind.other') });
}

/**
 * A failure the server records in English (a task's `failure_reason`, a stream `error` event, a
 * package's `error`, a fission image's `error`) worded in the interface language: what failed
 * (a set's texts, an image, the whole run, a package) and why (the provider failure kind).
 */
export function wordFailure(t: TFunction, message: string, kind?: string | null): string {
  let m: RegExpExecArray | null;
  if ((m = /^texts of set (\w+) failed: (.*)$/s.exec(message))) return t('failure.textSet', { set: m[1], cause: cause(t, m[2]!, kind) });
  if ((m = /^image (\w)(\d+) \((\w+)\) failed: (.*)$/s.exec(message))) return t('failure.image', { set: m[1], seq: m[2], cause: cause(t, m[4]!, kind) });
  if ((m = /^(\w+) image failed: (.*)$/s.exec(message))) return t('failure.noteImage', { cause: cause(t, m[2]!, kind) });
  if ((m = /^retry failed: (.*)$/s.exec(message))) return t('failure.retry', { cause: cause(t, m[1]!, kind) });
  if ((m = /^partly done: (.*); the rest is ready/s.exec(message))) {
    const texts = /(\d+) of (\d+) text sets failed/.exec(m[1]!);
    const images = /(\d+) of (\d+) images failed/.exec(m[1]!);
    const parts = [
      ...(texts ? [t('failure.partlyTexts', { failed: texts[1], total: texts[2] })] : []),
      ...(images ? [t('failure.partlyImages', { failed: images[1], total: images[2] })] : []),
    ];
    return t('failure.partly', { parts: parts.join(t('failure.separator')) });
  }
  if ((m = /^nothing usable was produced: (.*)$/s.exec(message))) return t('failure.nothing', { cause: cause(t, m[1]!, kind) });
  if (/^the package could not be built/.test(message)) return t('failure.package');
  if (/^the build could not be queued/.test(message)) return t('failure.packageQueue');
  return t('failure.other', { cause: cause(t, message, kind) });
}
