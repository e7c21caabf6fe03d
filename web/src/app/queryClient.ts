import { MutationCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client';
import { notifyError } from './notify';

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: { inlineError?: boolean };
  }
}

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        refetchOnWindowFocus: false,
        // Client errors will not change by asking again; only network and server trouble is retried.
        retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      },
    },
    mutationCache: new MutationCache({
      // Forms that show their error inline opt out of the toast with meta.inlineError.
      onError: (error, _vars, _ctx, mutation) => {
        if (!mutation.meta?.inlineError) notifyError(error);
      },
    }),
  });
}
