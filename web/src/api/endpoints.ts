/**
 * Every call the console makes, through the typed client: each path, parameter, body and answer
 * is the server's OpenAPI document's (schema.d.ts), so a route the server does not have, a field
 * it does not take or an answer it does not give fails `npm run typecheck`.
 */
import { dataOf, formData, http } from './client';
import type { Body, ImageRole, ProductBody, Query, ReferenceLevel, Role, Strategy, TaskCreate } from './types';

type Paging = { page?: number; page_size?: number };
const path = <T extends Record<string, number | string>>(values: T) => ({ params: { path: values } });
/** The body already holds the FormData the server reads. */
const multipart = { bodySerializer: formData };

export const api = {
  auth: {
    login: (username: string, password: string) => dataOf(http.POST('/api/v1/auth/login', { body: { username, password } })),
    changePassword: (current_password: string, new_password: string) =>
      dataOf(http.POST('/api/v1/auth/change-password', { body: { current_password, new_password } })),
    me: () => dataOf(http.GET('/api/v1/auth/me')),
  },
  workspaces: {
    list: () => dataOf(http.GET('/api/v1/workspaces')),
    switch: (workspace_id: number) => dataOf(http.POST('/api/v1/workspaces/switch', { body: { workspace_id } })),
    create: (name: string, slug: string) => dataOf(http.POST('/api/v1/workspaces', { body: { name, slug } })),
    addMember: (id: number, username: string, role: Role) =>
      dataOf(http.POST('/api/v1/workspaces/{id}/members', { ...path({ id }), body: { username, role } })),
    removeMember: (id: number, userId: number) =>
      dataOf(http.DELETE('/api/v1/workspaces/{id}/members/{user_id}', path({ id, user_id: userId }))),
    /** `who`: a username, or an email address when it contains "@" and a dot after it. */
    invite: (id: number, who: { username: string } | { email: string }, role: Role) =>
      dataOf(http.POST('/api/v1/workspaces/{id}/invitations', { ...path({ id }), body: { ...who, role } })),
    invitations: (id: number, query: Paging) =>
      dataOf(http.GET('/api/v1/workspaces/{id}/invitations', { params: { path: { id }, query } })),
    revokeInvitation: (id: number, invitationId: number) =>
      dataOf(http.DELETE('/api/v1/workspaces/{id}/invitations/{invitation_id}', path({ id, invitation_id: invitationId }))),
  },
  invitations: {
    mine: () => dataOf(http.GET('/api/v1/invitations', { params: { query: { page_size: 100 } } })),
    accept: (id: number) => dataOf(http.POST('/api/v1/invitations/{id}/accept', path({ id }))),
    decline: (id: number) => dataOf(http.POST('/api/v1/invitations/{id}/decline', path({ id }))),
    redeem: (token: string) => dataOf(http.POST('/api/v1/invitations/redeem', { body: { token } })),
  },
  users: {
    list: (query: Paging) => dataOf(http.GET('/api/v1/users', { params: { query } })),
    create: (body: Body<'/api/v1/users', 'post'>) => dataOf(http.POST('/api/v1/users', { body })),
    update: (id: number, body: Body<'/api/v1/users/{id}', 'patch'>) => dataOf(http.PATCH('/api/v1/users/{id}', { ...path({ id }), body })),
  },
  accessTokens: {
    list: () => dataOf(http.GET('/api/v1/auth/tokens')),
    create: (body: Body<'/api/v1/auth/tokens', 'post'>) => dataOf(http.POST('/api/v1/auth/tokens', { body })),
    revoke: (id: number) => dataOf(http.DELETE('/api/v1/auth/tokens/{id}', path({ id }))),
  },
  webhooks: {
    list: () => dataOf(http.GET('/api/v1/webhooks')),
    create: (body: Body<'/api/v1/webhooks', 'post'>) => dataOf(http.POST('/api/v1/webhooks', { body })),
    /** `secret: null` removes it; absent fields stay as they are. */
    update: (id: number, body: Body<'/api/v1/webhooks/{id}', 'patch'>) => dataOf(http.PATCH('/api/v1/webhooks/{id}', { ...path({ id }), body })),
    remove: (id: number) => dataOf(http.DELETE('/api/v1/webhooks/{id}', path({ id }))),
    test: (id: number) => dataOf(http.POST('/api/v1/webhooks/{id}/test', path({ id }))),
    deliveries: (id: number, query: Paging) => dataOf(http.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id }, query } })),
  },
  apiKeys: {
    list: (query: Paging) => dataOf(http.GET('/api/v1/api-keys', { params: { query } })),
    presets: () => dataOf(http.GET('/api/v1/api-keys/presets')),
    create: (body: Body<'/api/v1/api-keys', 'post'>) => dataOf(http.POST('/api/v1/api-keys', { body })),
    update: (id: number, body: Body<'/api/v1/api-keys/{id}', 'patch'>) => dataOf(http.PATCH('/api/v1/api-keys/{id}', { ...path({ id }), body })),
    test: (id: number, image: boolean) => dataOf(http.POST('/api/v1/api-keys/{id}/test', { ...path({ id }), body: { image } })),
    models: (id: number) => dataOf(http.GET('/api/v1/api-keys/{id}/models', path({ id }))),
    remove: (id: number) => dataOf(http.DELETE('/api/v1/api-keys/{id}', path({ id }))),
    routing: () => dataOf(http.GET('/api/v1/workspaces/current/generation')),
    setRouting: (body: Body<'/api/v1/workspaces/current/generation', 'put'>) => dataOf(http.PUT('/api/v1/workspaces/current/generation', { body })),
  },
  products: {
    list: (query: Paging & { q?: string }) => dataOf(http.GET('/api/v1/products', { params: { query } })),
    get: (id: number) => dataOf(http.GET('/api/v1/products/{id}', path({ id }))),
    create: (body: ProductBody) => dataOf(http.POST('/api/v1/products', { body })),
    update: (id: number, body: ProductBody) => dataOf(http.PUT('/api/v1/products/{id}', { ...path({ id }), body })),
    remove: (id: number) => dataOf(http.DELETE('/api/v1/products/{id}', path({ id }))),
    /** Every product with its benchmarks and image metadata: the JSON file as a Response, for saving. */
    exportAll: async () => (await http.GET('/api/v1/products/export', { parseAs: 'stream' })).response,
    images: (id: number) => dataOf(http.GET('/api/v1/products/{id}/images', path({ id }))),
    uploadImage: (id: number, image: Blob, scene: string) =>
      dataOf(http.POST('/api/v1/products/{id}/images', { ...path({ id }), body: { scene, image }, ...multipart })),
    setScene: (id: number, imageId: number, scene: string) =>
      dataOf(http.PATCH('/api/v1/products/{id}/images/{image_id}', { ...path({ id, image_id: imageId }), body: { scene } })),
    setPrimary: (id: number, imageId: number) =>
      dataOf(http.POST('/api/v1/products/{id}/images/{image_id}/primary', path({ id, image_id: imageId }))),
    removeImage: (id: number, imageId: number) =>
      dataOf(http.DELETE('/api/v1/products/{id}/images/{image_id}', path({ id, image_id: imageId }))),
  },
  benchmarks: {
    list: (productId: number, query: Paging) =>
      dataOf(http.GET('/api/v1/products/{id}/benchmarks', { params: { path: { id: productId }, query } })),
    /** `share_text`: a link or a pasted share text; the server reads the link (and a title for blank highlights) from it. */
    create: (productId: number, body: { highlights: string; share_text?: string }) =>
      dataOf(http.POST('/api/v1/products/{id}/benchmarks', { ...path({ id: productId }), body: { ...body, screenshot_url: null } })),
    upload: (productId: number, screenshot: Blob, highlights: string, shareText: string) =>
      dataOf(
        http.POST('/api/v1/products/{id}/benchmarks/upload', {
          ...path({ id: productId }),
          body: { screenshot, highlights: highlights || undefined, share_text: shareText || undefined },
          ...multipart,
        }),
      ),
    update: (id: number, body: Body<'/api/v1/benchmarks/{id}', 'patch'>) => dataOf(http.PATCH('/api/v1/benchmarks/{id}', { ...path({ id }), body })),
    remove: (id: number) => dataOf(http.DELETE('/api/v1/benchmarks/{id}', path({ id }))),
    /** The CSV (UTF-8 with BOM) of one product's benchmarks, or of all, as a Response for saving. */
    exportCsv: async (productId?: number) =>
      (await http.GET('/api/v1/benchmarks/export.csv', { params: { query: { product_id: productId } }, parseAs: 'stream' })).response,
    analyze: (id: number) => dataOf(http.POST('/api/v1/benchmarks/{id}/analyze', path({ id }))),
  },
  bannedWords: {
    list: (query: Query<'/api/v1/banned-words', 'get'>) => dataOf(http.GET('/api/v1/banned-words', { params: { query } })),
    createMany: (items: Body<'/api/v1/banned-words/bulk', 'post'>['items']) => dataOf(http.POST('/api/v1/banned-words/bulk', { body: { items } })),
    removeMany: (ids: number[]) => dataOf(http.POST('/api/v1/banned-words/bulk-delete', { body: { ids } })),
    create: (body: Body<'/api/v1/banned-words', 'post'>) => dataOf(http.POST('/api/v1/banned-words', { body })),
    update: (id: number, body: Body<'/api/v1/banned-words/{id}', 'put'>) =>
      dataOf(http.PUT('/api/v1/banned-words/{id}', { ...path({ id }), body })),
    get: (id: number) => dataOf(http.GET('/api/v1/banned-words/{id}', path({ id }))),
    remove: (id: number) => dataOf(http.DELETE('/api/v1/banned-words/{id}', path({ id }))),
    presets: () => dataOf(http.GET('/api/v1/banned-words/presets')),
    importPreset: (name: string) => dataOf(http.POST('/api/v1/banned-words/presets/{name}/import', path({ name }))),
  },
  tasks: {
    list: (query: Query<'/api/v1/tasks', 'get'>) =>
      dataOf(http.GET('/api/v1/tasks', { params: { query } })),
    covers: (ids: number[]) => dataOf(http.GET('/api/v1/tasks/covers', { params: { query: { ids: ids.join(',') } } })),
    create: (body: TaskCreate) => dataOf(http.POST('/api/v1/tasks', { body })),
    get: (id: number) => dataOf(http.GET('/api/v1/tasks/{id}', path({ id }))),
    sseTicket: (id: number) => dataOf(http.POST('/api/v1/tasks/{id}/sse-ticket', path({ id }))),
    selectText: (id: number, candidate_id: number, selected: boolean) =>
      dataOf(
        http.POST('/api/v1/tasks/{id}/text-candidates/select', { ...path({ id }), body: selected ? { candidate_id } : { candidate_id, selected } }),
      ),
    selectImage: (id: number, candidate_id: number, selected: boolean) =>
      dataOf(
        http.POST('/api/v1/tasks/{id}/image-candidates/select', { ...path({ id }), body: selected ? { candidate_id } : { candidate_id, selected } }),
      ),
    editText: (id: number, candidateId: number, body: Body<'/api/v1/tasks/{id}/text-candidates/{candidate_id}/edit', 'post'>) =>
      dataOf(http.POST('/api/v1/tasks/{id}/text-candidates/{candidate_id}/edit', { ...path({ id, candidate_id: candidateId }), body })),
    regenerateImage: (id: number, candidateId: number, instruction: string) =>
      dataOf(
        http.POST('/api/v1/tasks/{id}/image-candidates/{candidate_id}/regenerate', {
          ...path({ id, candidate_id: candidateId }),
          body: instruction.trim() ? { instruction: instruction.trim() } : {},
        }),
      ),
    editImageCaption: (id: number, candidateId: number, caption: string) =>
      dataOf(http.PATCH('/api/v1/tasks/{id}/image-candidates/{candidate_id}', { ...path({ id, candidate_id: candidateId }), body: { caption } })),
    /** `framing`: how a picture of another ratio becomes 3:4 (a window at `focus`, or padded on `background`). */
    uploadImage: (
      id: number,
      slot: { strategy: Strategy; seq: number; role: ImageRole },
      image: Blob,
      framing: { fit?: 'crop' | 'pad'; focus?: string; background?: string } = {},
    ) =>
      dataOf(
        http.POST('/api/v1/tasks/{id}/image-candidates/upload', {
          ...path({ id }),
          body: { strategy: slot.strategy, seq: String(slot.seq), role: slot.role, ...framing, image },
          ...multipart,
        }),
      ),
    /** Every failed image of the latest generation, or only `candidateIds` (one tile's retry). */
    retryImages: (id: number, candidateIds?: number[]) => dataOf(http.POST('/api/v1/tasks/{id}/retry-images', { ...path({ id }), body: candidateIds ? { candidate_ids: candidateIds } : {} })),
    importText: (id: number, body: Body<'/api/v1/tasks/{id}/import-text', 'post'>) =>
      dataOf(http.POST('/api/v1/tasks/{id}/import-text', { ...path({ id }), body })),
    regenerate: (id: number) => dataOf(http.POST('/api/v1/tasks/{id}/regenerate', path({ id }))),
    submitReview: (id: number, note?: string) => dataOf(http.POST('/api/v1/tasks/{id}/submit-review', { ...path({ id }), body: note ? { note } : {} })),
    archive: (id: number) => dataOf(http.POST('/api/v1/tasks/{id}/archive', path({ id }))),
    preference: (id: number) => dataOf(http.GET('/api/v1/tasks/{id}/preference/context', path({ id }))),
    createPackage: (id: number) => dataOf(http.POST('/api/v1/tasks/{id}/package', { ...path({ id }), body: {} })),
    packages: (id: number, query: Paging) => dataOf(http.GET('/api/v1/tasks/{id}/packages', { params: { path: { id }, query } })),
    reviews: (id: number) => dataOf(http.GET('/api/v1/tasks/{id}/reviews', { params: { path: { id }, query: { page: 1, page_size: 100 } } })),
    /** The task's audit trail as CSV (UTF-8 with BOM), as a Response for saving. */
    auditCsv: async (id: number) => (await http.GET('/api/v1/tasks/{id}/audit', { params: { path: { id }, query: { format: 'csv' } }, parseAs: 'stream' })).response,
  },
  review: {
    queue: () => dataOf(http.GET('/api/v1/review/queue')),
    /** How many tasks wait for review (the menu's badge): one item fetched, its `total` read. */
    pendingCount: async () => (await dataOf(http.GET('/api/v1/review/queue', { params: { query: { page: 1, page_size: 1 } } }))).total,
    approve: (taskId: number) => dataOf(http.POST('/api/v1/review/{task_id}/approve', path({ task_id: taskId }))),
    reject: (taskId: number, reason: string, final: boolean) =>
      dataOf(http.POST('/api/v1/review/{task_id}/reject', { ...path({ task_id: taskId }), body: final ? { reason, final } : { reason } })),
  },
  packages: {
    status: (id: number) => dataOf(http.GET('/api/v1/delivery-packages/{id}/download', path({ id }))),
    markDownloaded: (id: number) => dataOf(http.POST('/api/v1/delivery-packages/{id}/mark-downloaded', path({ id }))),
    downloadToken: (id: number) => dataOf(http.POST('/api/v1/delivery-packages/{id}/download-token', path({ id }))),
  },
  accounts: {
    list: (query: Query<'/api/v1/accounts', 'get'>) => dataOf(http.GET('/api/v1/accounts', { params: { query } })),
    create: (body: Body<'/api/v1/accounts', 'post'>) => dataOf(http.POST('/api/v1/accounts', { body })),
    update: (id: number, body: Body<'/api/v1/accounts/{id}', 'patch'>) => dataOf(http.PATCH('/api/v1/accounts/{id}', { ...path({ id }), body })),
    /** An account with posts is deactivated rather than deleted: the answer says which. */
    remove: (id: number) => dataOf(http.DELETE('/api/v1/accounts/{id}', path({ id }))),
  },
  posts: {
    list: (query: Query<'/api/v1/posts', 'get'>) => dataOf(http.GET('/api/v1/posts', { params: { query } })),
    get: (id: number) => dataOf(http.GET('/api/v1/posts/{id}', path({ id }))),
    create: (body: Body<'/api/v1/posts', 'post'>) => dataOf(http.POST('/api/v1/posts', { body })),
    update: (id: number, body: Body<'/api/v1/posts/{id}', 'patch'>) => dataOf(http.PATCH('/api/v1/posts/{id}', { ...path({ id }), body })),
    cancel: (id: number) => dataOf(http.DELETE('/api/v1/posts/{id}', path({ id }))),
    kit: (id: number) => dataOf(http.GET('/api/v1/posts/{id}/kit', path({ id }))),
    markPublished: (id: number, note_url: string) => dataOf(http.POST('/api/v1/posts/{id}/published', { ...path({ id }), body: { note_url } })),
    /** A snapshot of the post's counts (now); a count left out is unknown. */
    recordMetrics: (id: number, body: Body<'/api/v1/posts/{id}/metrics', 'post'>) =>
      dataOf(http.POST('/api/v1/posts/{id}/metrics', { ...path({ id }), body })),
  },
  metrics: {
    /** The creator centre's note-data export (CSV or XLSX): matched rows become snapshots, the rest come back with why. */
    importFile: (file: Blob) => dataOf(http.POST('/api/v1/metrics/import', { body: { file }, ...multipart })),
  },
  analytics: {
    overview: (query: Query<'/api/v1/analytics/overview', 'get'>) => dataOf(http.GET('/api/v1/analytics/overview', { params: { query } })),
  },
  fission: {
    create: (source_task_id: number, reference_level: ReferenceLevel, fanout_count: number, account_id?: number) =>
      dataOf(http.POST('/api/v1/fission', { body: { source_task_id, reference_level, fanout_count, ...(account_id ? { account_id } : {}) } })),
    list: (query: Paging & { source_task_id?: number }) => dataOf(http.GET('/api/v1/fission', { params: { query } })),
    get: (id: number) => dataOf(http.GET('/api/v1/fission/{id}', path({ id }))),
    notes: (id: number) => dataOf(http.GET('/api/v1/fission/{id}/notes', path({ id }))),
    /** The zip as a Response, for saving. */
    download: async (id: number) => (await http.GET('/api/v1/fission/{id}/download', { ...path({ id }), parseAs: 'stream' })).response,
    retryImages: (id: number, seq: number) => dataOf(http.POST('/api/v1/fission/{id}/notes/{seq}/retry-images', path({ id, seq }))),
    editNote: (id: number, seq: number, body: Body<'/api/v1/fission/{id}/notes/{seq}/edit', 'post'>) =>
      dataOf(http.POST('/api/v1/fission/{id}/notes/{seq}/edit', { ...path({ id, seq }), body })),
    /** One set's zip as a Response, for saving. */
    downloadSet: async (id: number, seq: number) =>
      (await http.GET('/api/v1/fission/{id}/notes/{seq}/download', { ...path({ id, seq }), parseAs: 'stream' })).response,
  },
  batches: {
    list: (query: Paging) => dataOf(http.GET('/api/v1/batches', { params: { query } })),
    get: (id: number) => dataOf(http.GET('/api/v1/batches/{id}', path({ id }))),
    /** `key`: the Idempotency-Key of this submission, so a retry or a double click makes one batch. */
    create: (body: Body<'/api/v1/batches', 'post'>, key: string) => dataOf(http.POST('/api/v1/batches', { params: { header: { 'idempotency-key': key } }, body })),
    cancel: (id: number) => dataOf(http.POST('/api/v1/batches/{id}/cancel', path({ id }))),
    /** A CSV or XLSX plan read into items, and the rows that could not be, with why (nothing is created). */
    plan: (file: Blob) => dataOf(http.POST('/api/v1/batches/plan', { body: { file }, ...multipart })),
  },
  comments: {
    list: (taskId: number) => dataOf(http.GET('/api/v1/tasks/{id}/comments', path({ id: taskId }))),
    /** No anchor: a remark on the task as a whole. */
    add: (taskId: number, body: Body<'/api/v1/tasks/{id}/comments', 'post'>) => dataOf(http.POST('/api/v1/tasks/{id}/comments', { ...path({ id: taskId }), body })),
    resolve: (taskId: number, commentId: number, resolved: boolean) =>
      dataOf(http.POST('/api/v1/tasks/{id}/comments/{comment_id}/resolve', { ...path({ id: taskId, comment_id: commentId }), body: { resolved } })),
    remove: (taskId: number, commentId: number) => dataOf(http.DELETE('/api/v1/tasks/{id}/comments/{comment_id}', path({ id: taskId, comment_id: commentId }))),
  },
};
