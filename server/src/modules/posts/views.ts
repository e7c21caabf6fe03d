import { Type } from 'typebox';
import { DateTime, Nullable } from '../../http/schemas.js';

export const PostStatusSchema = Type.Union([Type.Literal('scheduled'), Type.Literal('due'), Type.Literal('published'), Type.Literal('missed'), Type.Literal('cancelled')]);

export const MetricsSnapshotView = Type.Object({
  id: Type.Integer(),
  captured_at: DateTime,
  views: Nullable(Type.Integer()),
  likes: Nullable(Type.Integer()),
  collects: Nullable(Type.Integer()),
  comments: Nullable(Type.Integer()),
  shares: Nullable(Type.Integer()),
  follows: Nullable(Type.Integer()),
  source: Type.String({ description: '`manual` or `import`' }),
  engagement: Nullable(Type.Number({ description: '(likes + collects + comments + shares) / views; null without views' })),
});

export const PostWarningView = Type.Object({
  kind: Type.Literal('near_duplicate'),
  post_id: Type.Integer(),
  title: Type.String(),
  similarity: Type.Number({ description: 'Jaccard similarity of character trigrams, 0 to 1 (docs/operation.md)' }),
});

export const PostView = Type.Object({
  id: Type.Integer(),
  account_id: Type.Integer(),
  account_name: Type.String(),
  status: PostStatusSchema,
  scheduled_at: DateTime,
  due_at: Nullable(DateTime),
  missed_at: Nullable(DateTime),
  published_at: Nullable(DateTime),
  note_url: Nullable(Type.String()),
  source: Type.Union([
    Type.Object({ task_id: Nullable(Type.Integer()), strategy: Nullable(Type.String()) }),
    Type.Object({ fission_id: Type.Integer(), seq: Nullable(Type.Integer()) }),
  ]),
  product_id: Nullable(Type.Integer()),
  angle_label: Nullable(Type.String()),
  title: Type.String(),
  cover_url: Nullable(Type.String()),
  warnings: Type.Array(PostWarningView),
  latest_metrics: Nullable(MetricsSnapshotView),
  created_by: Type.Integer(),
  created_at: DateTime,
  updated_at: DateTime,
});

export const KitView = Type.Object({
  post_id: Type.Integer(),
  status: PostStatusSchema,
  account: Type.Object({ id: Type.Integer(), name: Type.String() }),
  scheduled_at: DateTime,
  note_url: Nullable(Type.String()),
  title: Type.String(),
  body: Type.String(),
  tags: Type.Array(Type.String()),
  hashtag_line: Type.String({ description: 'the tags as typed under a note: "#tag #tag"' }),
  images: Type.Array(
    Type.Object({
      seq: Type.Integer({ description: 'posting order, the cover first' }),
      role: Type.String(),
      url: Type.String(),
      file_name: Type.String(),
      ai_generated: Type.Boolean(),
    }),
  ),
  declaration: Type.Object({ required: Type.Boolean(), label: Type.String(), steps: Type.Array(Type.String()) }),
});
