import { Type, type Static } from 'typebox';
import type { AppContext } from '../../context.js';
import type { Row } from '../../db/schema.js';
import { DateTime, FailureKey, FailureParams, Nullable } from '../../http/schemas.js';
import type { FailureReason, StoredParams } from '../../http/reasons.js';
import { fileUrl } from '../../storage/signed-url.js';
import { hitsByField, type FieldHit } from '../../content/evaluate.js';
import { IMAGE_ROLES } from '../../content/schemas.js';
import { USER_ACTIONS } from './lifecycle.js';

/**
 * The contract's Text and Image candidate shapes, used alike by task detail, the review queue
 * and the `text_candidate` / `image_candidate` events (the contract wants them identical).
 */
export const ScoreSchema = Type.Object({
  title: Type.Integer({ minimum: 0, maximum: 25 }),
  emotion: Type.Integer({ minimum: 0, maximum: 25 }),
  selling: Type.Integer({ minimum: 0, maximum: 25 }),
  keyword: Type.Integer({ minimum: 0, maximum: 20 }),
  compliance: Type.Integer({ minimum: 0, maximum: 5 }),
  total: Type.Integer({ minimum: 0, maximum: 100 }),
});

export const TextCandidateSchema = Type.Object({
  candidate_id: Type.Integer(),
  angle_label: Type.String(),
  strategy: Nullable(Type.Union([Type.Literal('A'), Type.Literal('B'), Type.Literal('C')])),
  title: Type.String(),
  content: Type.String(),
  tags: Type.Array(Type.String()),
  cover_title: Type.String(),
  image_brief: Type.String(),
  source: Type.Union([Type.Literal('ai'), Type.Literal('import')]),
  score: ScoreSchema,
  banned_word_status: Type.Union([Type.Literal('pass'), Type.Literal('auto_fixed'), Type.Literal('soft_warn'), Type.Literal('hard_block')]),
  is_selected: Type.Boolean(),
  verdict: Type.String(),
  summary: Type.String(),
  edited: Type.Boolean(),
  banned_hits: Type.Array(
    Type.Object({
      field: Type.Enum(['title', 'content', 'tags', 'cover_title']),
      tag_index: Nullable(Type.Integer({ minimum: 0, description: 'which tag, for field "tags"' })),
      start: Type.Integer({ minimum: 0, description: 'UTF-16 offset into the field (a tag: that tag), as String.prototype.slice takes it' }),
      end: Type.Integer({ minimum: 0, description: 'exclusive' }),
      word: Type.String({ description: 'the banned word of the library that matched' }),
      level: Type.Enum(['soft_warn', 'hard_block']),
    }),
    { description: 'what the banned-word check left in the text (soft_warn, hard_block), where it is: mark exactly these, never match words again on the client' },
  ),
});
export type TextCandidateView = Static<typeof TextCandidateSchema>;

export const ImageCandidateSchema = Type.Object({
  candidate_id: Type.Integer(),
  strategy: Type.Union([Type.Literal('A'), Type.Literal('B'), Type.Literal('C')]),
  url: Nullable(Type.String({ description: 'signed link to the image, lettered with its set’s cover title when it is a cover; null while it is made or when it failed' })),
  role: Type.Enum(IMAGE_ROLES),
  seq: Type.Integer(),
  is_selected: Type.Boolean(),
  is_regen: Type.Boolean(),
  ai_visual_score: Nullable(Type.Number()),
  ai_visual_note: Nullable(Type.String()),
  source: Type.Enum(['ai', 'upload'], { description: 'made by the provider, or uploaded by the team (contract-decisions §8)' }),
  status: Type.Enum(['pending', 'done', 'failed'], { description: 'pending: queued or being made (regenerate, retry-images); failed: retry-images makes it again' }),
  error_kind: Nullable(Type.String({ description: 'of a failed image: the provider failure kind (contract-decisions §7), null when not a provider failure' })),
  error_key: FailureKey,
  error_params: FailureParams,
  instruction: Nullable(Type.String({ description: 'the operator’s instruction of a regenerated image' })),
  caption: Nullable(
    Type.String({ description: 'the line printed on the image (contract-decisions §8): a cover’s cover title, a slide’s caption; null when none is drawn' }),
  ),
});
export type ImageCandidateView = Static<typeof ImageCandidateSchema>;

