import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { DbOrTx } from '../../db/database.js';
import { json, nowIso } from '../../db/codec.js';
import type { Row, SealedJson, WebhookEvent, WebhookKind } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { checkPublicUrl, SsrfRefused } from '../../security/ssrf.js';
import type { NotificationEvent } from './formats.js';
import * as repo from './repository.js';

/** How many attempts each listed delivery shows. */
const ATTEMPTS_SHOWN = 5;

export interface WebhookInput {
  name?: string | undefined;
  url?: string | undefined;
  kind?: WebhookKind | undefined;
  events?: WebhookEvent[] | undefined;
  /** null (PATCH): remove the secret. */
  secret?: string | null | undefined;
  is_active?: boolean | undefined;
}


function view(row: repo.WebhookRow) {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    url: row.url_hint,
    events: row.events,
    has_secret: row.secret_sealed !== null,
    is_active: row.is_active,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function deliveryView(row: repo.DeliveryRow, attempts: Array<Row<'webhook_attempts'>>) {
  return {
    id: row.uid,
    event: row.event,
    status: row.status,
    http_status: row.http_status,
    attempts: row.attempts,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    last_error: row.last_error,
    attempt_log: attempts.map((a) => ({
      attempt: a.attempt,
      at: a.created_at,
      ok: a.ok,
      http_status: a.http_status,
      latency_ms: a.latency_ms,
      error_kind: a.error_kind,
      excerpt: a.excerpt,
    })),
  };
}

/**
 * The URL as shown back: scheme, host and the short parts of the path; long path segments
 * (Feishu's hook id) and every query value (WeCom's `key`, DingTalk's `access_token`) keep only
 * their last four characters.
 */
export function maskUrl(url: URL): string {
  const hide = (part: string) => (part.length <= 4 ? '****' : `****${part.slice(-4)}`);
  const path = url.pathname
    .split('/')
    .map((segment) => (segment.length > 12 ? hide(segment) : segment))
    .join('/');
  const query = [...url.searchParams.entries()].map(([k, v]) => `${k}=${hide(v)}`).join('&');
  return `${url.protocol}//${url.host}${path}${query ? `?${query}` : ''}`;
}

async function checkedUrl(ctx: AppContext, raw: string): Promise<URL> {
  try {
    return await checkPublicUrl(raw.trim(), { isAllowedAddress: ctx.config.outbound.userEndpoints, resolve: ctx.config.outbound.resolve });
  } catch (err) {
    if (err instanceof SsrfRefused) throw fail('webhook.private_url', { detail: err.message });
    throw err;
  }
}

function checkedEvents(events: WebhookEvent[]): WebhookEvent[] {
  const unique = [...new Set(events)];
  if (unique.length === 0) throw fail('webhook.no_events');
  return unique;
}

function checkSecretFits(kind: WebhookKind, hasSecret: boolean): void {
  // A WeCom group robot has no signing: its key is part of the URL.
  if (kind === 'wecom' && hasSecret) throw fail('webhook.wecom_secret');
}

const seal = (ctx: AppContext, text: string): SealedJson => ctx.secrets.seal(text);

export async function listWebhooks(ctx: AppContext, auth: AuthUser) {
  return { items: (await repo.listWebhooks(ctx.db, auth.workspaceId)).map(view) };
}

export async function createWebhook(ctx: AppContext, auth: AuthUser, input: Required<Pick<WebhookInput, 'name' | 'url' | 'kind' | 'events'>> & WebhookInput) {
  const name = input.name.trim();
  if (!name) throw fail('validation.blank', { field: 'body.name' });
  const url = await checkedUrl(ctx, input.url);
  const secret = input.secret?.trim() || undefined;
  checkSecretFits(input.kind, secret !== undefined);
  const now = nowIso(ctx.clock.now());
  const id = await repo.insertWebhook(ctx.db, {
    workspace_id: auth.workspaceId,
    name,
    kind: input.kind,
    url_sealed: json(seal(ctx, url.toString())),
    url_hint: maskUrl(url),
    secret_sealed: json(secret ? seal(ctx, secret) : null),
    events: json(checkedEvents(input.events)),
    is_active: input.is_active ?? true,
    created_by: auth.userId,
    created_at: now,
    updated_at: now,
  });
  return view((await repo.findWebhook(ctx.db, auth.workspaceId, id))!);
}

export async function updateWebhook(ctx: AppContext, auth: AuthUser, id: number, input: WebhookInput) {
  const current = await repo.findWebhook(ctx.db, auth.workspaceId, id);
  if (!current) throw fail('webhook.not_found');
  const changes: Parameters<typeof repo.updateWebhook>[3] = { updated_at: nowIso(ctx.clock.now()) };
  if (input.name !== undefined) {
    if (!input.name.trim()) throw fail('validation.blank', { field: 'body.name' });
    changes.name = input.name.trim();
  }
  if (input.url !== undefined) {
    const url = await checkedUrl(ctx, input.url);
    changes.url_sealed = json(seal(ctx, url.toString()));
    changes.url_hint = maskUrl(url);
  }
  if (input.kind !== undefined) changes.kind = input.kind;
  if (input.events !== undefined) changes.events = json(checkedEvents(input.events));
  if (input.is_active !== undefined) changes.is_active = input.is_active;
  const secret = input.secret === null ? null : input.secret?.trim() || undefined;
  if (secret !== undefined) changes.secret_sealed = json(secret === null ? null : seal(ctx, secret));
  const hasSecret = secret === undefined ? current.secret_sealed !== null : secret !== null;
  checkSecretFits(input.kind ?? current.kind, hasSecret);
  if (!(await repo.updateWebhook(ctx.db, auth.workspaceId, id, changes))) throw fail('webhook.not_found');
  return view((await repo.findWebhook(ctx.db, auth.workspaceId, id))!);
}

export async function deleteWebhook(ctx: AppContext, auth: AuthUser, id: number) {
  if (!(await repo.deleteWebhook(ctx.db, auth.workspaceId, id))) throw fail('webhook.not_found');
}

export async function listDeliveries(ctx: AppContext, auth: AuthUser, webhookId: number, query: PageQuery) {
  if (!(await repo.findWebhook(ctx.db, auth.workspaceId, webhookId))) throw fail('webhook.not_found');
  const [rows, total] = await repo.listDeliveries(ctx.db, auth.workspaceId, webhookId, pageWindow(query));
  const attempts = await repo.recentAttempts(ctx.db, auth.workspaceId, rows.map((r) => r.id), ATTEMPTS_SHOWN);
  return pageOf(rows.map((r) => deliveryView(r, attempts.get(r.id) ?? [])), total, query);
}

/** A test message through the same outbox and queue as real events (an inactive webhook too: that is how one checks it). */
export async function testWebhook(ctx: AppContext, auth: AuthUser, id: number) {
  const webhook = await repo.findWebhook(ctx.db, auth.workspaceId, id);
  if (!webhook) throw fail('webhook.not_found');
  const [delivery] = deliveryRows(auth.workspaceId, [webhook.id], 'webhook.test', { webhook_name: webhook.name }, new Date());
  await repo.insertDeliveries(ctx.db, [delivery!]);
  const stored = (await repo.findDeliveryByUid(ctx.db, auth.workspaceId, delivery!.uid))!;
  // The poll would find it within a second; enqueued now, it goes at once.
  await ctx.queue.enqueue(DELIVER_JOB, stored.id).catch((err: unknown) => ctx.log.warn({ err }, 'enqueueing a test delivery failed; the poll will send it'));
  return deliveryView(stored, []);
}

/** The job kind that sends one delivery (declared in delivery.ts). */
export const DELIVER_JOB = 'webhook.deliver';

function deliveryRows(workspaceId: number, webhookIds: number[], event: NotificationEvent, data: Record<string, unknown>, at: Date) {
  const iso = at.toISOString();
  return webhookIds.map((webhookId) => ({
    workspace_id: workspaceId,
    webhook_id: webhookId,
    uid: randomUUID(),
    event,
    payload: json({ occurred_at: iso, data }),
    status: 'pending' as const,
    // Wall clock, like every delivery time: the worker's poll compares with it.
    next_attempt_at: iso,
    created_at: iso,
    updated_at: iso,
  }));
}

/**
 * Writes the outbox rows of an event for every active webhook of the workspace listening to it,
 * in the caller's transaction (the one that makes the change the event reports), so the event
 * exists exactly when the change does. The facts are read only when someone listens.
 */
async function emit(db: DbOrTx, workspaceId: number, event: WebhookEvent, facts: () => Promise<Record<string, unknown> | undefined>): Promise<void> {
  const targets = await repo.subscribers(db, workspaceId, event);
  if (targets.length === 0) return;
  const data = await facts();
  if (!data) return;
  await repo.insertDeliveries(
    db,
    deliveryRows(
      workspaceId,
      targets.map((t) => t.id),
      event,
      data,
      new Date(),
    ),
  );
}

/** A task event (task.pending_selection, task.failed, task.submitted, task.approved, task.rejected), after its move. */
export function notifyTaskEvent(db: DbOrTx, workspaceId: number, taskId: number, event: WebhookEvent, opts: { final?: boolean } = {}): Promise<void> {
  return emit(db, workspaceId, event, async () => {
    const task = await repo.taskFacts(db, workspaceId, taskId);
    if (!task) return undefined;
    const text = await repo.chosenText(db, workspaceId, taskId);
    return {
      task_id: task.id,
      product: { id: task.product_id, name: task.product_name },
      theme: task.theme,
      status: task.status,
      score: text ? Number(text.score_total) : null,
      ...(event === 'task.rejected' ? { reason: task.reject_reason, final: opts.final === true } : {}),
      // The English sentence as before, and its reason key and params to word it (bots say it in Chinese).
      ...(event === 'task.failed' ? { reason: task.failure_reason, reason_key: task.failure_key, reason_params: task.failure_key ? (task.failure_params ?? {}) : null } : {}),
    };
  });
}

/** package.ready, in the transaction that makes the package ready. */
export function notifyPackageReady(db: DbOrTx, workspaceId: number, packageId: number): Promise<void> {
  return emit(db, workspaceId, 'package.ready', async () => {
    const pkg = await repo.packageFacts(db, workspaceId, packageId);
    const task = pkg && (await repo.taskFacts(db, workspaceId, pkg.task_id));
    if (!pkg || !task) return undefined;
    return {
      package_id: pkg.id,
      task_id: task.id,
      product: { id: task.product_id, name: task.product_name },
      theme: task.theme,
      file_name: pkg.file_name,
      size_bytes: pkg.size_bytes,
      note_count: Number(pkg.note_count),
      expires_at: pkg.expires_at,
    };
  });
}

/** fission.completed, in the transaction that settles the fission completed. */
export function notifyFissionCompleted(db: DbOrTx, workspaceId: number, fissionId: number): Promise<void> {
  return emit(db, workspaceId, 'fission.completed', async () => {
    const fission = await repo.fissionFacts(db, workspaceId, fissionId);
    const task = fission && (await repo.taskFacts(db, workspaceId, fission.source_task_id));
    if (!fission || !task) return undefined;
    const notes = await repo.fissionNoteCounts(db, workspaceId, fissionId);
    return {
      fission_id: fission.id,
      source_task_id: task.id,
      product: { id: task.product_id, name: task.product_name },
      theme: task.theme,
      fanout_count: fission.fanout_count,
      done_count: notes.get('image_done') ?? 0,
    };
  });
}

/** post.due, post.missed, post.published, in the transaction that moves the post. */
export function notifyPostEvent(db: DbOrTx, workspaceId: number, postId: number, event: 'post.due' | 'post.missed' | 'post.published'): Promise<void> {
  return emit(db, workspaceId, event, async () => {
    const post = await repo.postFacts(db, workspaceId, postId);
    if (!post) return undefined;
    return {
      post_id: post.id,
      account: { id: post.account_id, name: post.account_name },
      title: post.title,
      status: post.status,
      scheduled_at: post.scheduled_at,
      ...(event === 'post.published' ? { note_url: post.note_url, published_at: post.published_at } : {}),
    };
  });
}
