import { Type } from 'typebox';
import { DateTime, Nullable } from '../../http/schemas.js';

export const AccountView = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  name: Type.String(),
  profile_url: Nullable(Type.String()),
  persona: Nullable(Type.String({ description: 'positioning and voice, given to generation for notes meant for this account' })),
  daily_cap: Type.Integer({ description: 'posts per local day at most' }),
  min_gap_minutes: Type.Integer({ description: 'minutes between two posts at least' }),
  timezone: Type.String({ description: 'IANA time zone of the account\'s days' }),
  active: Type.Boolean(),
  created_by: Nullable(Type.Integer()),
  created_at: DateTime,
  updated_at: DateTime,
});
