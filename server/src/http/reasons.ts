import { clip } from '../content/text.js';
import type { ErrorKind } from './errors.js';

/**
 * The reason catalogue (issue 34 item 2): every error the API answers and every failure it
 * stores names one of these stable keys with its params. The English `message` is rendered from
 * the template here, so a throw site names a reason and its values, never a sentence; the web
 * client words the same key in the interface language (web/src/api/constants.ts is generated
 * from this file, npm run gen:api -w web). A key never changes meaning: reword its template
 * freely, add a key for a new situation.
 *
 * A template's `{name}` holes are its params; `extra` names params the wording may use that the
 * English sentence does not show. A param is a string, a number or a list of strings (joined with
 * ", " in the English message).
 */
interface ErrorReasonEntry {
  readonly kind: ErrorKind;
  readonly message: string;
  readonly extra?: readonly string[];
}

export const ERROR_REASONS = {
  // Requests the framework refuses before a route runs.
  'request.malformed': { kind: 'validation', message: '{detail}' },
  'request.malformed_http': { kind: 'validation', message: 'malformed HTTP request' },
  'request.timeout': { kind: 'validation', message: 'request not received in time' },
  'request.headers_too_large': { kind: 'validation', message: 'request headers or URL too large (limit 16 KB)' },
  'request.too_large': { kind: 'payloadTooLarge', message: 'request body too large' },
  'request.media_type': { kind: 'unsupportedMediaType', message: 'unsupported content type "{type}" for this route' },
  'request.closed': { kind: 'validation', message: 'the client closed the request' },
  'request.not_utf8': { kind: 'validation', message: 'body is not valid UTF-8' },
  'request.lone_surrogate': { kind: 'validation', message: '{field} contains a lone UTF-16 surrogate' },
  /** A client error raised by Fastify or a plugin that has no reason of its own (its status is kept). */
  'request.refused': { kind: 'validation', message: '{detail}' },
  'route.not_found': { kind: 'notFound', message: 'no route {method} {path}' },
  'server.internal': { kind: 'internal', message: 'internal error; the request id is {request_id}' },
  'server.shutting_down': { kind: 'unavailable', message: 'the server is shutting down; retry the request' },
  'server.route_unguarded': { kind: 'internal', message: 'route {route} is not guarded' },
  'rate.limited': { kind: 'rateLimited', message: 'rate limit of {max} requests a minute exceeded: retry in {seconds} s' },

  // Request validation (TypeBox/Ajv schemas and the rules services add); `field` is the path, e.g. body.name.
  'validation.required': { kind: 'validation', message: '{field} is required' },
  'validation.blank': { kind: 'validation', message: '{field} must not be blank' },
  'validation.one_of': { kind: 'validation', message: '{field} must be one of {allowed}' },
  'validation.type': { kind: 'validation', message: '{field} must be {type}' },
  'validation.format': { kind: 'validation', message: '{field} must match format "{format}"' },
  'validation.pattern': { kind: 'validation', message: '{field} must match pattern "{pattern}"' },
  'validation.minimum': { kind: 'validation', message: '{field} must be {comparison} {limit}' },
  'validation.maximum': { kind: 'validation', message: '{field} must be {comparison} {limit}' },
  'validation.min_length': { kind: 'validation', message: '{field} must NOT have fewer than {limit} characters' },
  'validation.max_length': { kind: 'validation', message: '{field} must NOT have more than {limit} characters' },
  'validation.min_items': { kind: 'validation', message: '{field} must NOT have fewer than {limit} items' },
  'validation.max_items': { kind: 'validation', message: '{field} must NOT have more than {limit} items' },
  'validation.unknown_property': { kind: 'validation', message: '{field} must NOT have additional properties' },
  'validation.invalid': { kind: 'validation', message: '{field} {detail}' },
  'validation.too_long': { kind: 'validation', message: '{field} must be at most {max} characters' },
  'validation.http_url': { kind: 'validation', message: '{field} must be an http or https URL' },
  'validation.date': { kind: 'validation', message: '{field} must be YYYY-MM-DD or an ISO 8601 date-time with offset (e.g. 2026-11-22T08:00:00Z), got "{value}"' },
  'validation.dates_reversed': { kind: 'validation', message: 'querystring.date_from must not be after date_to' },

  // Multipart uploads.
  'upload.file_missing': { kind: 'validation', message: 'multipart field "{field}" (the file) is required' },
  'upload.unexpected_file': { kind: 'validation', message: 'unexpected file field "{field}"; send the file as "{expected}"' },
  'upload.field_too_long': { kind: 'payloadTooLarge', message: 'multipart field "{field}" is too long' },
  'upload.field_nul': { kind: 'validation', message: 'multipart field "{field}" must not contain the NUL character (U+0000)' },
  'upload.malformed': { kind: 'validation', message: 'malformed multipart body: {detail}' },
  'upload.not_image': { kind: 'unsupportedMediaType', message: 'the upload is not a JPEG, PNG or WebP image (checked by its content)' },
  'upload.unusable_image': { kind: 'unsupportedMediaType', message: 'the upload is not a usable image: {detail}' },
  'upload.image_too_large': { kind: 'payloadTooLarge', message: 'image dimensions too large: {width}×{height} pixels, at most {megapixels} megapixels' },

  // Signing in and access.
  'auth.credentials_missing': { kind: 'credentialsMissing', message: 'credentials missing: send Authorization: Bearer <token>' },
  'auth.download_credentials_missing': { kind: 'credentialsMissing', message: 'credentials missing: send Authorization: Bearer <token> or ?token=<download token>' },
  'auth.token_invalid': { kind: 'tokenInvalid', message: 'token invalid or expired' },
  'auth.wrong_credentials': { kind: 'wrongCredentials', message: 'wrong username or password' },
  'auth.login_busy': { kind: 'rateLimited', message: 'too many logins in progress: retry in 1 s' },
  'auth.login_locked': { kind: 'rateLimited', message: 'too many failed logins for this username; try again in {minutes} min' },
  'auth.no_workspace': { kind: 'forbidden', message: 'this account is not a member of any workspace; ask an admin to add it' },
  'auth.not_member': { kind: 'forbidden', message: 'you are not a member of workspace {workspace_id}' },
  'auth.wrong_current_password': { kind: 'validation', message: 'current_password is wrong' },
  'auth.same_password': { kind: 'validation', message: 'new_password must differ from the current password' },
  'auth.password_change_required': { kind: 'passwordChangeRequired', message: 'password change required: call POST /api/v1/auth/change-password first' },
  'auth.role_too_low': { kind: 'forbidden', message: 'this operation needs the {role} role or higher; your role is {your_role}' },
  'token.invalid': { kind: 'tokenInvalid', message: 'access token invalid, expired or revoked: create a new one on the Integrations page' },
  'token.session_only': { kind: 'forbidden', message: 'an access token cannot do this: sign in to the console as the person' },
  'token.scope_missing': { kind: 'forbidden', message: 'this access token lacks the {scope} scope this operation needs (its scopes: {scopes}); create a token with {scope} on the Integrations page' },
  'token.review_not_allowed': { kind: 'validation', message: 'scopes: your role ({role}) cannot approve or reject, so a token cannot either: leave out review' },
  'token.expiry_past': { kind: 'validation', message: 'expires_at must be a date-time in the future' },
  'token.too_many': { kind: 'conflict', message: 'you already hold {max} access tokens in this workspace: revoke one first' },
  'token.not_found': { kind: 'notFound', message: 'access token not found' },
  'metrics.credentials_missing': { kind: 'credentialsMissing', message: 'credentials missing: send Authorization: Bearer <METRICS_TOKEN>' },
  'metrics.token_invalid': { kind: 'tokenInvalid', message: 'metrics token invalid' },
  'stream.ticket_invalid': { kind: 'tokenInvalid', message: 'stream ticket missing, invalid, expired or already used: request a new one' },
  'file.not_found': { kind: 'notFound', message: 'file not found' },
  'file.link_expired': { kind: 'forbidden', message: 'file link expired' },
  'file.link_invalid': { kind: 'forbidden', message: 'file link signature invalid' },

  // Users, workspaces, members, invitations.
  'user.not_found': { kind: 'notFound', message: 'user not found' },
  'user.named_not_found': { kind: 'notFound', message: 'user "{username}" not found' },
  'user.username_unavailable': { kind: 'conflict', message: 'this username is not available: choose another' },
  'user.other_workspaces': { kind: 'forbidden', message: 'this user also belongs to workspaces you are not an admin of: only their role can be changed here' },
  'workspace.not_found': { kind: 'notFound', message: 'workspace not found' },
  'workspace.slug_taken': { kind: 'conflict', message: 'a workspace with slug "{slug}" already exists' },
  'workspace.admin_only': { kind: 'forbidden', message: 'only an admin of that workspace can change its members' },
  'workspace.last_admin': { kind: 'conflict', message: 'a workspace must keep at least one admin' },
  'member.who': { kind: 'validation', message: 'body must have user_id or username' },
  'member.user_not_found': { kind: 'notFound', message: 'user (to add someone you share no workspace with, invite them) not found' },
  'member.not_found': { kind: 'notFound', message: 'member not found' },
  'invitation.who': { kind: 'validation', message: 'body must have either username or email' },
  'invitation.not_found': { kind: 'notFound', message: 'invitation not found' },
  'invitation.too_many': { kind: 'conflict', message: 'this workspace has {max} pending invitations: revoke some first' },
  'invitation.not_revocable': { kind: 'conflict', message: 'this invitation is {status}: only a pending one can be revoked' },
  'invitation.not_pending': { kind: 'conflict', message: 'this invitation is {status}' },
  'invitation.answered': { kind: 'conflict', message: 'this invitation was answered or expired just now' },

  // Provider connections (contract-decisions §7).
  'connection.not_found': { kind: 'notFound', message: 'API key not found' },
  'connection.none_for_text': { kind: 'noApiKey', message: 'this workspace has no provider connection that writes text: add one under provider connections first' },
  'connection.none_for_image': {
    kind: 'noImageConnection',
    message: 'no provider connection of this workspace draws images: add one (e.g. 豆包, 通义千问, 智谱, 硅基流动 or OpenAI), or ask for 0 images',
  },
  'connection.url_credentials': { kind: 'validation', message: 'base_url must not carry credentials' },
  'connection.url_query': { kind: 'validation', message: 'base_url must not carry a query or fragment' },
  'connection.host_unresolvable': { kind: 'validation', message: 'base_url: the host name does not resolve' },
  'connection.private_address': { kind: 'validation', message: 'base_url must point to a public address' },
  'connection.local_fixed': { kind: 'validation', message: 'the local provider has no endpoint or models to set' },
  'connection.base_url_required': { kind: 'validation', message: 'base_url is required for an openai-compatible connection' },
  'connection.no_image_endpoint': { kind: 'validation', message: '{provider} has no image endpoint: image_model must be empty' },
  'connection.no_model': { kind: 'validation', message: 'a connection needs a text_model or an image_model' },
  'connection.provider_unknown': { kind: 'validation', message: 'provider must be one of {providers}' },
  'connection.key_too_short': { kind: 'validation', message: 'api_key is too short' },
  'connection.not_own': { kind: 'forbidden', message: 'operators can {verb} only the keys they added' },
  'connection.key_for_new_url': { kind: 'validation', message: 'changing base_url needs api_key again: a stored key is only sent to the address it was entered for' },
  'connection.key_does_not_open': { kind: 'conflict', message: 'the stored api_key cannot be used for this connection: enter the key again' },
  'connection.routed': { kind: 'validation', message: 'this connection is routed for {capability}: choose another one there before removing its {capability} model' },
  'connection.lacks_capability': { kind: 'validation', message: 'connection {id} has no {capability} model' },

  // Products, banned words, benchmarks.
  'product.not_found': { kind: 'notFound', message: 'product not found' },
  'product.id_not_found': { kind: 'notFound', message: 'product {id} not found' },
  'product.in_use': { kind: 'conflict', message: 'the product has production tasks; archive or delete those first (nothing referenced is deleted)' },
  'product.unknown_banned_words': { kind: 'validation', message: 'body.banned_word_ids: not banned words of this workspace: {ids}' },
  'product.image_not_found': { kind: 'notFound', message: 'product image not found' },
  'product.too_many_images': { kind: 'conflict', message: 'a product holds at most {max} images' },
  'product.primary_race': { kind: 'conflict', message: 'another image became primary at the same moment; retry the upload' },
  'banned_word.not_found': { kind: 'notFound', message: 'banned word not found' },
  'banned_word.exists': { kind: 'conflict', message: 'banned word "{word}" already exists in this workspace' },
  'banned_word.locked': { kind: 'forbidden', message: 'banned word "{word}" is locked (updatable: false): only an admin may change or delete it' },
  'banned_word.preset_not_found': { kind: 'notFound', message: 'banned-word preset "{name}" not found' },
  'banned_word.hard_block': { kind: 'bannedWordBlock', message: 'banned words (hard_block) found: {words}' },
  'benchmark.empty': { kind: 'validation', message: 'a benchmark needs highlights, a link or a screenshot' },
  'benchmark.not_found': { kind: 'notFound', message: 'benchmark not found' },
  'benchmark.id_not_found': { kind: 'notFound', message: 'benchmark {id} not found' },
  'benchmark.url_credentials': { kind: 'validation', message: '{field} must not contain credentials' },
  'benchmark.no_link': { kind: 'validation', message: 'share_text holds no http or https link' },
  'benchmark.busy': { kind: 'conflict', message: 'this benchmark is being analysed right now; try again when it finishes' },

  // Tasks, their texts and images.
  'task.not_found': { kind: 'notFound', message: 'task not found' },
  'task.idempotency_reused': { kind: 'conflict', message: 'this Idempotency-Key was used for a different request body within 24 hours: use a new key for a new task' },
  'task.benchmark_other_product': { kind: 'validation', message: 'body.benchmark_ids: benchmark {id} belongs to another product' },
  'task.not_queued': { kind: 'internal', message: 'task {id} was stored but could not be queued: {detail}' },
  'task.cursor_invalid': { kind: 'validation', message: 'querystring.cursor is not a cursor this API gave out (use next_cursor of a GET /tasks page)' },
  'task.cursor_page': { kind: 'validation', message: 'querystring.page must be 1 (or absent) with a cursor: the cursor says where the page starts' },
  'task.page_window': {
    kind: 'validation',
    message: 'querystring.page × page_size must be at most {max}; to read further, pass cursor=<next_cursor> of the last page you have',
  },
  'task.action_role': { kind: 'forbidden', message: '{action} needs the {role} role or higher; your role is {your_role}' },
  'task.wrong_status': { kind: 'conflict', message: '{action} is not accepted while the task is {status} (accepted: {accepted})' },
  'task.not_finished': { kind: 'generationNotFinished', message: '{action} is not accepted while the task is {status} (accepted: {accepted})' },
  'task.changed_meanwhile': { kind: 'conflict', message: 'the task changed meanwhile; reload it' },
  'task.import_only': { kind: 'conflict', message: 'import-text is accepted only on tasks of the import track' },
  'task.select_first': { kind: 'conflict', message: 'select at least one text candidate before submitting for review' },
  'text.not_found': { kind: 'notFound', message: 'text candidate not found' },
  'text.not_in_task': { kind: 'notFound', message: 'text candidate {id} of this task not found' },
  'text.blocked_select': { kind: 'conflict', message: 'this text contains hard-blocked words and cannot be selected; edit it first' },
  'text.hard_blocked': { kind: 'bannedWordBlock', message: 'text candidate {id} contains hard-blocked words: {words}' },
  'note.too_long': { kind: 'validation', message: '{field}: {name} is {actual} characters; the limit is {limit}' },
  'note.too_many_tags': { kind: 'validation', message: '{field}: {actual} tags; the limit is {limit}' },
  'image.not_found': { kind: 'notFound', message: 'image candidate not found' },
  'image.still_pending': { kind: 'conflict', message: 'this image is still being made; wait for it before regenerating it' },
  'image.queue_race': { kind: 'conflict', message: 'another image of this slot was queued at the same moment; reload the task' },
  'image.store_race': { kind: 'conflict', message: 'another image of this slot was stored at the same moment; retry the upload' },
  'image.not_failed': { kind: 'conflict', message: 'image candidate {id} is no failed image of the latest generation: only failed images are retried' },
  'image.not_queued': { kind: 'internal', message: 'the images were stored but could not be queued: {detail}' },
  'image.strategy': { kind: 'validation', message: 'strategy must be A, B or C' },
  'image.seq': { kind: 'validation', message: 'seq must be a positive integer' },
  'image.slot_not_found': { kind: 'notFound', message: 'image slot {slot} not found' },
  'image.slot_role': { kind: 'validation', message: 'slot {slot} is a {role} image, not {given}' },
  'image.caption_hard_blocked': { kind: 'bannedWordBlock', message: 'body.caption contains hard-blocked words: {words}' },
  'image.caption_on_cover': { kind: 'conflict', message: 'this image is a cover: it carries its set’s cover title; edit the cover title of the text instead' },
  'image.caption_not_lettered': { kind: 'conflict', message: 'this task does not letter its images (overlay_text is off)' },
  'image.caption_not_done': { kind: 'conflict', message: 'only a finished image can be lettered: wait for it, or retry it first' },
  'image.caption_no_original': { kind: 'conflict', message: 'this image was lettered before originals were kept and cannot be lettered again; regenerate or replace it' },
  'image.caption_race': { kind: 'conflict', message: 'the image changed while it was being lettered; reload the task' },

  // Review with context (issue 30).
  'comment.not_found': { kind: 'notFound', message: 'comment not found' },
  'comment.anchor': { kind: 'validation', message: 'anchor {kind} needs {needs}' },
  'comment.candidate_not_found': { kind: 'notFound', message: 'candidate {id} is no {kind} candidate of this task' },
  'comment.not_author': { kind: 'forbidden', message: 'only the author, a supervisor or an admin may delete a comment' },

  // The publishing operation (contract-decisions §11).
  'account.not_found': { kind: 'notFound', message: 'account not found' },
  'account.profile_url': { kind: 'validation', message: '{field} must be a xiaohongshu.com profile link (https://www.xiaohongshu.com/user/profile/…)' },
  'account.timezone': { kind: 'validation', message: '{field} is not a time zone: "{value}"' },
  'account.inactive': { kind: 'conflict', message: 'account "{account}" is deactivated: activate it before planning posts on it' },
  'post.not_found': { kind: 'notFound', message: 'post not found' },
  'post.source': { kind: 'validation', message: 'name the note: task_id with strategy, or fission_id with seq' },
  'post.not_approved': { kind: 'conflict', message: 'task {task_id} is {status}: only an approved task\'s notes can be scheduled' },
  'post.no_text': { kind: 'conflict', message: 'set {strategy} of task {task_id} has no selected text to post' },
  'post.fission_not_ready': { kind: 'conflict', message: 'fission {fission_id} is {status} and its source task {task_id} is {task_status}: only a completed fission of an approved task can be scheduled' },
  'post.hard_blocked': { kind: 'conflict', message: 'the note contains hard-blocked words ({words}) and cannot be posted' },
  'post.no_images': { kind: 'conflict', message: 'the note has no finished image: Xiaohongshu needs at least one' },
  'post.in_past': { kind: 'validation', message: '{field} must not be in the past' },
  'post.daily_cap': { kind: 'conflict', message: 'account "{account}" already has {cap} post(s) on {day} (its daily cap), e.g. post {post_id}' },
  'post.too_close': { kind: 'conflict', message: 'post {post_id} on account "{account}" is {minutes} minutes away; the account keeps {gap} minutes between posts' },
  'post.note_taken': { kind: 'conflict', message: 'this note is already post {post_id} on account "{account}": a note goes on one account only' },
  'post.near_duplicate': { kind: 'conflict', message: 'the note is near-identical ({similarity}%) to post {post_id} "{title}": a supervisor or admin may schedule it with force: true' },
  'post.force_role': { kind: 'forbidden', message: 'only a supervisor or an admin may schedule a near-duplicate note (force)' },
  'post.wrong_status': { kind: 'conflict', message: 'post {post_id} is {status}: this needs a post that is {allowed}' },
  'post.note_url': { kind: 'validation', message: '{field} must be a xiaohongshu.com note link or a xhslink.com short link' },
  'results.not_published': { kind: 'conflict', message: 'post {post_id} is {status}: results are recorded for published posts' },
  'results.import_unreadable': { kind: 'validation', message: 'the file could not be read as CSV or XLSX: {detail}' },
  'results.import_no_header': { kind: 'validation', message: 'no header row naming the note (笔记标题, 笔记链接 or 笔记ID) and a count (观看量, 点赞…) was found' },
  'results.import_too_many_rows': { kind: 'validation', message: 'the file has more than {max} rows: split it' },

  // Batches (issue 32).
  'batch.not_found': { kind: 'notFound', message: 'batch not found' },
  'batch.items_or_matrix': { kind: 'validation', message: 'send exactly one of body.items and body.matrix' },
  'batch.too_many_items': { kind: 'validation', message: 'a batch holds at most {max} tasks: split it' },
  'batch.item_invalid': { kind: 'validation', message: 'item {index}: {detail}', extra: ['reason'] },
  'batch.schedule_too_small': { kind: 'validation', message: '{items} tasks but only {slots} posting slots (accounts × days × times): add days, times or accounts' },
  'batch.idempotency_reused': { kind: 'conflict', message: 'this Idempotency-Key was used for a different batch within 24 hours: use a new key for a new batch' },
  'batch.not_running': { kind: 'conflict', message: 'batch {id} is {status}: only a running batch can be cancelled' },
  'batch.plan_unreadable': { kind: 'validation', message: 'the plan could not be read as CSV or XLSX: {detail}' },
  'batch.plan_no_header': { kind: 'validation', message: 'no header row naming the product (产品) and the theme (主题) was found' },
  'batch.plan_empty': { kind: 'validation', message: 'the plan has no rows' },
  'plan.unknown_product': { kind: 'validation', message: 'no product named or numbered "{value}"' },
  'plan.unknown_account': { kind: 'validation', message: 'no active account named or numbered "{value}"' },
  'plan.bad_number': { kind: 'validation', message: '{field} must be a whole number from {min} to {max}, not "{value}"' },
  'plan.bad_time': { kind: 'validation', message: '"{value}" is not a date and time such as 2026-12-01 12:00' },
  'plan.time_past': { kind: 'validation', message: 'the publishing time {value} is in the past' },
  'plan.time_without_account': { kind: 'validation', message: 'a publishing time needs an account to post on' },
  'plan.blank_theme': { kind: 'validation', message: 'the theme is empty' },
  'batch.post_refused': { kind: 'conflict', message: 'the planned post could not be scheduled: {detail}', extra: ['reason'] },

  // Packages and fissions.
  'package.not_found': { kind: 'notFound', message: 'delivery package not found' },
  'package.nothing': { kind: 'conflict', message: 'nothing to package: the task has no text candidate that may be delivered' },
  'package.not_ready': { kind: 'packageNotReady', message: 'package not ready: its status is {status}' },
  'package.expired': { kind: 'packageFileAbsent', message: 'the package expired at {expires_at}: create a new package' },
  'package.file_gone': { kind: 'packageFileAbsent', message: 'the package file is gone: create a new package' },
  'download.range_not_satisfiable': { kind: 'rangeNotSatisfiable', message: 'range not satisfiable: the file has {size} bytes' },
  'download.token_invalid': { kind: 'downloadTokenInvalid', message: 'download token invalid, expired, already used or for another package' },
  'fission.not_found': { kind: 'notFound', message: 'fission not found' },
  'fission.note_not_found': { kind: 'notFound', message: 'fission note not found' },
  'fission.source_not_found': { kind: 'notFound', message: 'source task not found' },
  'fission.source_has_no_text': { kind: 'conflict', message: 'the source task has no text yet: a fission starts from a generated or imported text' },
  'fission.generating_retry': { kind: 'conflict', message: 'the fission is still generating: retry its images once it has finished' },
  'fission.generating_edit': { kind: 'conflict', message: 'the fission is still generating: edit its notes once it has finished' },
  'fission.empty_generating': { kind: 'fissionEmpty', message: 'the fission has no notes yet: it is still generating' },
  'fission.empty': { kind: 'fissionEmpty', message: 'the fission has no notes: nothing to download' },
  'fission.export_rejected': { kind: 'fissionExportRejected', message: 'export rejected: {problems}' },
  /** contract-decisions §9: a hard-blocked note never ships, as packages refuse one; `sets` are the seqs of the notes that hold the download back. */
  'fission.export_hard_blocked': { kind: 'fissionExportRejected', message: 'export refused: set {sets} has hard-blocked words ({words}); edit the note, then download again' },

  // Webhooks.
  'webhook.not_found': { kind: 'notFound', message: 'webhook not found' },
  'webhook.private_url': { kind: 'validation', message: 'body.url: {detail}; only public http(s) addresses are allowed' },
  'webhook.no_events': { kind: 'validation', message: 'body.events must name at least one event' },
  'webhook.wecom_secret': { kind: 'validation', message: 'body.secret: a WeCom group robot has no signing secret; leave it empty' },
} as const satisfies Record<string, ErrorReasonEntry>;

