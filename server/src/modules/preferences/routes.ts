import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { commonErrors, DateTime, IdParams, Nullable, Ok, ok, PageQuery, Paged } from '../../http/schemas.js';
import * as service from './service.js';

const tags = ['preferences'];

const PerformanceItem = Type.Object({
  kind: Type.Union([Type.Literal('angle'), Type.Literal('strategy')]),
  key: Type.String(),
  posts: Type.Integer(),
  vs_median: Type.Number({ description: 'engagement ÷ the account\'s median (geometric mean over the posts): 1 is as usual for the account' }),
});

const PreferenceContextView = Type.Object({
  recent_preference: Type.String({ description: 'the preferred angles and strategy in words; empty when nothing is preferred yet' }),
  reject_reasons: Type.Array(Type.String(), { maxItems: 3, description: 'newest first, verbatim' }),
  rejections: Type.Array(
    Type.Object({
      reason: Type.String({ description: 'verbatim, as in reject_reasons' }),
      excerpt: Nullable(Type.String({ description: 'title and start of the body of the note it rejected; null when the reject predates excerpts or nothing was selected' })),
    }),
    { maxItems: 3, description: 'reject_reasons in the same order, each with the note it rejected' },
  ),
  style_examples: Type.Array(Type.String(), { description: 'excerpts of recently edited or imported texts' }),
  approved_openings: Type.Array(Type.String(), { maxItems: 2, description: 'title and opening of the notes reviewers approved last, newest first: positive examples' }),
  performance: Nullable(
    Type.Object(
      {
        posts: Type.Integer({ description: 'published posts with results behind the figures' }),
        best: Type.Array(PerformanceItem, { description: 'angles and strategies whose posts engaged above their accounts\' medians, best first' }),
        worst: Type.Array(PerformanceItem, { description: 'those below, worst first' }),
      },
      { description: 'what worked once posted (contract-decisions §11); null before 3 published posts have results' },
    ),
  ),
  injected_count: Type.Integer({ description: 'angles + strategy + reject reasons + style examples + approved openings injected' }),
  generation: Nullable(Type.Integer({ description: 'the generation this snapshot was taken for; null: not generated yet, this is what would be injected now' })),
  snapshot_at: Nullable(DateTime),
});

const SignalView = Type.Object({
  id: Type.Integer(),
  task_id: Nullable(Type.Integer()),
  user_id: Nullable(Type.Integer()),
  candidate_id: Nullable(Type.Integer()),
  candidate_kind: Nullable(Type.String()),
  strategy: Nullable(Type.String()),
  angle_label: Nullable(Type.String()),
  signal_type: Type.String(),
  weight: Type.Number(),
  reason: Nullable(Type.String()),
  excerpt: Nullable(Type.String()),
  created_at: DateTime,
});

const ScoresView = Type.Object({
  half_life_days: Type.Number(),
  lookback_days: Type.Number(),
  signal_count: Type.Integer(),
  angles: Type.Array(Type.Object({ angle_label: Type.String(), score: Type.Number() })),
  strategies: Type.Array(Type.Object({ strategy: Type.String(), score: Type.Number() })),
});

export const preferenceRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/tasks/:id/preference/context',
    {
      schema: {
        tags,
        operationId: 'getPreferenceContext',
        summary: 'Get the preference context of a task',
        description: "What was injected into the task's latest generation; before its first generation, what would be injected now",
        params: IdParams,
        response: { 200: Ok(PreferenceContextView), ...commonErrors },
      },
    },
    async (request) => ok(await service.taskPreferenceContext(ctx, currentUser(request), request.params.id)),
  );

  app.get(
    '/tasks/:id/preference/signals',
    {
      schema: {
        tags,
        operationId: 'listPreferenceSignals',
        summary: 'List the preference signals of a task',
        description: 'Every preference signal the actions on this task recorded, oldest first',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: Ok(Paged(SignalView)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listTaskSignals(ctx, currentUser(request), request.params.id, request.query)),
  );

  app.get(
    '/products/:id/preference/scores',
    {
      schema: {
        tags,
        operationId: 'getProductPreferenceScores',
        summary: 'Get the preference scores of a product',
        description: 'Decayed preference score of the product per angle and per strategy',
        params: IdParams,
        response: { 200: Ok(ScoresView), ...commonErrors },
      },
    },
    async (request) => ok(await service.productPreferenceScores(ctx, currentUser(request), request.params.id)),
  );
};
