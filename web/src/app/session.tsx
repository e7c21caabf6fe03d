import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { useNavigate } from 'react-router-dom';
import { onSessionProblem, tokenStore } from '../api/client';
import { api } from '../api/endpoints';

const listeners = new Set<() => void>();
function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Token changes (login, switch, logout) re-render whoever reads the session. */
export function setToken(token: string | null) {
  if (token) tokenStore.set(token);
  else tokenStore.clear();
  listeners.forEach((l) => l());
}

export function useToken(): string | null {
  return useSyncExternalStore(subscribe, tokenStore.get, () => null);
}

export const meKey = ['me'] as const;

export function useMe() {
  const token = useToken();
  return useQuery({ queryKey: [...meKey, token], queryFn: api.auth.me, enabled: Boolean(token), staleTime: 60_000 });
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

/** Sends the user to the login page when a token expires, to the password page on 40301. */
export function SessionWatcher() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(() => {
    onSessionProblem((reason) => {
      if (reason === 'expired') {
        setToken(null);
        queryClient.clear();
        const next = window.location.pathname + window.location.search;
        navigate(`/login?expired=1&next=${encodeURIComponent(next)}`, { replace: true });
      } else {
        navigate('/change-password', { replace: true });
      }
    });
  }, [navigate, queryClient]);
  return null;
}
