import type { ProviderErrorKind, ProviderSituation } from '../providers/types.js';
import type { FailureReason, Params } from './reasons.js';

/**
 * Stored failures in Chinese: one wording for the console's zh-CN (generated into the web
 * client's constants, npm run gen:api -w web) and for what the service writes itself in Chinese
 * (bot messages, contract-decisions §10). Holes are i18next's `{{name}}`; `cause` is why a
 * provider call failed, `parts` what of a partly done task failed.
 */
export const FAILURE_WORDS_ZH = {
  text_set: '{{set}} 组文案生成失败：{{cause}}',
  image: '图片 {{set}}{{seq}} 生成失败：{{cause}}',
  note_image: '图片生成失败：{{cause}}',
  retry: '重试失败：{{cause}}',
  partly: '部分完成（{{parts}}），其余内容已就绪',
  nothing: '没有生成可用的内容：{{cause}}',
  fission_call: '裂变生成失败：{{cause}}',
  task_no_text_connection: '没有能写文案的 AI 服务连接：请先在“AI 服务连接”中添加，再重新生成',
  fission_no_text_connection: '没有能写文案的 AI 服务连接：请先在“AI 服务连接”中添加，再重新裂变',
  product_gone: '该任务的产品已被删除',
  source_gone: '源任务已被删除',
  generation_stopped: '生成中断，请重新生成',
  fission_stopped: '裂变中断，请重新裂变',
  images_stopped: '图片生成中断，请重试失败的图片',
  no_image_connection: '没有能生成图片的 AI 服务连接：请先在“AI 服务连接”中添加，再重试',
  batch_cancelled: '批次已取消，任务未生成',
  queue_unavailable: '任务未能排队生成，请重新生成',
  images_queue_unavailable: '图片未能排队生成，请重试',
  package_build: '交付包生成失败（内部错误），请重新生成',
  package_rejected: '交付包生成失败：任务的文案或图片已变化，请重新打包',
  package_queue: '交付包未能排队生成，请重新生成',
  other: '生成失败：{{cause}}',
} as const satisfies Record<FailureReason extends `failure.${infer K}` ? K : never, string>;

/** Why a provider call failed: its situation where known, else its kind (contract-decisions §7). */
export const FAILURE_CAUSES_ZH = {
  auth: 'AI 服务拒绝了密钥，请在“AI 服务连接”中检查或更换密钥',
  insufficient_balance: 'AI 服务账户余额不足，请到服务商控制台充值后重试',
  content_blocked: '内容未通过 AI 服务的安全审核，请修改主题、卖点或产品描述后重试',
  model_not_found: '模型不存在或账户未开通，请在“AI 服务连接”中更换模型或到服务商开通',
  rate_limited: 'AI 服务限流：在“AI 服务连接”中调低该连接的并发，或到服务商提高额度后重试',
  unsupported: 'AI 服务不支持此请求，请检查连接的模型设置',
  timeout: 'AI 服务响应超时，请重试',
  unavailable: 'AI 服务暂时无法访问或过载：几分钟后重试；持续出现时在“AI 服务连接”中测试该连接，或改用其他服务商',
  bad_output: 'AI 返回的内容格式不对，请重试或换一个模型',
  truncated: 'AI 回复超出输出上限被截断：换一个输出上限更大的模型，或确认连接的“思考”为关闭',
  region: '服务商不接受来自本服务器所在国家或地区的请求：请改用中转地址（兼容接口）或其他服务商',
  context: '请求超出模型的上下文长度：换一个上下文更长的模型，或精简产品卖点与对标内容',
  thinking: '模型的思考用完了输出额度，没有给出回答：请在“AI 服务连接”中把该连接的“思考”设为关闭',
  no_connection: '没有可用的 AI 服务连接，请先在“AI 服务连接”中添加',
  other: '出现意外错误，请重试',
} as const satisfies Record<ProviderErrorKind | ProviderSituation | 'no_connection' | 'other', string>;

/** What of a partly done task failed, and how the parts and a list's items are joined. */
export const FAILURE_PARTS_ZH = {
  partlyTexts: '{{failed}}/{{total}} 组文案失败',
  partlyImages: '{{failed}}/{{total}} 张图片失败',
  separator: '，',
  listSeparator: '、',
} as const;

const fill = (template: string, values: Record<string, unknown>) => template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(values[name] ?? ''));

const has = <T extends object>(table: T, key: unknown): key is keyof T => typeof key === 'string' && Object.hasOwn(table, key);

/** A stored failure (its reason key and params) in Chinese, as the console's zh-CN words it; an unknown key reads as the generic failure. */
export function wordFailureZh(key: string | null | undefined, params: Params | null | undefined): string {
  const p = params ?? {};
  const situation = p.situation ?? p.error_kind;
  const because = typeof p.because === 'string' ? p.because.replace(/^failure\./, '') : undefined;
  const cause = has(FAILURE_WORDS_ZH, because) ? fill(FAILURE_WORDS_ZH[because], { cause: FAILURE_CAUSES_ZH.other }) : FAILURE_CAUSES_ZH[has(FAILURE_CAUSES_ZH, situation) ? situation : 'other'];
  const parts = [
    ...(p.texts_failed ? [fill(FAILURE_PARTS_ZH.partlyTexts, { failed: p.texts_failed, total: p.texts_total })] : []),
    ...(p.images_failed ? [fill(FAILURE_PARTS_ZH.partlyImages, { failed: p.images_failed, total: p.images_total })] : []),
  ].join(FAILURE_PARTS_ZH.separator);
  const values = Object.fromEntries(Object.entries(p).map(([name, value]) => [name, Array.isArray(value) ? value.join(FAILURE_PARTS_ZH.listSeparator) : value]));
  const short = key?.replace(/^failure\./, '');
  return fill(has(FAILURE_WORDS_ZH, short) ? FAILURE_WORDS_ZH[short] : FAILURE_WORDS_ZH.other, { ...values, cause, parts });
}
