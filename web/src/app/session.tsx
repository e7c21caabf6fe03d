import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { useNavigate } from 'react-router-dom';
import { onSessionProblem, tokenStore } from '../api/client';
import { api } from '../api/endpoints';
import { queryKeys } from '../api/queryKeys';

const listeners = new Set<() => void>();
function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

let expired = false;
/** The session ended because the server refused the token (not by logging out). */
export function sessionExpired(): boolean {
  return expired;
}

/** Token changes (login, switch, logout, expiry) re-render whoever reads the session. */
export function setToken(token: string | null, reason?: 'expired') {
  expired = reason === 'expired';
  if (token) tokenStore.set(token);
  else tokenStore.clear();
  listeners.forEach((l) => l());
}

export function useToken(): string | null {
  return useSyncExternalStore(subscribe, tokenStore.get, () => null);
}

export function useMe() {
  const token = useToken();
  return useQuery({ queryKey: queryKeys.me(token), queryFn: api.auth.me, enabled: Boolean(token), staleTime: 60_000 });
}

export function useSession() {
  const me = useMe();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const logout = useCallback(() => {
    setToken(null);
    queryClient.clear();
    navigate('/login', { replace: true });
  }, [navigate, queryClient]);
  /** A new token (login, workspace switch, password change) starts from an empty cache. */
  const adopt = useCallback(
    (token: string) => {
      queryClient.clear();
      setToken(token);
    },
    [queryClient],
  );
  return { user: me.data, role: me.data?.role, isLoading: me.isLoading, error: me.error, logout, adopt };
}

/**
 * An expired token ends the session (RequireAuth then shows the login page, saying why); 40301
 * sends the user to the password page.
 */
export function SessionWatcher() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(() => {
    onSessionProblem((reason) => {
      if (reason === 'expired') {
        setToken(null, 'expired');
        queryClient.clear();
      } else {
        navigate('/change-password', { replace: true });
      }
    });
  }, [navigate, queryClient]);
  return null;
}
