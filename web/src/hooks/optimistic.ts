import type { MutationKey, QueryClient, QueryKey } from '@tanstack/react-query';

/**
 * Options for the optimistic mutations of one record: they share `mutationKey`, and only the
 * last of them to settle refetches `queryKey`. A refetch started when one settles while another
 * is still on its way brings back the record without the other's change and undoes that one's
 * optimistic update until it settles too (a ticked image unticking itself for a moment). The
 * settling mutation still counts in `isMutating`, hence 1. TkDodo, "Concurrent Optimistic
 * Updates in React Query".
 */
export function refetchWhenLastSettles(queryClient: QueryClient, mutationKey: MutationKey, queryKey: QueryKey) {
  return {
    mutationKey,
    onSettled: () => (queryClient.isMutating({ mutationKey }) === 1 ? queryClient.invalidateQueries({ queryKey }) : undefined),
  };
}
