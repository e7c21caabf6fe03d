import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { BannedLevel } from '../content/banned-words.js';
import type { PreferenceContext } from '../content/prompts.js';
import type { ImageRole } from '../content/schemas.js';
import type { ScoreJson } from '../content/scoring.js';
import type { StoryboardFrame } from '../content/storyboard.js';

export type { BannedLevel, PreferenceContext, ScoreJson };

/**
 * Row types as repositories see them on both dialects (see database.ts and codec.ts):
 * timestamps are ISO-8601 UTC strings, booleans are booleans, JSON columns are parsed values
 * on read and are written as JSON text (`json()` from codec.ts).
 */
type Timestamp = string;
type Bool = ColumnType<boolean, boolean, boolean>;
type Json<T> = ColumnType<T, string, string>;
/** A nullable JSON column that may be left out of an insert. */
type OptionalJson<T> = ColumnType<T | null, string | undefined, string>;
/** A nullable JSON column that may be left out of an insert and set back to null by an update. */
type NullableJson<T> = ColumnType<T | null, string | undefined, string | null>;
type Id = Generated<number>;
/**
 * A column naming a stored file. The unused-file sweep deletes every stored file that no such
 * column names (FILE_KEY_COLUMNS below), so a file column declared as a plain string would have
 * its users' files deleted.
 */
type FileKey<Nullable extends null = never> = ColumnType<string | Nullable, string | Nullable, string | Nullable> & { readonly __file_key__: true };

export type Role = 'admin' | 'supervisor' | 'operator';

/** What a personal access token may do of its user's role (contract-decisions §13). */
export type Scope = 'read' | 'produce' | 'review' | 'admin';

export interface WorkspacesTable {
  id: Id;
  name: string;
  slug: string;
  /** Last membership session version handed out in this workspace (only grows). */
  membership_seq: Generated<number>;
  created_at: Timestamp;
}

