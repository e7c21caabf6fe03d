import type { QueryClient } from '@tanstack/react-query';

/**
 * Every query key of the console, per resource, and what a change of a resource refreshes: one
 * place, so no page writes a key its own way and no change forgets a page that shows it. Keys
 * nest: invalidating a key refreshes every key that starts with it (`task(7)` refreshes the
 * task's packages, preferences and reviews too).
 */
export const queryKeys = {
  me: (token: string | null) => ['me', token] as const,
  workspaces: () => ['workspaces'] as const,
  invitations: {
    all: () => ['invitations'] as const,
    mine: () => ['invitations', 'mine'] as const,
    ofWorkspace: (workspaceId: number) => ['invitations', 'workspace', workspaceId] as const,
  },
  users: {
    all: () => ['users'] as const,
    list: (query: object) => ['users', 'list', query] as const,
  },
  products: {
    all: () => ['products'] as const,
    list: (query: object) => ['products', 'list', query] as const,
    /** A picker's page of products matching what was typed. */
    search: (q: string) => ['products', 'search', q] as const,
    detail: (id: number) => ['products', 'detail', id] as const,
    images: (id: number) => ['products', 'detail', id, 'images'] as const,
  },
  benchmarks: {
    ofProduct: (productId: number) => ['benchmarks', productId] as const,
    list: (productId: number, query: object) => ['benchmarks', productId, 'list', query] as const,
    /** What a task can be created with: every benchmark of the product. */
    choices: (productId: number) => ['benchmarks', productId, 'choices'] as const,
  },
  bannedWords: {
    all: () => ['banned-words'] as const,
    list: (query: object) => ['banned-words', 'list', query] as const,
    search: (q: string) => ['banned-words', 'search', q] as const,
    /** The words a product has attached, by id (shown in its picker whatever was typed). */
    byIds: (ids: readonly number[]) => ['banned-words', 'ids', ids] as const,
    presets: () => ['banned-words', 'presets'] as const,
  },
  apiKeys: {
    all: () => ['api-keys'] as const,
    list: () => ['api-keys', 'list'] as const,
    presets: () => ['api-keys', 'presets'] as const,
    routing: () => ['api-keys', 'routing'] as const,
    /** The provider's own model list for one connection. */
    models: (id: number) => ['api-keys', 'models', id] as const,
  },
  tasks: {
    all: () => ['tasks'] as const,
    list: (filters: object, paging: object) => ['tasks', 'list', filters, paging] as const,
    covers: (ids: readonly number[]) => ['tasks', 'covers', ids] as const,
  },
  task: {
    detail: (id: number) => ['task', id] as const,
    packages: (id: number) => ['task', id, 'packages'] as const,
    preference: (id: number, version: unknown) => ['task', id, 'preference', version] as const,
    reviews: (id: number, version: unknown) => ['task', id, 'reviews', version] as const,
    fissions: (id: number) => ['task', id, 'fissions'] as const,
  },
  reviewQueue: {
    all: () => ['review-queue'] as const,
    count: () => ['review-queue', 'count'] as const,
  },
  fission: {
    detail: (id: number) => ['fission', id] as const,
    notes: (id: number) => ['fission', id, 'notes'] as const,
  },
  accounts: {
    all: () => ['accounts'] as const,
    list: (query: object) => ['accounts', 'list', query] as const,
  },
  posts: {
    all: () => ['posts'] as const,
    list: (query: object) => ['posts', 'list', query] as const,
    kit: (id: number) => ['posts', 'kit', id] as const,
    detail: (id: number) => ['posts', 'detail', id] as const,
  },
  analytics: {
    all: () => ['analytics'] as const,
    overview: (query: object) => ['analytics', 'overview', query] as const,
  },
  batches: {
    all: () => ['batches'] as const,
    list: (query: object) => ['batches', 'list', query] as const,
    detail: (id: number) => ['batches', 'detail', id] as const,
  },
  accessTokens: () => ['access-tokens'] as const,
  webhooks: {
    all: () => ['webhooks'] as const,
    deliveries: (id: number) => ['webhooks', 'deliveries', id] as const,
  },
};

/** Mutations of one task share this key: only the last of them to settle refetches it. */
export const taskMutationKey = (taskId: number) => ['task-mutation', taskId] as const;

/** What to refresh when a resource changed: every page that shows it. */
export const refresh = {
  /** A task moved or changed: its page, the lists it is in and the review queue. */
  task: (queryClient: QueryClient, taskId: number) =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.task.detail(taskId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.tasks.all() }),
      queryClient.invalidateQueries({ queryKey: queryKeys.reviewQueue.all() }),
    ]),
  /** A product was saved or removed: lists, pickers and its page. */
  products: (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: queryKeys.products.all() }),
  productImages: (queryClient: QueryClient, productId: number) => queryClient.invalidateQueries({ queryKey: queryKeys.products.images(productId) }),
  benchmarks: (queryClient: QueryClient, productId: number) => queryClient.invalidateQueries({ queryKey: queryKeys.benchmarks.ofProduct(productId) }),
  bannedWords: (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: queryKeys.bannedWords.all() }),
  apiKeys: (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys.all() }),
  /** Workspaces and memberships changed (created, joined, left): the switcher and the invitations. */
  workspaces: (queryClient: QueryClient) =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.workspaces() }),
      queryClient.invalidateQueries({ queryKey: queryKeys.invitations.all() }),
    ]),
  users: (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: queryKeys.users.all() }),
  invitations: (queryClient: QueryClient, workspaceId: number) => queryClient.invalidateQueries({ queryKey: queryKeys.invitations.ofWorkspace(workspaceId) }),
  webhooks: (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all() }),
  accessTokens: (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: queryKeys.accessTokens() }),
  reviewQueue: (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: queryKeys.reviewQueue.all() }),
  accounts: (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: queryKeys.accounts.all() }),
  /** A post was scheduled, moved, cancelled or published: the calendar and its kit. */
  posts: (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: queryKeys.posts.all() }),
  /** Results were recorded or imported: the posts that show them and the dashboard. */
  results: (queryClient: QueryClient) =>
    Promise.all([queryClient.invalidateQueries({ queryKey: queryKeys.posts.all() }), queryClient.invalidateQueries({ queryKey: queryKeys.analytics.all() })]),
  /** A batch was created or cancelled: its list and page. */
  batches: (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: queryKeys.batches.all() }),
  fission: (queryClient: QueryClient, fissionId: number) => queryClient.invalidateQueries({ queryKey: queryKeys.fission.detail(fissionId) }),
};
