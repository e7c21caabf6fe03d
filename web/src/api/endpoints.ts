/**
 * Every endpoint the client calls, declared once with its method and path template. ROUTES is
 * the list the e2e suite checks against the running server's OpenAPI document.
 */
import { request, send, type Query } from './client';
import type {
  AdminUser,
  ApiKey,
  BannedPreset,
  BannedWord,
  BannedWordBody,
  Benchmark,
  CurrentUser,
  DeliveryPackage,
  FissionCreated,
  FissionListItem,
  ImageCandidate,
  FissionNotes,
  FissionStatus,
  Invitation,
  LoginResult,
  MyInvitation,
  Page,
  PreferenceContext,
  Product,
  ProductBody,
  ProductImage,
  ReferenceLevel,
  RetryResult,
  ReviewRecord,
  ReviewItem,
  Role,
  Strategy,
  TaskCreate,
  TaskDetail,
  TaskListItem,
  TextCandidate,
  Webhook,
  WebhookBody,
  WebhookDelivery,
  WorkspaceItem,
} from './types';

export const ROUTES: { method: string; path: string }[] = [];

type PathParams = Record<string, number | string>;
interface CallOptions {
  query?: Query;
  body?: unknown;
  form?: FormData;
}

function fill(template: string, params: PathParams = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(String(params[key])));
}

function route<T>(method: string, path: string) {
  ROUTES.push({ method, path });
  return (params?: PathParams, opts?: CallOptions) => request<T>(method, fill(path, params), opts);
}

function fileRoute(method: string, path: string) {
  ROUTES.push({ method, path });
  return (params?: PathParams) => send(method, fill(path, params));
}

type Empty = Record<string, never>;
type Paging = { page?: number; page_size?: number };

