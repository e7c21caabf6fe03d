import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from '../../http/schemas.js';
import { ImageCandidateSchema, TextCandidateSchema } from '../../generation/views.js';

/** The task shapes of the contract (list item) and contract-decisions §4 (detail). */

// The candidate shapes live with the generation pipeline, which emits them as events too.
export { imageCandidateView, textCandidateView } from '../../generation/views.js';

export const TASK_STATUSES = ['pending', 'generating', 'pending_selection', 'pending_review', 'approved', 'rejected', 'archived', 'failed'] as const;
export const TaskStatusSchema = Type.Enum(TASK_STATUSES);
export const StrategySchema = Type.Enum(['A', 'B', 'C']);

export const TaskListItem = Type.Object({
  id: Type.Integer(),
  product_id: Type.Integer(),
  product_name: Type.String(),
  theme: Type.String(),
  status: TaskStatusSchema,
  created_at: DateTime,
  text_count: Type.Integer(),
  image_count: Type.Integer(),
  track: Type.Enum(['ai', 'import']),
  need_product_image: Type.Boolean(),
  review_status: Nullable(Type.String()),
  reject_reason: Nullable(Type.String()),
  reviewed_at: Nullable(DateTime),
});
export type TaskListItem = Static<typeof TaskListItem>;

export const TaskDetail = Type.Object({
  ...TaskListItem.properties,
  benchmark_ids: Type.Array(Type.Integer()),
  progress: Type.Union([Type.Object({ stage: Type.String(), done: Type.Integer(), total: Type.Integer() }), Type.Null()], {
    description: 'of the running or last generation; null before the first progress report',
  }),
  generation: Type.Integer({ description: 'number of generation runs started (regenerate adds one)' }),
  failure_reason: Nullable(Type.String()),
  text_candidates: Type.Array(TextCandidateSchema),
  image_candidates: Type.Array(ImageCandidateSchema),
});
