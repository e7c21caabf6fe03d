/**
 * Provider labels a connection can be stored for: the presets, any OpenAI-compatible endpoint
 * (`openai-compatible`: relays such as one-api/new-api, self-hosted gateways) and the offline `local`.
 */
export const PRESET_PROVIDERS = ['openai', 'deepseek', 'qwen', 'doubao', 'zhipu', 'moonshot', 'siliconflow', 'openai-compatible'] as const;
export const PROVIDER_LABELS = [...PRESET_PROVIDERS, 'local'] as const;
export type ProviderLabel = (typeof PROVIDER_LABELS)[number];

export function isProviderLabel(value: string): value is ProviderLabel {
  return (PROVIDER_LABELS as readonly string[]).includes(value);
}