export interface UsersTable {
  id: Id;
  username: string;
  email: string;
  password_hash: string;
  must_change_password: Bool;
  is_active: Bool;
  /** Bumped on password change, role change, deactivation, membership removal: older JWTs die. */
  token_version: number;
  current_workspace_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MembershipsTable {
  workspace_id: number;
  user_id: number;
  role: Role;
  /** The `mv` claim of the tokens issued for this membership; a new one on every role change. */
  session_version: Generated<number>;
  created_at: Timestamp;
}

export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked';

export interface InvitationsTable {
  id: Id;
  workspace_id: number;
  /** The username or (lower-cased) email address as the admin typed it. */
  invitee: string;
  invitee_kind: 'username' | 'email';
  /** The account a username invitation named when it was made (null: none, the answer is the same); for a link, the account that redeemed it. */
  invitee_user_id: number | null;
  /** SHA-256 (hex) of an email invitation's one-time link token; null for a username invitation. */
  token_hash: string | null;
  role: Role;
  invited_by: number | null;
  status: InvitationStatus;
  created_at: Timestamp;
  expires_at: Timestamp;
  responded_at: Timestamp | null;
}

export interface LoginThrottleTable {
  username: string;
  failures: number;
  window_started_at: Timestamp;
  locked_until: Timestamp | null;
}

export interface ApiKeysTable {
  id: Id;
  workspace_id: number;
  provider: string;
  /** AES-256-GCM: base64 of ciphertext, 12-byte IV and 16-byte tag; key_version names the SECRET_KEY derivation. */
  ciphertext: string;
  iv: string;
  auth_tag: string;
  key_version: number;
  key_last4: string;
  created_by: number;
  created_at: Timestamp;
  /** Connection settings (contract-decisions §7): null = the preset's; a model "" = lacks the capability. */
  name: string | null;
  base_url: string | null;
  text_model: string | null;
  vision_model: string | null;
  image_model: string | null;
  image_size: string | null;
  concurrency: number | null;
  /** Requests / tokens per minute the connection is paced to; null = the preset's. */
  rpm: number | null;
  tpm: number | null;
  /** json_object or prompt after a provider refused the stronger response_format; null = the preset's. */
  structured_mode: string | null;
  last_test: OptionalJson<ConnectionTest>;
  /** thinking / token_param / temperature as set; absent ones (or null) are the defaults. */
  options: OptionalJson<{ thinking?: string; token_param?: string; temperature?: string }>;
}

export interface ConnectionTest {
  ok: boolean;
  at: string;
  results: Array<{ capability: 'text' | 'vision' | 'image'; ok: boolean; model: string; latency_ms: number; error_kind: string | null; message: string | null }>;
  /** Models of the connection shutting down within 30 days, as at the test (absent in tests stored before it). */
  retiring?: Array<{ capability: 'text' | 'vision' | 'image'; model: string; retires_on: string }>;
}

/** Which connection writes, sees and draws for a workspace; null = automatic. */
export interface GenerationRoutingTable {
  workspace_id: number;
  text_key_id: number | null;
  vision_key_id: number | null;
  image_key_id: number | null;
}

/** A task's connections as its detail shows them. */
export interface UsedConnection {
  key_id: number;
  provider: string;
  name: string;
  model: string;
}
export interface TaskProviders {
  text: UsedConnection | null;
  vision: UsedConnection | null;
  image: UsedConnection | null;
}

export interface ProductsTable {
  id: Id;
  workspace_id: number;
  name: string;
  category: string;
  source: 'preset' | 'custom';
  selling_points: Json<string[]>;
  style_tone: string | null;
  text_angles: Json<string[]>;
  custom_prompt: string | null;
  /** What the product looks like (form, colour, packaging, label text), for the image prompts. */
  appearance: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProductImagesTable {
  id: Id;
  workspace_id: number;
  product_id: number;
  file_key: FileKey;
  thumb_key: FileKey<null>;
  mime: string;
  width: number;
  height: number;
  scene: string;
  is_primary: Bool;
  created_at: Timestamp;
}

export interface BenchmarksTable {
  id: Id;
  workspace_id: number;
  product_id: number;
  screenshot_url: string | null;
  /** Storage key of an uploaded screenshot (the upload endpoint); screenshot_url is the legacy link. */
  screenshot_key: FileKey<null>;
  highlights: string;
  link_url: string | null;
  features: Json<Record<string, unknown> | null>;
  analyze_status: 'pending' | 'analyzing' | 'done' | 'failed';
  analysis_source: string | null;
  /** Chinese text of analysis_warning_codes (modules/benchmarks/warnings.ts). */
  analysis_warning: string | null;
  analysis_warning_codes: Json<string[] | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}


export interface BannedWordsTable {
  id: Id;
  workspace_id: number;
  word: string;
  level: BannedLevel;
  replacement: string | null;
  updatable: Bool;
  /** The built-in list the word came from (content/banned-presets.ts), null for a team's own word. */
  preset: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
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

export interface TasksTable {
  id: Id;
  workspace_id: number;
  /** The account the notes are meant for (§11): its persona goes to generation; migration 20261128_1100. */
  account_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** The batch that made the task (issue 32): its calls are paced as bulk work; migration 20261128_1400. */
  batch_id: ColumnType<number | null, number | null | undefined, number | null>;
  product_id: number;
  operator_id: number;
  theme: string;
  text_count: number;
  image_count: number;
  track: 'ai' | 'import';
  status: TaskStatus;
  need_product_image: Bool;
  /** Service-drawn cover title and captions on images (image models garble Chinese text). */
  overlay_text: Bool;
  review_status: string | null;
  reject_reason: string | null;
  reviewed_at: Timestamp | null;
  submitted_at: Timestamp | null;
  submitted_by: number | null;
  api_key_id: number | null;
  provider: string | null;
  /** The image connection the task used (api_key_id is the text one); kept for regenerations while it exists. */
  image_key_id: number | null;
  providers: OptionalJson<TaskProviders>;
  /** Incremented per generation run (first run and every regenerate); candidates carry it. */
  generation: number;
  progress: Json<{ stage: string; done: number; total: number } | null>;
  failure_reason: string | null;
  /** The reason key of `failure_reason` and its params (http/reasons.ts FAILURE_REASONS; migration 20261128_0600). */
  failure_key: string | null;
  failure_params: NullableJson<Record<string, unknown>>;
  idempotency_key: string | null;
  /** sha256 of the canonical JSON body the task was created with under idempotency_key. */
  idempotency_hash: string | null;
  /** Worker lease: a generating task whose lease lapsed is resumed or failed by the sweeper. */
  lease_until: Timestamp | null;
  /** Last task-event seq handed out (events/bus.ts); bumped in the transaction that writes events. */
  event_seq: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Tasks per (workspace, product, status), kept by triggers (migration 0601). */
export interface TaskCountsTable {
  workspace_id: number;
  product_id: number;
  status: TaskStatus;
  n: number;
}

/** Per UTC day (YYYY-MM-DD); product_id 0 = every product, status '*' = every status (migration 20261124_0200). */
export interface TaskDayCountsTable {
  workspace_id: number;
  product_id: number;
  status: TaskStatus | '*';
  day: string;
  n: number;
}

/** Character pairs of task themes for keyword search (migration 20261125_1500, kept by triggers). */
export interface TaskThemeGramsTable {
  workspace_id: number;
  gram: string;
  task_id: number;
}

export interface GramPositionsTable {
  n: number;
}

/**
 * A note (migration 20261128_0500): its text, score and banned-word result, written by a task's
 * generation (`task_id`) or by a fission (`fission_id`), exactly one of them. The three columns at
 * the end are a fission note's only.
 */
export interface TextCandidatesTable {
  id: Id;
  workspace_id: number;
  task_id: number | null;
  fission_id: number | null;
  generation: number;
  /** Position inside the generation (0-based); with generation it makes writes idempotent. */
  slot: number;
  strategy: 'A' | 'B' | 'C' | null;
  angle_label: string;
  title: string;
  content: string;
  tags: Json<string[]>;
  cover_title: string;
  image_brief: string;
  source: 'ai' | 'import';
  score: Json<ScoreJson>;
  score_total: number;
  banned_word_status: 'pass' | 'auto_fixed' | 'soft_warn' | 'hard_block';
  banned_hits: Json<Array<{ word: string; level: BannedLevel; start: number; end: number }>>;
  is_selected: Bool;
  verdict: string;
  summary: string;
  edited: Bool;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** What sets this fission note apart from its siblings. */
  dimension: string | null;
  /** The fission package's shot list, one per image, as published. */
  image_plan: OptionalJson<Array<{ role: ImageRole; brief: string }>>;
  /** Where a fission note's images stand: pending until each is made or failed, then image_done (one made) or failed. */
  image_status: 'pending' | 'image_done' | 'failed' | null;
}

/** An image slot of a note, with its versions (`variant`): a task's (`task_id`) or a fission note's (`fission_id`, `note_id`). */
export interface ImageCandidatesTable {
  id: Id;
  workspace_id: number;
  task_id: number | null;
  fission_id: number | null;
  /** The fission note the image illustrates; a task's images belong to the texts of their strategy. */
  note_id: number | null;
  generation: number;
  strategy: 'A' | 'B' | 'C';
  role: 'hook' | 'pain' | 'proof' | 'quality' | 'credit' | 'convert' | 'main';
  seq: number;
  /** Null while the image is being made (`pending`) or when it failed. */
  file_key: FileKey<null>;
  mime: string | null;
  prompt: string;
  is_selected: Bool;
  is_regen: Bool;
  ai_visual_score: number | null;
  ai_visual_note: string | null;
  created_at: Timestamp;
  /** 0: the generation's own image of the slot; 1, 2…: regenerated or uploaded images of the same slot. */
  variant: Generated<number>;
  source: ColumnType<'ai' | 'upload', 'ai' | 'upload' | undefined, 'ai' | 'upload'>;
  /** `retrying`: a failed image queued again by a fission's retry-images (its error marker gives way meanwhile). */
  status: ColumnType<ImageStatus, ImageStatus | undefined, ImageStatus>;
  error: string | null;
  error_kind: string | null;
  /** The reason key of `error` and its params (migration 20261128_0600). */
  error_key: string | null;
  error_params: NullableJson<Record<string, unknown>>;
  /** The image before any text was drawn on it (null: `file_key` has no text drawn). */
  raw_file_key: FileKey<null>;
  raw_mime: string | null;
  /** The cover title or caption drawn into `file_key`, when one is. */
  lettered_title: string | null;
  /** The storyboard frame's line: a cover is lettered with its set's cover title, a caption with this text. */
  overlay: ColumnType<StoryboardFrame['overlay'], string | undefined, string>;
  brief: Generated<string>;
  /** The operator's instruction for a regenerated image. */
  instruction: string | null;
  updated_at: Timestamp | null;
}

export interface TaskEventsTable {
  task_id: number;
  seq: number;
  name: string;
  data: Json<unknown>;
  created_at: Timestamp;
}

export interface OneTimeTokensTable {
  /** SHA-256 of the token; the token itself is never stored. */
  token_hash: string;
  kind: 'sse' | 'download';
  workspace_id: number;
  user_id: number | null;
  /** Task id for SSE tickets, package id for download tokens. */
  subject_id: number;
  /** The session it was issued in (the user's token_version, the membership's session_version); null before they were kept. */
  token_version: number | null;
  session_version: number | null;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: Timestamp;
}

export interface PreferenceSignalsTable {
  id: Id;
  workspace_id: number;
  product_id: number;
  task_id: number | null;
  user_id: number | null;
  candidate_id: number | null;
  candidate_kind: 'text' | 'image' | null;
  strategy: string | null;
  angle_label: string | null;
  signal_type: string;
  weight: number;
  /** Set on `performance` signals: the account and post whose result they weigh (§11). */
  account_id: number | null;
  post_id: number | null;
  reason: string | null;
  excerpt: string | null;
  created_at: Timestamp;
}

export interface PreferenceSnapshotsTable {
  task_id: number;
  generation: number;
  context: Json<PreferenceContext>;
  created_at: Timestamp;
}

export interface ReviewsTable {
  id: Id;
  workspace_id: number;
  task_id: number;
  user_id: number;
  action: 'submit' | 'approve' | 'reject';
  reason: string | null;
  final: Bool;
  /** A submission's note for the reviewer (required below the pass line); migration 20261128_1200. */
  note: ColumnType<string | null, string | null | undefined, string | null>;
  /** The selected texts a submission or rejection was about, for what changed since. */
  texts: NullableJson<ReviewedText[]>;
  created_at: Timestamp;
}

/** A selected text as a review saw it. */
export interface ReviewedText {
  strategy: string | null;
  title: string;
  content: string;
  tags: string[];
  cover_title: string;
  score_total: number;
}

/** A reviewer's or operator's comment on a task: on a line of a text, an image, or the task (issue 30). */
export interface ReviewCommentsTable {
  id: Id;
  workspace_id: number;
  task_id: number;
  author_id: number;
  anchor_kind: 'task' | 'text' | 'image';
  candidate_id: number | null;
  /** 1-based line of the text's body (a text anchor). */
  line: number | null;
  /** The line's words when the comment was made: the anchor still reads after an edit. */
  quote: string | null;
  body: string;
  resolved_at: Timestamp | null;
  resolved_by: number | null;
  created_at: Timestamp;
}

/** What an audit row records (contract-decisions §12). */
export type AuditKind = 'generation' | 'edit' | 'selection' | 'review' | 'package' | 'post';

export interface TaskAuditTable {
  id: Id;
  workspace_id: number;
  task_id: number;
  kind: AuditKind;
  action: string;
  user_id: number | null;
  detail: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface DeliveryPackagesTable {
  id: Id;
  workspace_id: number;
  task_id: number;
  created_by: number;
  status: 'pending' | 'ready' | 'downloaded' | 'failed';
  file_key: FileKey<null>;
  file_name: string | null;
  size_bytes: number | null;
  error: string | null;
  /** The reason key of `error` and its params (migration 20261128_0600). */
  error_key: string | null;
  error_params: NullableJson<Record<string, unknown>>;
  expires_at: Timestamp | null;
  ready_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FissionTasksTable {
  id: Id;
  workspace_id: number;
  /** The account the notes are meant for (§11): its persona goes to generation; migration 20261128_1100. */
  account_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** The batch that planned the fission (issue 32); migration 20261128_1400. */
  batch_id: ColumnType<number | null, number | null | undefined, number | null>;
  source_task_id: number;
  operator_id: number;
  reference_level: 'low' | 'mid' | 'high';
  fanout_count: number;
  status: 'generating' | 'completed' | 'failed';
  api_key_id: number | null;
  /** The image connection the fission used (api_key_id is the text one). */
  image_key_id: number | null;
  provider: string | null;
  error: string | null;
  /** The reason key of `error` and its params (migration 20261128_0600). */
  error_key: string | null;
  error_params: NullableJson<Record<string, unknown>>;
  lease_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ImageStatus = 'pending' | 'done' | 'failed' | 'retrying';

/** Durable job records of the in-process queue (BullMQ keeps its own in Redis). */
export interface JobsTable {
  id: Id;
  kind: string;
  ref_id: number;
  status: 'queued' | 'running' | 'done' | 'failed';
  attempts: number;
  run_after: Timestamp;
  locked_until: Timestamp | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Stale-work sweeper bookkeeping: resumes per record of one job kind. */
export interface JobResumesTable {
  kind: string;
  ref_id: number;
  resumes: number;
  swept_at: Timestamp;
}

/**
 * Results of paid provider calls keyed by what they were for (for example
 * `task:12:gen:1:text:A`), so a job re-run after a crash reuses them instead of paying again.
 */
export interface ProviderCallsTable {
  call_key: string;
  workspace_id: number;
  result: Json<unknown>;
  /** The stored file the result names (a provider's raw image): kept while this entry exists. */
  file_key: FileKey<null>;
  created_at: Timestamp;
}

/** One row per periodic chore (the unused-file sweep): a worker runs it when it claims `next_run_at`. */
export interface PeriodicRunsTable {
  name: string;
  next_run_at: Timestamp;
}

export type WebhookKind = 'generic' | 'feishu' | 'wecom' | 'dingtalk';
export type WebhookErrorKind = 'timeout' | 'unreachable' | 'blocked_address' | 'http_status' | 'app_error';
export type WebhookEvent = 'task.pending_selection' | 'task.failed' | 'task.submitted' | 'task.approved' | 'task.rejected' | 'package.ready' | 'fission.completed' | 'post.due' | 'post.missed' | 'post.published';

/** AES-256-GCM as SecretBox seals it (api_keys keeps the same four values in columns). */
export interface SealedJson {
  ciphertext: string;
  iv: string;
  authTag: string;
  keyVersion: number;
}

export interface WebhooksTable {
  id: Id;
  workspace_id: number;
  name: string;
  kind: WebhookKind;
  /** The receiver's URL, sealed: a bot's URL carries the bot's key. */
  url_sealed: Json<SealedJson>;
  /** The URL with its credentials masked: what the API shows. */
  url_hint: string;
  secret_sealed: Json<SealedJson | null>;
  events: Json<WebhookEvent[]>;
  is_active: Bool;
  created_by: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The outbox: one row per (event, subscribed webhook), written with the state change. */
export interface WebhookDeliveriesTable {
  id: Id;
  workspace_id: number;
  webhook_id: number;
  /** The stable delivery id receivers deduplicate on. */
  uid: string;
  event: WebhookEvent | 'webhook.test';
  /** `{occurred_at, data}` as of the state change. */
  payload: Json<{ occurred_at: string; data: Record<string, unknown> }>;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  http_status: number | null;
  /** The error kind of the latest failed attempt. */
  last_error: WebhookErrorKind | null;
  /** When the next attempt is due; while one runs, the end of its claim. */
  next_attempt_at: Timestamp;
  created_at: Timestamp;
  delivered_at: Timestamp | null;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: Id;
  workspace_id: number;
  delivery_id: number;
  attempt: number;
  ok: Bool;
  http_status: number | null;
  latency_ms: number;
  /** Null on success; else timeout, unreachable, blocked_address, http_status (not 2xx), app_error (a bot's own error code). */
  error_kind: WebhookErrorKind | null;
  /** The start of the receiver's answer (or of what went wrong), for whoever fixes the receiver. */
  excerpt: string | null;
  created_at: Timestamp;
}

/** Bumped by triggers on every change a task list page shows (migration 20261123_0200). */
export interface TaskListVersionsTable {
  workspace_id: number;
  version: number;
}

/** A banned word attached to a product: it applies to that product's texts only (and to those of other products it is attached to). */
export interface ProductBannedWordsTable {
  workspace_id: number;
  product_id: number;
  banned_word_id: number;
}

/** The benchmarks a task was created with, in the order given. */
export interface TaskBenchmarksTable {
  workspace_id: number;
  task_id: number;
  benchmark_id: number;
  position: number;
}

/** The notes (text candidates) a delivery package packs, in folder order. */
export interface PackageNotesTable {
  workspace_id: number;
  package_id: number;
  text_candidate_id: number;
  position: number;
}

/** A personal access token (migration 20261128_0700): only its hash is kept. */
export interface AccessTokensTable {
  id: Id;
  workspace_id: number;
  user_id: number;
  name: string;
  /** SHA-256 (hex) of the token. */
  token_hash: string;
  /** The token's first characters, to tell tokens apart in the list. */
  token_hint: string;
  scopes: Json<Scope[]>;
  /** The user's token_version and the membership's session_version at creation: moved, the token is dead. */
  token_version: number;
  session_version: number;
  expires_at: Timestamp | null;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: Timestamp;
}

/** A Xiaohongshu account the team posts from (contract-decisions §11); the service never logs into it. */
export interface AccountsTable {
  id: Id;
  workspace_id: number;
  name: string;
  profile_url: string | null;
  /** Positioning and voice, given to generation for notes meant for this account. */
  persona: string | null;
  daily_cap: number;
  min_gap_minutes: number;
  /** IANA zone: the account's local day is what `daily_cap` counts. */
  timezone: string;
  active: Bool;
  created_by: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type PostStatus = 'scheduled' | 'due' | 'published' | 'missed' | 'cancelled';

/** A note planned on an account, with its frozen copy of the text (images in post_images). */
export interface PostsTable {
  id: Id;
  workspace_id: number;
  account_id: number;
  status: PostStatus;
  scheduled_at: Timestamp;
  due_at: Timestamp | null;
  missed_at: Timestamp | null;
  published_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  note_url: string | null;
  /** The note id read from `note_url`: what the creator centre's export names. */
  xhs_note_id: string | null;
  /** `task:<id>:<strategy>` or `fission:<id>:<seq>`: one live post per note. */
  note_key: string;
  task_id: number | null;
  strategy: string | null;
  fission_id: number | null;
  fission_seq: number | null;
  product_id: number | null;
  angle_label: string | null;
  title: string;
  cover_title: string | null;
  body: string;
  tags: Json<string[]>;
  /** What planning the post warned of and someone overrode: a near-duplicate of an earlier post (§11). */
  warnings: Json<Array<{ kind: 'near_duplicate'; post_id: number; title: string; similarity: number }>>;
  created_by: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A post's images in posting order (cover first); holding the key holds the file. */
export interface PostImagesTable {
  post_id: number;
  position: number;
  role: string;
  file_key: FileKey;
  /** Drawn by a model (declared when posting, §12), not uploaded by the team. */
  ai_generated: Bool;
}

/** One snapshot of a published post's results; missing figures are unknown (null). */
export interface PostMetricsTable {
  id: Id;
  workspace_id: number;
  post_id: number;
  captured_at: Timestamp;
  views: number | null;
  likes: number | null;
  collects: number | null;
  comments: number | null;
  shares: number | null;
  follows: number | null;
  source: 'manual' | 'import';
  created_by: number | null;
  created_at: Timestamp;
}

export interface DB {
  workspaces: WorkspacesTable;
  users: UsersTable;
  memberships: MembershipsTable;
  login_throttle: LoginThrottleTable;
  api_keys: ApiKeysTable;
  generation_routing: GenerationRoutingTable;
  products: ProductsTable;
  product_banned_words: ProductBannedWordsTable;
  product_images: ProductImagesTable;
  invitations: InvitationsTable;
  benchmarks: BenchmarksTable;
  banned_words: BannedWordsTable;
  tasks: TasksTable;
  task_benchmarks: TaskBenchmarksTable;
  task_counts: TaskCountsTable;
  task_day_counts: TaskDayCountsTable;
  task_list_versions: TaskListVersionsTable;
  task_theme_grams: TaskThemeGramsTable;
  gram_positions: GramPositionsTable;
  text_candidates: TextCandidatesTable;
  image_candidates: ImageCandidatesTable;
  task_events: TaskEventsTable;
  one_time_tokens: OneTimeTokensTable;
  preference_signals: PreferenceSignalsTable;
  preference_snapshots: PreferenceSnapshotsTable;
  reviews: ReviewsTable;
  review_comments: ReviewCommentsTable;
  task_audit: TaskAuditTable;
  delivery_packages: DeliveryPackagesTable;
  package_notes: PackageNotesTable;
  fission_tasks: FissionTasksTable;
  jobs: JobsTable;
  job_resumes: JobResumesTable;
  provider_calls: ProviderCallsTable;
  periodic_runs: PeriodicRunsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  access_tokens: AccessTokensTable;
  accounts: AccountsTable;
  posts: PostsTable;
  batches: BatchesTable;
  batch_items: BatchItemsTable;
  post_images: PostImagesTable;
  post_metrics: PostMetricsTable;
}

export type Row<T extends keyof DB> = Selectable<DB[T]>;
export type NewRow<T extends keyof DB> = Insertable<DB[T]>;
export type RowUpdate<T extends keyof DB> = Updateable<DB[T]>;

/**
 * How a column is stored where the dialects differ: `bool` is INTEGER 0/1 on SQLite and BOOLEAN
 * on PostgreSQL, `json` is TEXT on SQLite and JSONB on PostgreSQL. The SQLite adapter
 * (database.ts) reads each result column by the table and column it comes from.
 */
export type ColumnCodec = 'bool' | 'json';

/** A column's codec from its row type: Bool columns select booleans; Json<T> columns take text on insert but select T. */
type CodecOf<C> = C extends { readonly __select__: infer S; readonly __insert__: infer I }
  ? [S] extends [boolean]
    ? 'bool'
    : [Exclude<I, undefined>] extends [string]
      ? [S] extends [string]
        ? never
        : 'json'
      : never
  : never;
type CodecsOf<T> = { [K in keyof T as CodecOf<T[K]> extends never ? never : K]: CodecOf<T[K]> };
type TableCodecs = { [T in keyof DB as keyof CodecsOf<DB[T]> extends never ? never : T]: CodecsOf<DB[T]> };

/**
 * Every bool and JSON column, per table. The type requires exactly the columns the row types
 * declare as Bool or Json<…>, so a new column of either kind does not compile until it is here.
 */
export const COLUMN_CODECS: TableCodecs = {
  users: { must_change_password: 'bool', is_active: 'bool' },
  products: { selling_points: 'json', text_angles: 'json' },
  product_images: { is_primary: 'bool' },
  benchmarks: { features: 'json', analysis_warning_codes: 'json' },
  banned_words: { updatable: 'bool' },
  api_keys: { last_test: 'json', options: 'json' },
  tasks: { need_product_image: 'bool', overlay_text: 'bool', progress: 'json', providers: 'json', failure_params: 'json' },
  text_candidates: { tags: 'json', score: 'json', banned_hits: 'json', is_selected: 'bool', edited: 'bool', image_plan: 'json' },
  image_candidates: { is_selected: 'bool', is_regen: 'bool', overlay: 'json', error_params: 'json' },
  task_events: { data: 'json' },
  preference_snapshots: { context: 'json' },
  reviews: { final: 'bool', texts: 'json' },
  task_audit: { detail: 'json' },
  fission_tasks: { error_params: 'json' },
  delivery_packages: { error_params: 'json' },
  provider_calls: { result: 'json' },
  webhooks: { url_sealed: 'json', secret_sealed: 'json', events: 'json', is_active: 'bool' },
  webhook_deliveries: { payload: 'json' },
  webhook_attempts: { ok: 'bool' },
  access_tokens: { scopes: 'json' },
  accounts: { active: 'bool' },
  posts: { tags: 'json', warnings: 'json' },
  post_images: { ai_generated: 'bool' },
  batch_items: { post_failure: 'json' },
};

type FileKeysOf<T> = { [K in keyof T]: T[K] extends { readonly __file_key__: true } ? K : never }[keyof T];
type TableFileKeys = { [T in keyof DB as FileKeysOf<DB[T]> extends never ? never : T]: { [K in FileKeysOf<DB[T]>]: FileHold } };

/** How long a file-key column keeps its file: while its row exists, or until the row's `expires_at` passes. */
export type FileHold = 'while_row_exists' | 'until_expires_at';

/**
 * Every column naming a stored file, per table: what the unused-file sweep keeps
 * (modules/files/repository.ts). The type requires exactly the columns the row types declare as
 * FileKey, so a new file column does not compile until it is here.
 */
export const FILE_KEY_COLUMNS: TableFileKeys = {
  product_images: { file_key: 'while_row_exists', thumb_key: 'while_row_exists' },
  benchmarks: { screenshot_key: 'while_row_exists' },
  image_candidates: { file_key: 'while_row_exists', raw_file_key: 'while_row_exists' },
  provider_calls: { file_key: 'while_row_exists' },
  // An expired package no longer holds its zip: its download answers 409 / 40903 (repackage).
  delivery_packages: { file_key: 'until_expires_at' },
  post_images: { file_key: 'while_row_exists' },
};

export type BatchStatus = 'running' | 'finished' | 'cancelled';

/** Many tasks from one request (issue 32; migration 20261128_1400). */
export interface BatchesTable {
  id: Id;
  workspace_id: number;
  name: string;
  created_by: number;
  status: BatchStatus;
  idempotency_key: string | null;
  /** sha256 of the canonical request the batch was created with under idempotency_key. */
  idempotency_hash: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: Timestamp | null;
}

/** One task of a batch, with what was planned for it. */
export interface BatchItemsTable {
  id: Id;
  workspace_id: number;
  batch_id: number;
  /** 1-based, in the order of the request (or plan file). */
  seq: number;
  task_id: number;
  /** Notes of a fission started from the task once its notes are written; 0: none. */
  fission_count: number;
  /** When its approved note is to be posted on the task's account; null: not planned. */
  publish_at: Timestamp | null;
  /** Handed to the queue (a batch keeps BATCH_PARALLEL_TASKS in flight). */
  released_at: Timestamp | null;
  fission_id: number | null;
  post_id: number | null;
  /** Why the planned post could not be scheduled: a reason key and its params. */
  post_failure: NullableJson<{ reason: string; params: Record<string, unknown> }>;
}
