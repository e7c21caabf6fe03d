import { Type } from 'typebox';
import { DateTime, Nullable } from '../../http/schemas.js';

/** A benchmark note as the API returns it (also inside the products export). */
export const BenchmarkView = Type.Object(
  {
    id: Type.Integer(),
    product_id: Type.Integer(),
    screenshot_url: Nullable(Type.String({ description: 'legacy link, or a signed link to the uploaded screenshot' })),
    has_uploaded_screenshot: Type.Boolean(),
    highlights: Type.String(),
    link_url: Nullable(Type.String()),
    features: Nullable(Type.Object({}, { additionalProperties: true, description: 'the eight analysis dimensions' })),
    analyze_status: Type.Union([Type.Literal('pending'), Type.Literal('analyzing'), Type.Literal('done'), Type.Literal('failed')]),
    analysis_source: Nullable(Type.String({ description: 'vision, text or fallback' })),
    analysis_warning: Nullable(Type.String({ description: 'why the analysis is partial or failed, in Chinese; the text of analysis_warning_codes' })),
    analysis_warning_codes: Type.Array(Type.String(), {
      description: 'the same reasons as codes from a fixed set (link_unreachable, link_timeout, screenshot_too_large, provider_timeout, fallback_used, …; docs/decisions.md)',
    }),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'Benchmark' },
);
