import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Team notifications (issue 16, contract-decisions §10).
 *
 * - `webhooks`: a receiver of a workspace. Its URL (a bot's URL carries the bot's key) and its
 *   signing secret are sealed like provider keys; `url_hint` is the masked form shown back.
 * - `webhook_deliveries`: the outbox. A row is written in the transaction of the state change it
 *   reports, so a crash after commit loses nothing; `uid` is the stable delivery id receivers
 *   deduplicate on. `next_attempt_at` is both the retry schedule and the claim of a running
 *   attempt (moved ahead while it runs), which the pending-only index serves.
 * - `webhook_attempts`: every attempt, with its HTTP status, latency and a short excerpt.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await t
    .id(db.schema.createTable('webhooks'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('url_sealed', t.json, (c) => c.notNull())
    .addColumn('url_hint', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', t.json)
    .addColumn('events', t.json, (c) => c.notNull())
    .addColumn('is_active', t.bool, t.boolDefault(true))
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_workspace_idx').on('webhooks').columns(['workspace_id', 'id']).execute();

  await t
    .id(db.schema.createTable('webhook_deliveries'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('uid', 'text', (c) => c.notNull().unique())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('payload', t.json, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('http_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', t.timestamp, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('delivered_at', t.timestamp)
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_webhook_idx').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .execute();

  await t
    .id(db.schema.createTable('webhook_attempts'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('delivery_id', 'integer', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('ok', t.bool, (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('error_kind', 'text')
    .addColumn('excerpt', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery_idx').on('webhook_attempts').columns(['delivery_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
