import type { Db, DbOrTx } from '../../db/database.js';
import type { NewRow, Row, RowUpdate, WebhookEvent } from '../../db/schema.js';

/**
 * Webhooks, their outbox (`webhook_deliveries`) and the attempts. Every function that touches
 * a workspace's rows takes its id, except the delivery job's reads by delivery id and the due
 * scan, which serve every workspace (like the job sweeper).
 */

export type WebhookRow = Row<'webhooks'>;
export type DeliveryRow = Row<'webhook_deliveries'>;

export function listWebhooks(db: DbOrTx, workspaceId: number) {
  return db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
}

export function findWebhook(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export async function insertWebhook(db: DbOrTx, row: NewRow<'webhooks'>): Promise<number> {
  const inserted = await db.insertInto('webhooks').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateWebhook(db: DbOrTx, workspaceId: number, id: number, changes: RowUpdate<'webhooks'>): Promise<boolean> {
  const result = await db.updateTable('webhooks').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteWebhook(db: DbOrTx, workspaceId: number, id: number): Promise<boolean> {
  // Attempts and deliveries go with it (ON DELETE CASCADE); SQLite needs foreign keys on, which database.ts sets.
  const result = await db.deleteFrom('webhooks').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** The active webhooks of a workspace that listen to `event` (events are a short JSON list, filtered here). */
export async function subscribers(db: DbOrTx, workspaceId: number, event: WebhookEvent): Promise<Array<Pick<WebhookRow, 'id'>>> {
  const rows = await db.selectFrom('webhooks').select(['id', 'events', 'is_active']).where('workspace_id', '=', workspaceId).execute();
  return rows.filter((r) => r.is_active && r.events.includes(event)).map((r) => ({ id: r.id }));
}

export async function insertDeliveries(db: DbOrTx, rows: Array<NewRow<'webhook_deliveries'>>): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

export function findDeliveryByUid(db: DbOrTx, workspaceId: number, uid: string) {
  return db.selectFrom('webhook_deliveries').selectAll().where('workspace_id', '=', workspaceId).where('uid', '=', uid).executeTakeFirst();
}

export async function listDeliveries(db: DbOrTx, workspaceId: number, webhookId: number, page: { offset: number; limit: number }): Promise<[DeliveryRow[], number]> {
  const base = db.selectFrom('webhook_deliveries').where('workspace_id', '=', workspaceId).where('webhook_id', '=', webhookId);
  return Promise.all([
    base.selectAll().orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

/** The latest attempts of these deliveries, newest first, at most `perDelivery` each. */
export async function recentAttempts(db: DbOrTx, workspaceId: number, deliveryIds: number[], perDelivery: number) {
  if (deliveryIds.length === 0) return new Map<number, Array<Row<'webhook_attempts'>>>();
  const rows = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('id', 'desc')
    .execute();
  const byDelivery = new Map<number, Array<Row<'webhook_attempts'>>>();
  for (const row of rows) {
    const list = byDelivery.get(row.delivery_id) ?? [];
    if (list.length < perDelivery) list.push(row);
    byDelivery.set(row.delivery_id, list);
  }
  return byDelivery;
}

/** Cross-tenant: pending deliveries whose next attempt is due, oldest first (the pending-only index). */
export function dueDeliveries(db: DbOrTx, nowIso: string, limit: number): Promise<Array<Pick<DeliveryRow, 'id' | 'attempts'>>> {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'attempts'])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', nowIso)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Claims the next attempt of a due delivery: one conditional UPDATE that counts the attempt and
 * moves `next_attempt_at` to the end of the claim, so of two runs (a duplicate job, two workers)
 * one sends. A worker that dies mid-attempt leaves the claim to lapse, and the delivery is due
 * again. Cross-tenant by delivery id: the job carries only the id.
 */
export async function claimDelivery(db: DbOrTx, id: number, nowIso: string, claimUntilIso: string): Promise<DeliveryRow | undefined> {
  return db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: claimUntilIso, updated_at: nowIso }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', nowIso)
    .returningAll()
    .executeTakeFirst();
}

/** The webhook a delivery goes to, read with the delivery's own workspace. */
export function webhookOf(db: DbOrTx, delivery: Pick<DeliveryRow, 'workspace_id' | 'webhook_id'>) {
  return findWebhook(db, delivery.workspace_id, delivery.webhook_id);
}

/**
 * Records an attempt and what it leaves the delivery in, only while this run's claim holds
 * (`attempts` and the claim's end unchanged): a run that outlived its claim records nothing.
 */
export function settleAttempt(
  db: Db,
  claimed: Pick<DeliveryRow, 'id' | 'workspace_id' | 'attempts' | 'next_attempt_at'>,
  attempt: NewRow<'webhook_attempts'>,
  change: RowUpdate<'webhook_deliveries'>,
): Promise<boolean> {
  // One transaction: a reader never sees the delivery settled without the attempt that settled it.
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('webhook_deliveries')
      .set(change)
      .where('id', '=', claimed.id)
      .where('status', '=', 'pending')
      .where('attempts', '=', claimed.attempts)
      .where('next_attempt_at', '=', claimed.next_attempt_at)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await trx.insertInto('webhook_attempts').values(attempt).execute();
    return true;
  });
}

// ---- what events report: read in the transaction of the change ---------------------------------

export function taskFacts(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('tasks')
    .innerJoin('products', 'products.id', 'tasks.product_id')
    .select([
      'tasks.id',
      'tasks.theme',
      'tasks.status',
      'tasks.reject_reason',
      'tasks.failure_reason',
      'tasks.failure_key',
      'tasks.failure_params',
      'products.id as product_id',
      'products.name as product_name',
    ])
    .where('tasks.workspace_id', '=', workspaceId)
    .where('tasks.id', '=', taskId)
    .executeTakeFirst();
}

/** The chosen text: the best-scored selected text of the task, else its best text. */
export function chosenText(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('text_candidates')
    .select(['id', 'title', 'score_total', 'is_selected'])
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .orderBy('is_selected', 'desc')
    .orderBy('score_total', 'desc')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

export function packageFacts(db: DbOrTx, workspaceId: number, packageId: number) {
  return db
    .selectFrom('delivery_packages')
    .select((eb) => [
      'id',
      'task_id',
      'file_name',
      'size_bytes',
      'expires_at',
      eb.selectFrom('package_notes').select((n) => n.fn.countAll<number>().as('n')).whereRef('package_notes.package_id', '=', 'delivery_packages.id').as('note_count'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', packageId)
    .executeTakeFirst();
}

export function fissionFacts(db: DbOrTx, workspaceId: number, fissionId: number) {
  return db
    .selectFrom('fission_tasks')
    .select(['id', 'source_task_id', 'fanout_count', 'reference_level'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', fissionId)
    .executeTakeFirst();
}

export async function fissionNoteCounts(db: DbOrTx, workspaceId: number, fissionId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('text_candidates')
    .select(['image_status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('workspace_id', '=', workspaceId)
    .where('fission_id', '=', fissionId)
    .groupBy('image_status')
    .execute();
  return new Map(rows.map((r) => [r.image_status ?? '', Number(r.n)]));
}

/** The facts a post's notification names. */
export function postFacts(db: DbOrTx, workspaceId: number, id: number) {
  return db
    .selectFrom('posts')
    .innerJoin('accounts', 'accounts.id', 'posts.account_id')
    .select(['posts.id', 'posts.title', 'posts.status', 'posts.scheduled_at', 'posts.note_url', 'posts.published_at', 'accounts.id as account_id', 'accounts.name as account_name'])
    .where('posts.workspace_id', '=', workspaceId)
    .where('posts.id', '=', id)
    .executeTakeFirst();
}
