import type { ProviderErrorKind } from '../../providers/types.js';

/**
 * Why an analysis is partial or failed: a fixed set of reasons (issue 17, finding 5). The API
 * carries them as codes (`analysis_warning_codes`, which the console words in its language)
 * and as this Chinese text (`analysis_warning`). Never a network error's own message: those
 * named internal hosts, addresses and ports to whoever typed the link.
 */
export const ANALYSIS_WARNINGS = {
  link_blocked_address: '链接指向内网或保留地址，未访问',
  link_unreachable: '链接无法访问',
  link_timeout: '链接访问超时',
  link_error_status: '链接返回了错误状态',
  link_not_html: '链接不是网页',
  screenshot_blocked_address: '截图链接指向内网或保留地址，未访问',
  screenshot_unreachable: '截图链接无法访问',
  screenshot_timeout: '截图链接访问超时',
  screenshot_not_image: '截图不是可读取的 JPEG、PNG 或 WebP 图片',
  screenshot_too_large: '截图过大（超过 10 MB 或 6000 万像素）',
  screenshot_unreadable: '已上传的截图无法读取',
  provider_auth: 'AI 服务拒绝了 API 密钥',
  provider_balance: 'AI 服务账户余额不足',
  provider_blocked: '内容未通过 AI 服务的审核',
  provider_model: '模型不存在或账户无权使用',
  provider_rate_limit: 'AI 服务限流',
  provider_bad_request: 'AI 服务拒绝了请求',
  provider_down: 'AI 服务暂时不可用',
  provider_timeout: 'AI 服务响应超时',
  provider_invalid_output: 'AI 服务的回复不符合分析格式',
  provider_failed: 'AI 服务调用失败',
  nothing_to_analyse: '没有可分析的截图、亮点或页面内容',
  internal_error: '分析时出现内部错误',
  fallback_used: '已根据人工亮点生成备用分析',
  no_fallback_material: '没有截图也没有亮点，无法生成备用分析',
  /** Rows analysed before the reasons were fixed: their free text is not shown any more. */
  earlier_analysis: '此前分析的提示已隐去，重新分析可查看原因',
} as const;

export type AnalysisWarningCode = keyof typeof ANALYSIS_WARNINGS;

export const PROVIDER_WARNING: Record<ProviderErrorKind, AnalysisWarningCode> = {
  auth: 'provider_auth',
  insufficient_balance: 'provider_balance',
  content_blocked: 'provider_blocked',
  model_not_found: 'provider_model',
  rate_limited: 'provider_rate_limit',
  unsupported: 'provider_bad_request',
  unavailable: 'provider_down',
  timeout: 'provider_timeout',
  bad_output: 'provider_invalid_output',
  truncated: 'provider_invalid_output',
};

/** The stored text of a list of reasons (null for none), in their order, without repeats. */
export function warningText(codes: readonly AnalysisWarningCode[]): string | null {
  return codes.length ? [...new Set(codes)].map((c) => ANALYSIS_WARNINGS[c]).join('；') : null;
}
