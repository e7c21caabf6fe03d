import type { AppContext } from '../../context.js';
import type { WebhookErrorKind } from '../../db/schema.js';
import { PeriodicChore } from '../../jobs/periodic.js';
import type { JobDefinition } from '../../jobs/types.js';
import { webhookAttempts } from '../../ops/metrics.js';
import { fetchFailureKind, postPublic } from '../../security/ssrf.js';
import { buildRequest, judgeAnswer, type Notification } from './formats.js';
import * as repo from './repository.js';
import { DELIVER_JOB } from './service.js';

/**
 * Delivery of the outbox (docs/webhooks.md). A delivery row is written with the change it
 * reports; the dispatcher of every worker process finds rows that are due and enqueues their
 * ids on the `notify` lane; the job claims the row (so one attempt runs at a time), posts once
 * with a deadline, records the attempt and either settles the row or schedules the next attempt
 * with backoff until the retry window closes. A worker killed mid-attempt leaves its claim to
 * lapse and the row becomes due again: at least once, with the same delivery id every time.
 */

/** Beyond the attempt's own deadline, how long its claim lasts before another worker may retry (timeout + this). */
const claimMarginMs = (timeoutMs: number) => Math.min(5_000, timeoutMs);
const EXCERPT_CHARS = 300;
/** Due deliveries enqueued per poll. */
const POLL_BATCH = 500;

function excerptOf(body: Buffer): string | null {
  const text = body.toString('utf8').replace(/\s+/g, ' ').trim();
  if (!text) return null;
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/** Delay before attempt n + 1 after n failed ones: base, 2×, 4×, … up to the maximum, with a little jitter so receivers that come back are not hit by every sender at once. */
export function retryDelayMs(settings: AppContext['config']['webhooks'], failedAttempts: number, random = Math.random): number {
  const delay = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.min(30, Math.max(0, failedAttempts - 1)));
  return Math.round(delay * (1 + 0.1 * random()));
}

function linkOf(publicUrl: string | undefined, event: string, data: Record<string, unknown>): string | undefined {
  if (!publicUrl) return undefined;
  if (event === 'fission.completed' && typeof data.fission_id === 'number') return `${publicUrl}/fission/${data.fission_id}`;
  if (event.startsWith('post.') && typeof data.post_id === 'number') return `${publicUrl}/posts/${data.post_id}/kit`;
  if (typeof data.task_id === 'number') return `${publicUrl}/tasks/${data.task_id}`;
  return `${publicUrl}/`;
}