/**
 * What a stored failure says (a task's `failure_reason`, a stream `error` event, a package's,
 * fission's or image's `error`): no HTTP kind, only the sentence and its values. `error_kind`
 * (contract-decisions §7, null when not a provider failure) and `situation` (what the kind alone
 * would not tell: `region`, `context`, `thinking`) travel as params wherever a provider failed.
 */
interface FailureReasonEntry {
  readonly message: string;
  readonly extra?: readonly string[];
}

const PROVIDER = ['error_kind', 'situation'] as const;

export const FAILURE_REASONS = {
  'failure.text_set': { message: 'texts of set {set} failed: {detail}', extra: PROVIDER },
  'failure.image': { message: 'image {set}{seq} ({role}) failed: {detail}', extra: PROVIDER },
  'failure.note_image': { message: '{role} image failed: {detail}', extra: PROVIDER },
  /** `because`: the failure reason that stopped the retry, when it was not a provider's (e.g. failure.source_gone). */
  'failure.retry': { message: 'retry failed: {detail}', extra: [...PROVIDER, 'because'] },
  'failure.partly': { message: 'partly done: {parts}; the rest is ready', extra: ['texts_failed', 'texts_total', 'images_failed', 'images_total'] },
  'failure.nothing': { message: 'nothing usable was produced: {detail}', extra: PROVIDER },
  'failure.fission_call': { message: 'the fission call failed: {detail}', extra: PROVIDER },
  'failure.task_no_text_connection': { message: 'the workspace has no connection that writes text: add one under provider connections, then regenerate' },
  'failure.fission_no_text_connection': { message: 'the workspace has no connection that writes text: add one under provider connections, then create the fission again' },
  'failure.product_gone': { message: 'the product of this task no longer exists' },
  'failure.source_gone': { message: 'the source task no longer exists' },
  'failure.generation_stopped': { message: 'generation stopped: {detail}' },
  'failure.fission_stopped': { message: 'fission stopped: {detail}' },
  'failure.images_stopped': { message: 'images stopped: {detail}' },
  'failure.no_image_connection': { message: 'the workspace has no connection that draws images: add one under provider connections, then retry' },
  'failure.batch_cancelled': { message: 'the batch was cancelled before this task started' },
  'failure.queue_unavailable': { message: 'the job queue is unavailable; regenerate the task to try again' },
  'failure.images_queue_unavailable': { message: 'the job queue is unavailable; retry the images' },
  'failure.package_build': { message: 'the package could not be built (internal error); create it again' },
  /** A build the package's own data made impossible (a missing image file, a text deleted meanwhile); `detail` says which. */
  'failure.package_rejected': { message: '{detail}' },
  'failure.package_queue': { message: 'the build could not be queued; create the package again' },
  /** A failure with no reason of its own (an internal error's text, a job that could not be queued). */
  'failure.other': { message: '{detail}', extra: PROVIDER },
} as const satisfies Record<string, FailureReasonEntry>;

