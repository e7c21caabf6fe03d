/**
 * The eight reusable dimensions a benchmark analysis extracts (the contract: no scores). The
 * same schema is sent to the model (json_schema, strict) and checked on the way back.
 */
export const FEATURE_KEYS = [
  'title_formula',
  'opening_hook',
  'body_structure',
  'selling_point_presentation',
  'emotion_tone_emoji',
  'target_audience',
  'topic_tags',
  'visual_pacing',
] as const;
export type FeatureKey = (typeof FEATURE_KEYS)[number];

export type BenchmarkFeatures = Record<Exclude<FeatureKey, 'topic_tags'>, string> & { topic_tags: string[] };

export const FEATURE_LABELS: Record<FeatureKey, string> = {
  title_formula: '标题公式 (title formula)',
  opening_hook: '开头钩子 (opening hook)',
  body_structure: '正文结构 (body structure)',
  selling_point_presentation: '卖点呈现 (selling-point presentation)',
  emotion_tone_emoji: '情绪/语气/表情 (emotion, tone, emoji)',
  target_audience: '目标人群 (target audience)',
  topic_tags: '话题标签 (topic tags)',
  visual_pacing: '视觉节奏 (visual pacing)',
};

const text = (description: string) => ({ type: 'string', description, maxLength: 600 });

export const FEATURES_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: [...FEATURE_KEYS],
  properties: {
    title_formula: text('the reusable pattern behind the title, e.g. 数字+痛点+结果'),
    opening_hook: text('how the first lines catch attention'),
    body_structure: text('the order of sections in the body'),
    selling_point_presentation: text('how selling points are shown (scenes, comparisons, data)'),
    emotion_tone_emoji: text('emotion, tone of voice and emoji use'),
    target_audience: text('who the note speaks to'),
    topic_tags: { type: 'array', items: { type: 'string', maxLength: 40 }, maxItems: 15, description: 'topic tags, without #' },
    visual_pacing: text('image order and rhythm: cover, detail shots, text overlays'),
  },
};

/** The reply as the schema says, or undefined (a model that ignored the schema). */
export function parseFeatures(value: unknown): BenchmarkFeatures | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of FEATURE_KEYS) {
    if (key === 'topic_tags') {
      const tags = v[key];
      if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string')) return undefined;
      out[key] = tags.map((t: string) => t.replace(/^#/, '').trim()).filter(Boolean).slice(0, 15);
    } else {
      if (typeof v[key] !== 'string') return undefined;
      out[key] = (v[key] as string).trim().slice(0, 600);
    }
  }
  return out as BenchmarkFeatures;
}