export async function deliverOnce(ctx: AppContext, deliveryId: number): Promise<void> {
  const settings = ctx.config.webhooks;
  const started = new Date();
  const claimed = await repo.claimDelivery(ctx.db, deliveryId, started.toISOString(), new Date(started.getTime() + settings.timeoutMs + claimMarginMs(settings.timeoutMs)).toISOString());
  // Not due, already settled, or another run holds it: nothing to do.
  if (!claimed) return;
  const webhook = await repo.webhookOf(ctx.db, claimed);
  if (!webhook) return;
  const notification: Notification = {
    id: claimed.uid,
    event: claimed.event,
    workspaceId: claimed.workspace_id,
    occurredAt: claimed.payload.occurred_at,
    data: claimed.payload.data,
    link: linkOf(ctx.config.publicUrl, claimed.event, claimed.payload.data),
  };
  const target = {
    url: ctx.secrets.open(webhook.url_sealed),
    secret: webhook.secret_sealed ? ctx.secrets.open(webhook.secret_sealed) : undefined,
  };
  const request = buildRequest(webhook.kind, target, notification, started);

  let httpStatus: number | null = null;
  let errorKind: WebhookErrorKind | null;
  let excerpt: string | null = null;
  try {
    const answer = await postPublic(request.url, { body: request.body, headers: request.headers }, { timeoutMs: settings.timeoutMs, isAllowedAddress: ctx.config.outbound.userEndpoints, resolve: ctx.config.outbound.resolve });
    httpStatus = answer.status;
    excerpt = excerptOf(answer.body);
    errorKind = judgeAnswer(webhook.kind, answer.status, answer.body.toString('utf8'));
  } catch (err) {
    errorKind = fetchFailureKind(err);
  }
  const finished = new Date();
  const finishedIso = finished.toISOString();
  webhookAttempts.inc({ kind: webhook.kind, outcome: errorKind ?? 'ok' });
  const attempt = {
    workspace_id: claimed.workspace_id,
    delivery_id: claimed.id,
    attempt: claimed.attempts,
    ok: errorKind === null,
    http_status: httpStatus,
    latency_ms: finished.getTime() - started.getTime(),
    error_kind: errorKind,
    excerpt,
    created_at: finishedIso,
  };
  const log = ctx.log.child({ webhookId: webhook.id, delivery: claimed.uid, event: claimed.event, attempt: claimed.attempts });
  if (errorKind === null) {
    await repo.settleAttempt(ctx.db, claimed, attempt, { status: 'delivered', http_status: httpStatus, last_error: null, delivered_at: finishedIso, updated_at: finishedIso });
    log.info({ httpStatus, ms: attempt.latency_ms }, 'webhook delivered');
    return;
  }
  const deadline = Date.parse(claimed.created_at) + settings.retryWindowMs;
  const common = { http_status: httpStatus, last_error: errorKind, updated_at: finishedIso };
  if (finished.getTime() >= deadline) {
    await repo.settleAttempt(ctx.db, claimed, attempt, { ...common, status: 'failed' });
    log.warn({ httpStatus, errorKind }, 'webhook delivery failed for good: retry window over');
    return;
  }
  const next = Math.min(deadline, finished.getTime() + retryDelayMs(settings, claimed.attempts));
  await repo.settleAttempt(ctx.db, claimed, attempt, { ...common, next_attempt_at: new Date(next).toISOString() });
  log.info({ httpStatus, errorKind, retryInMs: next - finished.getTime() }, 'webhook attempt failed; will retry');
}

/**
 * `webhook.deliver` (the delivery id), on the `notify` lane. A receiver's failure is not the
 * job's: the delivery schedules its own retries for 24 h, so the job fails only when the
 * database does, and then the claim lapses and the dispatcher enqueues the delivery again.
 */
export const webhookDeliverJob: JobDefinition = {
  kind: DELIVER_JOB,
  lane: 'notify',
  run: (ctx, deliveryId) => deliverOnce(ctx, deliveryId),
  async onFailed(ctx, deliveryId, reason) {
    ctx.log.warn({ deliveryId, reason }, 'a webhook delivery job gave up; the delivery stays pending and is enqueued again when due');
  },
};

/**
 * The outbox's relay, in every worker process: every `pollMs`, the due deliveries are
 * enqueued (the queue merges a delivery enqueued twice). A delivery this process enqueued is
 * not enqueued again for the same attempt until a claim would have lapsed, so a backlog waiting
 * for a free slot is not sent to the queue every second, while a retry goes as soon as it is due.
 */
export class WebhookDispatcher extends PeriodicChore {
  /** Delivery id → the attempt count it had and when this process enqueued it. */
  private readonly recent = new Map<number, { attempts: number; at: number }>();

  constructor(ctx: AppContext) {
    super(ctx, 'webhook dispatch', ctx.config.webhooks.pollMs);
  }

  protected pass() {
    return this.poll();
  }

  /** One pass; returns how many deliveries it enqueued. */
  async poll(): Promise<number> {
    const now = Date.now();
    const quiet = this.ctx.config.webhooks.timeoutMs + claimMarginMs(this.ctx.config.webhooks.timeoutMs);
    for (const [id, sent] of this.recent) if (now - sent.at > quiet) this.recent.delete(id);
    const due = await repo.dueDeliveries(this.ctx.db, new Date(now).toISOString(), POLL_BATCH);
    let enqueued = 0;
    for (const { id, attempts } of due) {
      if (this.recent.get(id)?.attempts === attempts) continue;
      await this.ctx.queue.enqueue(DELIVER_JOB, id);
      this.recent.set(id, { attempts, at: now });
      enqueued++;
    }
    return enqueued;
  }
}
