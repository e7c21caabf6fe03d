/**
 * Names for the contract's shapes, every one read from the generated OpenAPI types (schema.d.ts,
 * `npm run gen:api -w web`): nothing here is written by hand, so a renamed or retyped field on the
 * server fails `npm run typecheck` wherever the console uses it.
 */
import type { paths } from './schema';
import { STRATEGIES as SERVER_STRATEGIES, TASK_STATUSES as SERVER_TASK_STATUSES } from './constants';

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Operation<P extends keyof paths, M extends keyof paths[P]> = paths[P][M];
/** `data` of the operation's 200 answer. */
export type Data<P extends keyof paths, M extends keyof paths[P]> =
  Operation<P, M> extends { responses: { 200: infer R } } ? (Json<R> extends { data: infer D } ? D : never) : never;
/** The operation's JSON request body. */
export type Body<P extends keyof paths, M extends keyof paths[P]> =
  Operation<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
/** The operation's query parameters. */
export type Query<P extends keyof paths, M extends keyof paths[P]> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type Item<T> = T extends readonly (infer I)[] ? I : never;
type ItemOf<P extends keyof paths, M extends keyof paths[P]> = Data<P, M> extends { items: infer I } ? Item<I> : never;

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

export type LoginResult = Data<'/api/v1/auth/login', 'post'>;
export type User = LoginResult['user'];
export type CurrentUser = Data<'/api/v1/auth/me', 'get'>;
export type Role = User['role'];
export type WorkspaceItem = ItemOf<'/api/v1/workspaces', 'get'>;
export type Invitation = ItemOf<'/api/v1/workspaces/{id}/invitations', 'get'>;
export type InvitationStatus = Invitation['status'];
export type MyInvitation = ItemOf<'/api/v1/invitations', 'get'>;
export type AdminUser = ItemOf<'/api/v1/users', 'get'>;
export type ApiKey = ItemOf<'/api/v1/api-keys', 'get'>;

export type AccessToken = ItemOf<'/api/v1/auth/tokens', 'get'>;
export type AccessTokenScope = Item<AccessToken['scopes']>;
export type Webhook = ItemOf<'/api/v1/webhooks', 'get'>;
export type WebhookBody = Body<'/api/v1/webhooks', 'post'>;
export type WebhookKind = Webhook['kind'];
export type WebhookEvent = Item<Webhook['events']>;
export type WebhookDelivery = Data<'/api/v1/webhooks/{id}/test', 'post'>;
export type WebhookErrorKind = NonNullable<WebhookDelivery['last_error']>;

export type ProductBody = Body<'/api/v1/products', 'post'>;
export type Product = Data<'/api/v1/products/{id}', 'get'>;
export type ProductImage = ItemOf<'/api/v1/products/{id}/images', 'get'>;
export type Benchmark = Data<'/api/v1/benchmarks/{id}', 'get'>;
export type AnalyzeStatus = Benchmark['analyze_status'];

export type BannedWordBody = Body<'/api/v1/banned-words', 'post'>;
export type BannedWord = Data<'/api/v1/banned-words/{id}', 'get'>;
export type BannedLevel = BannedWord['level'];
export type BannedPreset = ItemOf<'/api/v1/banned-words/presets', 'get'>;

export type TaskCreate = Body<'/api/v1/tasks', 'post'>;
export type Track = TaskCreate['track'];
export type TaskListItem = ItemOf<'/api/v1/tasks', 'get'>;
export type TaskStatus = TaskListItem['status'];
export type TaskDetail = Data<'/api/v1/tasks/{id}', 'get'>;
export type TaskAction = Item<TaskDetail['allowed_actions']>;
export type TextCandidate = Item<TaskDetail['text_candidates']>;
export type ImageCandidate = Item<TaskDetail['image_candidates']>;
export type Strategy = ImageCandidate['strategy'];
export type ImageRole = ImageCandidate['role'];
export type Score = TextCandidate['score'];
export type BannedStatus = TextCandidate['banned_word_status'];
export type Progress = NonNullable<TaskDetail['progress']>;
export type Stage = 'text' | 'score' | 'image' | 'package';
export type PreferenceContext = Data<'/api/v1/tasks/{id}/preference/context', 'get'>;

export type ReviewItem = ItemOf<'/api/v1/review/queue', 'get'>;
export type SelectedSet = Item<ReviewItem['selected_sets']>;
export type TaskComment = ItemOf<'/api/v1/tasks/{id}/comments', 'get'>;
export type CommentAnchor = TaskComment['anchor'];
export type PreviousRejection = NonNullable<ReviewItem['previous_rejection']>;
export type ReviewRecord = ItemOf<'/api/v1/tasks/{id}/reviews', 'get'>;

export type DeliveryPackage = Data<'/api/v1/delivery-packages/{id}/download', 'get'>;
export type PackageStatus = DeliveryPackage['status'];

export type FissionCreated = Data<'/api/v1/fission', 'post'>;
export type ReferenceLevel = FissionCreated['reference_level'];
export type FissionStatus = Data<'/api/v1/fission/{id}', 'get'>;
export type FissionNotes = Data<'/api/v1/fission/{id}/notes', 'get'>;
export type FissionNote = Item<FissionNotes['notes']>;
export type FissionImage = Item<FissionNote['images']>;
export type FissionListItem = ItemOf<'/api/v1/fission', 'get'>;
export type RetryResult = Data<'/api/v1/fission/{id}/notes/{seq}/retry-images', 'post'>;

export type Account = ItemOf<'/api/v1/accounts', 'get'>;
export type AccountBody = Body<'/api/v1/accounts', 'post'>;
export type Post = ItemOf<'/api/v1/posts', 'get'>;
export type PostStatus = Post['status'];
export type PostCreate = Body<'/api/v1/posts', 'post'>;
export type PostKit = Data<'/api/v1/posts/{id}/kit', 'get'>;
export type KitImage = Item<PostKit['images']>;
export type MetricsSnapshot = Data<'/api/v1/posts/{id}/metrics', 'post'>;
export type MetricsInput = Body<'/api/v1/posts/{id}/metrics', 'post'>;
export type ImportResult = Data<'/api/v1/metrics/import', 'post'>;
export type UnmatchedRow = Item<ImportResult['unmatched']>;
export type AnalyticsOverview = Data<'/api/v1/analytics/overview', 'get'>;
export type EngagementGroup = Item<AnalyticsOverview['engagement']['by_strategy']>;

export const STRATEGIES: readonly Strategy[] = SERVER_STRATEGIES;
export const TASK_STATUSES: readonly TaskStatus[] = SERVER_TASK_STATUSES;

export type BatchCreate = Body<'/api/v1/batches', 'post'>;
export type BatchMatrix = NonNullable<BatchCreate['matrix']>;
export type BatchItemInput = Item<NonNullable<BatchCreate['items']>>;
export type Batch = ItemOf<'/api/v1/batches', 'get'>;
export type BatchStatus = Batch['status'];
export type BatchCounts = Batch['counts'];
export type BatchDetail = Data<'/api/v1/batches/{id}', 'get'>;
export type BatchItemView = Item<BatchDetail['items']>;
export type BatchItemState = BatchItemView['state'];
export type PlanResult = Data<'/api/v1/batches/plan', 'post'>;
export type PlanError = Item<PlanResult['errors']>;