export function textCandidateView(row: Row<'text_candidates'>): TextCandidateView {
  return {
    candidate_id: row.id,
    angle_label: row.angle_label,
    strategy: row.strategy,
    title: row.title,
    content: row.content,
    tags: row.tags,
    cover_title: row.cover_title,
    image_brief: row.image_brief,
    source: row.source,
    score: row.score,
    banned_word_status: row.banned_word_status,
    is_selected: row.is_selected,
    verdict: row.verdict,
    summary: row.summary,
    edited: row.edited,
    banned_hits: hitsByField(row, row.banned_hits).filter((hit): hit is FieldHit & { level: 'soft_warn' | 'hard_block' } => hit.level === 'soft_warn' || hit.level === 'hard_block'),
  };
}

export function imageCandidateView(ctx: Pick<AppContext, 'config' | 'clock'>, row: Row<'image_candidates'>): ImageCandidateView {
  return {
    candidate_id: row.id,
    strategy: row.strategy,
    url: row.status === 'done' && row.file_key ? fileUrl(ctx, row.file_key) : null,
    role: row.role,
    seq: row.seq,
    is_selected: row.is_selected,
    is_regen: row.is_regen,
    ai_visual_score: row.ai_visual_score,
    ai_visual_note: row.ai_visual_note,
    source: row.source,
    // `retrying` is a fission image's queued-again state; a task's images queue again as pending.
    status: row.status === 'retrying' ? 'pending' : row.status,
    error_kind: row.status === 'failed' ? row.error_kind : null,
    error_key: row.status === 'failed' ? (row.error_key as FailureReason | null) : null,
    error_params: row.status === 'failed' && row.error_key ? ((row.error_params ?? {}) as StoredParams) : null,
    instruction: row.instruction,
    caption: row.status === 'done' ? row.lettered_title : null,
  };
}

/** The task shapes of the contract (list item) and contract-decisions §4 (detail). */

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
}, { $id: 'TaskListItem' });
export type TaskListItem = Static<typeof TaskListItem>;

const UsedConnection = Type.Object({ key_id: Type.Integer(), provider: Type.String(), name: Type.String(), model: Type.String() });

export const TaskProvidersSchema = Type.Object(
  { text: Nullable(UsedConnection), vision: Nullable(UsedConnection), image: Nullable(UsedConnection) },
  { description: 'the connection and model of each capability the latest generation used (contract-decisions §7); null where none was used' },
);

/** A task row's `providers` as served: every capability present, null where none was used (tasks made before connections). */
export const providersView = (providers: Static<typeof TaskProvidersSchema> | null | undefined): Static<typeof TaskProvidersSchema> =>
  providers ?? { text: null, vision: null, image: null };

export const TaskDetail = Type.Object({
  ...TaskListItem.properties,
  benchmark_ids: Type.Array(Type.Integer()),
  progress: Type.Union([Type.Object({ stage: Type.String(), done: Type.Integer(), failed: Type.Optional(Type.Integer({ description: 'images only: failed ones, not counted in done' })), total: Type.Integer() }), Type.Null()], {
    description: 'of the running or last generation; null before the first progress report',
  }),
  generation: Type.Integer({ description: 'number of generation runs started (regenerate adds one)' }),
  failure_reason: Nullable(Type.String()),
  failure_key: FailureKey,
  failure_params: FailureParams,
  providers: TaskProvidersSchema,
  allowed_actions: Type.Array(Type.Enum(USER_ACTIONS), {
    description: 'what the caller may do with the task now, from its role and the task state (contract-decisions §8); the console shows only these',
  }),
  text_candidates: Type.Array(TextCandidateSchema),
  image_candidates: Type.Array(ImageCandidateSchema),
}, { $id: 'TaskDetail' });
