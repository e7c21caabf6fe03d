/** Provider labels a key can be stored for: the OpenAI-compatible presets and the offline `local`. */
export const PRESET_PROVIDERS = ['openai', 'deepseek', 'qwen', 'doubao', 'zhipu', 'moonshot', 'siliconflow'] as const;
export const PROVIDER_LABELS = [...PRESET_PROVIDERS, 'local'] as const;
export type ProviderLabel = (typeof PROVIDER_LABELS)[number];

export function isProviderLabel(value: string): value is ProviderLabel {
  return (PROVIDER_LABELS as readonly string[]).includes(value);
}
