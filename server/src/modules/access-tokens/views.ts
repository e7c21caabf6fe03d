import { Type } from 'typebox';
import { DateTime, Nullable } from '../../http/schemas.js';

/** contract-decisions §13: what a token may do of its user's role. */
export const ScopeSchema = Type.Union([Type.Literal('read'), Type.Literal('produce'), Type.Literal('review'), Type.Literal('admin')], {
  description: 'read: read anything the role may read; produce: products, tasks, candidates, submission, packages, fission; review: approve and reject (supervisor or admin role); admin: users, workspaces, webhooks, banned words, connections',
});

/** A personal access token as listed: never the token itself, which is shown once at creation. */
export const AccessTokenView = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    scopes: Type.Array(ScopeSchema),
    token_hint: Type.String({ description: 'the first characters of the token, to tell tokens apart' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('invalidated')], {
      description: 'invalidated: the password, the role or the membership changed since it was made; it no longer works',
    }),
    created_at: DateTime,
    expires_at: Nullable(DateTime),
    last_used_at: Nullable(DateTime),
  },
  { $id: 'AccessToken' },
);

export const CreatedAccessTokenView = Type.Object({
  ...AccessTokenView.properties,
  token: Type.String({ description: 'the token: shown this once, stored only as a hash; send it as Authorization: Bearer <token>' }),
});