const r = {
  login: route<LoginResult>('POST', '/auth/login'),
  changePassword: route<LoginResult>('POST', '/auth/change-password'),
  me: route<CurrentUser>('GET', '/auth/me'),
  switchWorkspace: route<{ current_workspace_id: number; role: Role; token: string }>('POST', '/workspaces/switch'),
  workspaces: route<Page<WorkspaceItem>>('GET', '/workspaces'),
  createWorkspace: route<WorkspaceItem>('POST', '/workspaces'),
  addMember: route<unknown>('POST', '/workspaces/{id}/members'),
  removeMember: route<Empty>('DELETE', '/workspaces/{id}/members/{user_id}'),
  invite: route<Invitation>('POST', '/workspaces/{id}/invitations'),
  workspaceInvitations: route<Page<Invitation>>('GET', '/workspaces/{id}/invitations'),
  revokeInvitation: route<Invitation>('DELETE', '/workspaces/{id}/invitations/{invitation_id}'),
  myInvitations: route<Page<MyInvitation>>('GET', '/invitations'),
  acceptInvitation: route<WorkspaceItem>('POST', '/invitations/{id}/accept'),
  declineInvitation: route<Empty>('POST', '/invitations/{id}/decline'),
  users: route<Page<AdminUser>>('GET', '/users'),
  createUser: route<AdminUser>('POST', '/users'),
  updateUser: route<AdminUser>('PATCH', '/users/{id}'),
  webhooks: route<{ items: Webhook[] }>('GET', '/webhooks'),
  createWebhook: route<Webhook>('POST', '/webhooks'),
  updateWebhook: route<Webhook>('PATCH', '/webhooks/{id}'),
  deleteWebhook: route<Empty>('DELETE', '/webhooks/{id}'),
  testWebhook: route<WebhookDelivery>('POST', '/webhooks/{id}/test'),
  webhookDeliveries: route<Page<WebhookDelivery>>('GET', '/webhooks/{id}/deliveries'),
  apiKeys: route<Page<ApiKey>>('GET', '/api-keys'),
  createApiKey: route<ApiKey>('POST', '/api-keys'),
  deleteApiKey: route<Empty>('DELETE', '/api-keys/{id}'),
  products: route<Page<Product>>('GET', '/products'),
  createProduct: route<Product>('POST', '/products'),
  product: route<Product>('GET', '/products/{id}'),
  updateProduct: route<Product>('PUT', '/products/{id}'),
  deleteProduct: route<Empty>('DELETE', '/products/{id}'),
  productImages: route<{ items: ProductImage[] }>('GET', '/products/{id}/images'),
  uploadProductImage: route<ProductImage>('POST', '/products/{id}/images'),
  updateProductImage: route<ProductImage>('PATCH', '/products/{id}/images/{image_id}'),
  primaryProductImage: route<ProductImage>('POST', '/products/{id}/images/{image_id}/primary'),
  deleteProductImage: route<Empty>('DELETE', '/products/{id}/images/{image_id}'),
  benchmarks: route<Page<Benchmark>>('GET', '/products/{id}/benchmarks'),
  createBenchmark: route<Benchmark>('POST', '/products/{id}/benchmarks'),
  uploadBenchmark: route<Benchmark>('POST', '/products/{id}/benchmarks/upload'),
  analyzeBenchmark: route<Benchmark>('POST', '/benchmarks/{id}/analyze'),
  bannedWords: route<Page<BannedWord>>('GET', '/banned-words'),
  createBannedWord: route<BannedWord>('POST', '/banned-words'),
  updateBannedWord: route<BannedWord>('PUT', '/banned-words/{id}'),
  deleteBannedWord: route<Empty>('DELETE', '/banned-words/{id}'),
  bannedPresets: route<{ items: BannedPreset[] }>('GET', '/banned-words/presets'),
  importPreset: route<{ preset: string; imported: number; skipped: number }>('POST', '/banned-words/presets/{name}/import'),
  tasks: route<Page<TaskListItem>>('GET', '/tasks'),
  createTask: route<{ id: number } & Partial<TaskListItem>>('POST', '/tasks'),
  task: route<TaskDetail>('GET', '/tasks/{id}'),
  sseTicket: route<{ ticket: string; expires_in: number }>('POST', '/tasks/{id}/sse-ticket'),
  selectText: route<unknown>('POST', '/tasks/{id}/text-candidates/select'),
  selectImage: route<unknown>('POST', '/tasks/{id}/image-candidates/select'),
  editText: route<TextCandidate>('POST', '/tasks/{id}/text-candidates/{candidate_id}/edit'),
  importText: route<TextCandidate>('POST', '/tasks/{id}/import-text'),
  regenerate: route<unknown>('POST', '/tasks/{id}/regenerate'),
  regenerateImage: route<{ queued: true }>('POST', '/tasks/{id}/image-candidates/{candidate_id}/regenerate'),
  uploadImage: route<ImageCandidate>('POST', '/tasks/{id}/image-candidates/upload'),
  retryTaskImages: route<{ queued: number; failed_roles: string[] }>('POST', '/tasks/{id}/retry-images'),
  submitReview: route<unknown>('POST', '/tasks/{id}/submit-review'),
  archive: route<TaskListItem>('POST', '/tasks/{id}/archive'),
  preference: route<PreferenceContext>('GET', '/tasks/{id}/preference/context'),
  reviewQueue: route<Page<ReviewItem>>('GET', '/review/queue'),
  approve: route<unknown>('POST', '/review/{task_id}/approve'),
  reject: route<unknown>('POST', '/review/{task_id}/reject'),
  reviewHistory: route<Page<ReviewRecord>>('GET', '/tasks/{id}/reviews'),
  createPackage: route<{ delivery_package_id: number; status: string }>('POST', '/tasks/{id}/package'),
  taskPackages: route<Page<DeliveryPackage>>('GET', '/tasks/{id}/packages'),
  packageStatus: route<DeliveryPackage>('GET', '/delivery-packages/{id}/download'),
  markDownloaded: route<DeliveryPackage>('POST', '/delivery-packages/{id}/mark-downloaded'),
  downloadToken: route<{ token: string; expires_in: number }>('POST', '/delivery-packages/{id}/download-token'),
  createFission: route<FissionCreated>('POST', '/fission'),
  fissions: route<Page<FissionListItem>>('GET', '/fission'),
  fission: route<FissionStatus>('GET', '/fission/{id}'),
  fissionNotes: route<FissionNotes>('GET', '/fission/{id}/notes'),
  fissionDownload: fileRoute('GET', '/fission/{id}/download'),
  retryImages: route<RetryResult>('POST', '/fission/{id}/notes/{seq}/retry-images'),
};
// Reached through a plain link with a one-time token (no bearer header, no JWT in the URL).
ROUTES.push({ method: 'GET', path: '/delivery-packages/{id}/download-file' });

