/**
 * Shapes of the contract (content-production-api-v1 + contract-decisions). Checked against the
 * server's OpenAPI document: see openapi-check.ts (compile time) and the e2e endpoint check.
 */
export type Role = 'admin' | 'supervisor' | 'operator';
export type Strategy = 'A' | 'B' | 'C';
export const STRATEGIES: Strategy[] = ['A', 'B', 'C'];

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

export interface User {
  id: number;
  username: string;
  email: string;
  current_workspace_id: number | null;
  role: Role;
  must_change_password: boolean;
}
export interface CurrentUser extends User {
  workspace: { id: number; name: string; slug: string };
}
export interface LoginResult {
  token: string;
  user: User;
}
export interface WorkspaceItem {
  id: number;
  name: string;
  slug: string;
  role: Role;
}
export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked' | 'expired';
/** An invitation as the admins of its workspace see it. */
export interface Invitation {
  id: number;
  workspace_id: number;
  invitee: string;
  invitee_kind: 'username' | 'email';
  role: Role;
  status: InvitationStatus;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  responded_at: string | null;
}
/** A pending invitation as the invited user sees it. */
export interface MyInvitation {
  id: number;
  workspace: { id: number; name: string; slug: string };
  role: Role;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}
export interface AdminUser {
  id: number;
  username: string;
  email: string;
  role: Role;
  is_active: boolean;
  must_change_password: boolean;
  created_at: string;
}

export type WebhookKind = 'generic' | 'feishu' | 'wecom' | 'dingtalk';
export type WebhookEvent = 'task.pending_selection' | 'task.failed' | 'task.submitted' | 'task.approved' | 'task.rejected' | 'package.ready' | 'fission.completed';
export type WebhookErrorKind = 'timeout' | 'unreachable' | 'blocked_address' | 'http_status' | 'app_error';

/** A webhook as the server shows it: URL masked, secret never (only `has_secret`). */
export interface Webhook {
  id: number;
  name: string;
  kind: WebhookKind;
  url: string;
  events: WebhookEvent[];
  has_secret: boolean;
  is_active: boolean;
  created_at: string;
}

export interface WebhookBody {
  name: string;
  kind: WebhookKind;
  url: string;
  events: WebhookEvent[];
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  event: WebhookEvent | 'webhook.test';
  status: 'pending' | 'delivered' | 'failed';
  http_status: number | null;
  attempts: number;
  created_at: string;
  delivered_at: string | null;
  next_attempt_at: string | null;
  last_error: WebhookErrorKind | null;
  attempt_log: Array<{ attempt: number; at: string; ok: boolean; http_status: number | null; latency_ms: number; error_kind: WebhookErrorKind | null; excerpt: string | null }>;
}

export interface ApiKey {
  id: number;
  provider: string;
  key_last4: string;
  created_at: string;
}

export interface ProductBody {
  name: string;
  category: string;
  source: 'preset' | 'custom';
  selling_points?: string[];
  style_tone?: string;
  text_angles?: string[];
  custom_prompt?: string | null;
  banned_word_ids?: number[];
}
export interface Product extends Required<Omit<ProductBody, 'custom_prompt' | 'style_tone'>> {
  id: number;
  workspace_id: number;
  style_tone: string | null;
  custom_prompt: string | null;
  created_at: string;
}
export interface ProductImage {
  id: number;
  url: string;
  scene: string;
  is_primary: boolean;
  created_at: string;
}

export type AnalyzeStatus = 'pending' | 'analyzing' | 'done' | 'failed';
export interface Benchmark {
  id: number;
  product_id: number;
  screenshot_url: string | null;
  highlights: string;
  link_url: string | null;
  features: Record<string, unknown> | null;
  analyze_status: AnalyzeStatus;
  analysis_source: string | null;
  analysis_warning: string | null;
  /** The same reasons as codes the console words itself (server: modules/benchmarks/warnings.ts). */
  analysis_warning_codes: string[];
  created_at: string;
}

export type BannedLevel = 'auto_fix' | 'soft_warn' | 'hard_block';
export interface BannedWordBody {
  word: string;
  level: BannedLevel;
  replacement: string | null;
  updatable: boolean;
}
export interface BannedWord extends BannedWordBody {
  id: number;
  workspace_id: number;
}
export interface BannedPreset {
  name: string;
  title: string;
  description: string;
  word_count: number;
}

export type TaskStatus =
  | 'pending'
  | 'generating'
  | 'pending_selection'
  | 'pending_review'
  | 'approved'
  | 'rejected'
  | 'archived'
  | 'failed';