export type ErrorReason = keyof typeof ERROR_REASONS;
export type FailureReason = keyof typeof FAILURE_REASONS;
type Catalogue = typeof ERROR_REASONS & typeof FAILURE_REASONS;
export type Reason = keyof Catalogue;

/** A param value: shown as is; a list is joined with ", " in English (the console joins it in its own way). */
export type ParamValue = string | number | readonly string[] | null;

type Holes<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | Holes<Rest> : never;
type ExtraOf<E> = E extends { readonly extra: readonly (infer X extends string)[] } ? X : never;
type HoleOf<R extends Reason> = Holes<Catalogue[R]['message']>;

/** The params a reason takes: every hole of its template is required, its `extra` params optional. */
export type ParamsOf<R extends Reason> = { [K in HoleOf<R>]: ParamValue } & { [K in ExtraOf<Catalogue[R]>]?: ParamValue };
/** The params argument: optional where the template has no hole. */
export type ParamsArg<R extends Reason> = [HoleOf<R>] extends [never] ? [params?: ParamsOf<R>] : [params: ParamsOf<R>];

export type Params = Record<string, ParamValue>;

const CATALOGUE: Record<string, { message: string }> = { ...ERROR_REASONS, ...FAILURE_REASONS };

/** The English message of a reason: its template with the params filled in. */
export function renderReason(reason: Reason, params: Params = {}): string {
  return CATALOGUE[reason]!.message.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    return Array.isArray(value) ? value.join(', ') : String(value ?? '');
  });
}