export const api = {
  auth: {
    login: (username: string, password: string) => r.login({}, { body: { username, password } }),
    changePassword: (current_password: string, new_password: string) =>
      r.changePassword({}, { body: { current_password, new_password } }),
    me: () => r.me(),
  },
  workspaces: {
    list: () => r.workspaces(),
    switch: (workspace_id: number) => r.switchWorkspace({}, { body: { workspace_id } }),
    create: (name: string, slug: string) => r.createWorkspace({}, { body: { name, slug } }),
    addMember: (id: number, username: string, role: Role) => r.addMember({ id }, { body: { username, role } }),
    removeMember: (id: number, userId: number) => r.removeMember({ id, user_id: userId }),
    /** `who`: a username, or an email address when it contains "@" and a dot after it. */
    invite: (id: number, who: { username: string } | { email: string }, role: Role) => r.invite({ id }, { body: { ...who, role } }),
    invitations: (id: number, query: Paging) => r.workspaceInvitations({ id }, { query }),
    revokeInvitation: (id: number, invitationId: number) => r.revokeInvitation({ id, invitation_id: invitationId }),
  },
  invitations: {
    mine: () => r.myInvitations({}, { query: { page_size: 100 } }),
    accept: (id: number) => r.acceptInvitation({ id }),
    decline: (id: number) => r.declineInvitation({ id }),
  },
  users: {
    list: (query: Paging) => r.users({}, { query }),
    create: (body: { username: string; email: string; password: string; role: Role }) => r.createUser({}, { body }),
    update: (id: number, body: Partial<{ email: string; role: Role; is_active: boolean; password: string }>) =>
      r.updateUser({ id }, { body }),
  },
  webhooks: {
    list: () => r.webhooks(),
    create: (body: WebhookBody) => r.createWebhook({}, { body }),
    /** `secret: null` removes it; absent fields stay as they are. */
    update: (id: number, body: Partial<Omit<WebhookBody, 'secret'>> & { secret?: string | null; is_active?: boolean }) => r.updateWebhook({ id }, { body }),
    remove: (id: number) => r.deleteWebhook({ id }),
    test: (id: number) => r.testWebhook({ id }),
    deliveries: (id: number, query: Paging) => r.webhookDeliveries({ id }, { query }),
  },
  apiKeys: {
    list: (query: Paging) => r.apiKeys({}, { query }),
    create: (provider: string, api_key: string) => r.createApiKey({}, { body: { provider, api_key } }),
    remove: (id: number) => r.deleteApiKey({ id }),
  },
  products: {
    list: (query: Paging & { q?: string }) => r.products({}, { query }),
    get: (id: number) => r.product({ id }),
    create: (body: ProductBody) => r.createProduct({}, { body }),
    update: (id: number, body: ProductBody) => r.updateProduct({ id }, { body }),
    remove: (id: number) => r.deleteProduct({ id }),
    images: (id: number) => r.productImages({ id }),
    uploadImage: (id: number, file: Blob, scene: string) => {
      const form = new FormData();
      form.append('scene', scene);
      form.append('image', file);
      return r.uploadProductImage({ id }, { form });
    },
    setScene: (id: number, imageId: number, scene: string) =>
      r.updateProductImage({ id, image_id: imageId }, { body: { scene } }),
    setPrimary: (id: number, imageId: number) => r.primaryProductImage({ id, image_id: imageId }),
    removeImage: (id: number, imageId: number) => r.deleteProductImage({ id, image_id: imageId }),
  },
  benchmarks: {
    list: (productId: number, query: Paging) => r.benchmarks({ id: productId }, { query }),
    create: (productId: number, body: { highlights: string; link_url: string | null }) =>
      r.createBenchmark({ id: productId }, { body: { ...body, screenshot_url: null } }),
    upload: (productId: number, file: Blob, highlights: string, linkUrl: string) => {
      const form = new FormData();
      if (highlights) form.append('highlights', highlights);
      if (linkUrl) form.append('link_url', linkUrl);
      form.append('screenshot', file);
      return r.uploadBenchmark({ id: productId }, { form });
    },
    analyze: (id: number) => r.analyzeBenchmark({ id }),
  },
  bannedWords: {
    list: (query: Paging) => r.bannedWords({}, { query }),
    create: (body: BannedWordBody) => r.createBannedWord({}, { body }),
    update: (id: number, body: BannedWordBody) => r.updateBannedWord({ id }, { body }),
    remove: (id: number) => r.deleteBannedWord({ id }),
    presets: () => r.bannedPresets(),
    importPreset: (name: string) => r.importPreset({ name }),
  },
  tasks: {
    list: (query: Paging & { status?: string; product_id?: number; date_from?: string; date_to?: string }) =>
      r.tasks({}, { query }),
    create: (body: TaskCreate) => r.createTask({}, { body }),
    get: (id: number) => r.task({ id }),
    sseTicket: (id: number) => r.sseTicket({ id }),
    selectText: (id: number, candidate_id: number, selected: boolean) =>
      r.selectText({ id }, { body: selected ? { candidate_id } : { candidate_id, selected } }),
    selectImage: (id: number, candidate_id: number, selected: boolean) =>
      r.selectImage({ id }, { body: selected ? { candidate_id } : { candidate_id, selected } }),
    editText: (id: number, candidateId: number, body: { content: string; title?: string; tags?: string[]; cover_title?: string }) =>
      r.editText({ id, candidate_id: candidateId }, { body }),
    regenerateImage: (id: number, candidateId: number, instruction: string) =>
      r.regenerateImage({ id, candidate_id: candidateId }, { body: instruction.trim() ? { instruction: instruction.trim() } : {} }),
    uploadImage: (id: number, slot: { strategy: Strategy; seq: number; role: string }, file: Blob) => {
      const form = new FormData();
      form.append('strategy', slot.strategy);
      form.append('seq', String(slot.seq));
      form.append('role', slot.role);
      form.append('image', file);
      return r.uploadImage({ id }, { form });
    },
    retryImages: (id: number) => r.retryTaskImages({ id }),
    importText: (id: number, body: { content: string; angle_label: string; strategy?: Strategy }) =>
      r.importText({ id }, { body }),
    regenerate: (id: number) => r.regenerate({ id }),
    submitReview: (id: number) => r.submitReview({ id }),
    archive: (id: number) => r.archive({ id }),
    preference: (id: number) => r.preference({ id }),
    createPackage: (id: number) => r.createPackage({ id }, { body: {} }),
    packages: (id: number, query: Paging) => r.taskPackages({ id }, { query }),
    reviews: (id: number) => r.reviewHistory({ id }, { query: { page: 1, page_size: 100 } }),
  },
  review: {
    queue: () => r.reviewQueue(),
    /** How many tasks wait for review (the menu's badge): one item fetched, its `total` read. */
    pendingCount: async () => (await r.reviewQueue({}, { query: { page: 1, page_size: 1 } })).total,
    approve: (taskId: number) => r.approve({ task_id: taskId }),
    reject: (taskId: number, reason: string, final: boolean) =>
      r.reject({ task_id: taskId }, { body: final ? { reason, final } : { reason } }),
  },
  packages: {
    status: (id: number) => r.packageStatus({ id }),
    markDownloaded: (id: number) => r.markDownloaded({ id }),
    downloadToken: (id: number) => r.downloadToken({ id }),
  },
  fission: {
    create: (source_task_id: number, reference_level: ReferenceLevel, fanout_count: number) =>
      r.createFission({}, { body: { source_task_id, reference_level, fanout_count } }),
    list: (query: Paging & { source_task_id?: number }) => r.fissions({}, { query }),
    get: (id: number) => r.fission({ id }),
    notes: (id: number) => r.fissionNotes({ id }),
    download: (id: number) => r.fissionDownload({ id }),
    retryImages: (id: number, seq: number) => r.retryImages({ id, seq }),
  },
};
