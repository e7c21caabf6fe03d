import { useCallback } from 'react';
import type { CurrentUser } from '../api/types';
import { useMe } from './session';

/** A workspace action of the server's access policy (`GET /auth/me` `allowed_actions`). */
export type WorkspaceAction = CurrentUser['allowed_actions'][number];

/**
 * Whether the signed-in user may take a workspace action, as the server's policy says: the
 * console keeps no role table of its own, it shows what the server will accept. A record's own
 * `allowed_actions` say what may be done to it.
 */
export function useCan(): (action: WorkspaceAction) => boolean {
  const me = useMe();
  const allowed = me.data?.allowed_actions;
  return useCallback((action: WorkspaceAction) => allowed?.includes(action) ?? false, [allowed]);
}