/** The params names of every reason, in template order then `extra` (for the generated web catalogue). */
export function paramNames(reason: Reason): string[] {
  const entry = CATALOGUE[reason] as { message: string; extra?: readonly string[] };
  const holes = [...entry.message.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return [...new Set([...holes, ...(entry.extra ?? [])])];
}

export function errorKindOf(reason: ErrorReason): ErrorKind {
  return ERROR_REASONS[reason].kind;
}

/** A stored failure: its reason, params and the English text kept in the existing column. */
export interface Failure {
  reason: FailureReason;
  params: Params;
  message: string;
}

export function failure<R extends FailureReason>(reason: R, ...[params]: ParamsArg<R>): Failure {
  const values = (params ?? {}) as Params;
  return { reason, params: values, message: renderReason(reason, values) };
}

/** The error event of a task's stream for a failure: `message` as before, `error_kind` (§7) from its params, and the reason. */
export function failureEvent(f: Failure) {
  const kind = f.params.error_kind;
  return { name: 'error' as const, data: { message: f.message, error_kind: typeof kind === 'string' ? kind : null, reason: f.reason, params: f.params } };
}

/** The columns of a row's `error` (image candidates, fission images, fissions, packages), its text clipped to `max`. */
export function errorColumns(f: Failure, max = Infinity) {
  return { error: Number.isFinite(max) ? clip(f.message, max) : f.message, error_key: f.reason, error_params: JSON.stringify(f.params) };
}

/** The columns of a task's `failure_reason`, its text clipped to `max`. */
export function taskFailureColumns(f: Failure, max = Infinity) {
  return { failure_reason: Number.isFinite(max) ? clip(f.message, max) : f.message, failure_key: f.reason, failure_params: JSON.stringify(f.params) };
}

/** The same columns emptied (a row that is made again). */
export const NO_ERROR = { error: null, error_key: null, error_params: null } as const;
export const NO_TASK_FAILURE = { failure_reason: null, failure_key: null, failure_params: null } as const;

/** A stored failure's params as read back from JSON (lists are plain arrays there). */
export type StoredParams = Record<string, string | number | string[] | null>;
