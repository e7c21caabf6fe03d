/**
 * The providers a connection can be made for, in the order the console offers them, with the
 * name users know them by (contract-decisions §7). The values are the API's `provider` labels.
 */
export const PROVIDERS = [
  { value: 'qwen', label: '通义千问' },
  { value: 'doubao', label: '豆包' },
  { value: 'zhipu', label: '智谱' },
  { value: 'moonshot', label: '月之暗面 Kimi' },
  { value: 'deepseek', label: 'DeepSeek' },
  { value: 'siliconflow', label: '硅基流动' },
  { value: 'openai', label: 'OpenAI' },
  { value: 'openai-compatible', label: '自定义兼容接口' },
  { value: 'local', label: '本地离线（演示）' },
] as const;

export function providerName(value: string): string {
  return PROVIDERS.find((p) => p.value === value)?.label ?? value;
}