export const TASK_STATUSES: TaskStatus[] = [
  'pending',
  'generating',
  'pending_selection',
  'pending_review',
  'approved',
  'rejected',
  'archived',
  'failed',
];
export type Track = 'ai' | 'import';
export interface TaskCreate {
  product_id: number;
  benchmark_ids?: number[];
  theme: string;
  text_count: number;
  image_count: number;
  track: Track;
}
export interface TaskListItem {
  id: number;
  product_id: number;
  product_name: string;
  theme: string;
  status: TaskStatus;
  created_at: string;
  text_count: number;
  image_count: number;
  track: Track;
  need_product_image: boolean;
  review_status: string | null;
  reject_reason: string | null;
  reviewed_at: string | null;
}
export interface Score {
  title: number;
  emotion: number;
  selling: number;
  keyword: number;
  compliance: number;
  total: number;
}
export type BannedStatus = 'pass' | 'auto_fixed' | 'soft_warn' | 'hard_block';
export interface TextCandidate {
  candidate_id: number;
  angle_label: string;
  strategy: Strategy | null;
  title: string;
  content: string;
  tags: string[];
  cover_title: string;
  image_brief: string;
  source: 'ai' | 'import';
  score: Score;
  banned_word_status: BannedStatus;
  is_selected: boolean;
  verdict: string;
  summary: string;
  edited: boolean;
}
export type ImageRole = 'hook' | 'pain' | 'proof' | 'quality' | 'credit' | 'convert' | 'main';
export interface ImageCandidate {
  candidate_id: number;
  strategy: Strategy;
  /** Null while the image is being made (`pending`) or when it failed. */
  url: string | null;
  role: ImageRole;
  seq: number;
  is_selected: boolean;
  is_regen: boolean;
  ai_visual_score: number | null;
  ai_visual_note: string | null;
  source: 'ai' | 'upload';
  status: 'pending' | 'done' | 'failed';
  error_kind: string | null;
  instruction: string | null;
}
export type Stage = 'text' | 'score' | 'image' | 'package';
export interface Progress {
  stage: Stage | string;
  done: number;
  total: number;
}
/** What the caller may do with a task now (contract-decisions §8): the console shows only these buttons. */
export type TaskAction =
  | 'select'
  | 'edit'
  | 'import_text'
  | 'regenerate'
  | 'regenerate_image'
  | 'upload_image'
  | 'retry_images'
  | 'submit_review'
  | 'approve'
  | 'reject'
  | 'package'
  | 'archive'
  | 'fission';
export interface TaskDetail extends TaskListItem {
  benchmark_ids: number[];
  allowed_actions: TaskAction[];
  /** Why the last generation failed (server addition), shown on a failed task. */
  failure_reason: string | null;
  text_candidates: TextCandidate[];
  image_candidates: ImageCandidate[];
  progress: Progress | null;
}
export interface PreferenceContext {
  recent_preference: string;
  reject_reasons: string[];
  injected_count: number;
}

export interface SelectedSet {
  strategy: Strategy;
  selected_text: TextCandidate | null;
  selected_images: ImageCandidate[];
}
export interface ReviewRecord {
  id: number;
  action: 'submit' | 'approve' | 'reject';
  username: string;
  reason: string | null;
  final: boolean;
  created_at: string;
}
export interface ReviewItem {
  task_id: number;
  product_name: string;
  theme: string;
  submitted_at: string;
  operator_name: string;
  selected_text: TextCandidate | null;
  selected_image: ImageCandidate | null;
  selected_sets: SelectedSet[];
}

/** `failed` (with `error`) is the server's addition for a build that cannot finish. */
export type PackageStatus = 'pending' | 'ready' | 'downloaded' | 'failed';
export interface DeliveryPackage {
  id: number;
  status: PackageStatus;
  download_url: string | null;
  expires_at: string | null;
  file_name: string | null;
  size_bytes: number | null;
  error: string | null;
  created_at: string;
}

export type ReferenceLevel = 'low' | 'mid' | 'high';
export interface FissionCreated {
  fission_id: number;
  reference_level: ReferenceLevel;
  fanout_count: number;
}
export interface FissionStatus extends FissionCreated {
  status: 'generating' | 'completed' | 'failed';
  progress: { done: number; failed: number; total: number; running: number };
  error: string | null;
}
export interface FissionImage {
  seq: number;
  role: ImageRole;
  url?: string;
  /** The error marker: this image failed; retry-images makes it again. */
  error?: string;
  error_kind?: string | null;
  retrying?: boolean;
}
export interface FissionNote {
  seq: number;
  note: { angle_label: string; title: string; content: string; tags: string[]; image_plan: { role: ImageRole; brief: string }[] };
  images: FissionImage[];
  score: number;
  passed: boolean;
  needs_optimization: boolean;
  dimension: string;
  /** `image_done` or `failed` once settled; `pending` before. */
  status: string;
  banned_word_status: BannedStatus;
}
export interface FissionNotes {
  fission_id: number;
  status: FissionStatus['status'];
  fanout_count: number;
  running: number;
  notes: FissionNote[];
}
export interface FissionListItem {
  fission_id: number;
  source_task_id: number;
  reference_level: ReferenceLevel;
  fanout_count: number;
  status: FissionStatus['status'];
  progress: FissionStatus['progress'];
  created_at: string;
  created_by: { user_id: number; username: string };
}
export interface RetryResult {
  fission_id: number;
  seq: number;
  queued: boolean;
  note_id?: number;
  failed_roles?: string[];
  message?: string;
}
