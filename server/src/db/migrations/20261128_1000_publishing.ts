import type { Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * The publishing operation (contract-decisions §11): the team's Xiaohongshu accounts, the posts
 * planned on them, and the metrics snapshots of what was posted.
 *
 * - A post freezes its note at scheduling: the text columns here, the image files in
 *   `post_images` (file keys are immutable, so holding the key holds the file). Later edits of
 *   the task change no post.
 * - `note_key` names the note a post carries (`task:<id>:<strategy>` or `fission:<id>:<seq>`):
 *   the same note on two accounts is refused while a live post holds it.
 * - `xhs_note_id` is the note id read from `note_url`, what the creator centre's export names.
 * - A metrics snapshot is unique per post and capture time, so importing a file twice adds nothing.
 * - Performance signals are preference signals of kind `performance`; `account_id` and `post_id`
 *   say which post's result they weigh.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await t
    .id(db.schema.createTable('accounts'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('profile_url', 'text')
    .addColumn('persona', 'text')
    .addColumn('daily_cap', 'integer', (c) => c.notNull())
    .addColumn('min_gap_minutes', 'integer', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('active', t.bool, t.boolDefault(true))
    .addColumn('created_by', 'integer')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('accounts_workspace_idx').on('accounts').columns(['workspace_id', 'id']).execute();

  await t
    .id(db.schema.createTable('posts'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('scheduled_at', t.timestamp, (c) => c.notNull())
    .addColumn('due_at', t.timestamp)
    .addColumn('missed_at', t.timestamp)
    .addColumn('published_at', t.timestamp)
    .addColumn('cancelled_at', t.timestamp)
    .addColumn('note_url', 'text')
    .addColumn('xhs_note_id', 'text')
    .addColumn('note_key', 'text', (c) => c.notNull())
    .addColumn('task_id', 'integer', (c) => c.references('tasks.id').onDelete('set null'))
    .addColumn('strategy', 'text')
    .addColumn('fission_id', 'integer', (c) => c.references('fission_tasks.id').onDelete('set null'))
    .addColumn('fission_seq', 'integer')
    .addColumn('product_id', 'integer')
    .addColumn('angle_label', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('cover_title', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('tags', t.json, (c) => c.notNull())
    .addColumn('warnings', t.json, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('posts_schedule_idx').on('posts').columns(['workspace_id', 'scheduled_at']).execute();
  await db.schema.createIndex('posts_account_idx').on('posts').columns(['workspace_id', 'account_id', 'scheduled_at']).execute();
  await db.schema.createIndex('posts_note_idx').on('posts').columns(['workspace_id', 'note_key']).execute();
  await db.schema.createIndex('posts_xhs_note_idx').on('posts').columns(['workspace_id', 'xhs_note_id']).execute();
  // The due-time sweep reads posts by status and time across workspaces.
  await db.schema.createIndex('posts_status_idx').on('posts').columns(['status', 'scheduled_at']).execute();

  await db.schema
    .createTable('post_images')
    .addColumn('post_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('file_key', 'text', (c) => c.notNull())
    .addColumn('ai_generated', t.bool, t.boolDefault(true))
    .addPrimaryKeyConstraint('post_images_pk', ['post_id', 'position'])
    .execute();

  await t
    .id(db.schema.createTable('post_metrics'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('post_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('captured_at', t.timestamp, (c) => c.notNull())
    .addColumn('views', 'integer')
    .addColumn('likes', 'integer')
    .addColumn('collects', 'integer')
    .addColumn('comments', 'integer')
    .addColumn('shares', 'integer')
    .addColumn('follows', 'integer')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_by', 'integer')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('post_metrics_capture_unique', ['post_id', 'captured_at'])
    .execute();
  await db.schema.createIndex('post_metrics_workspace_idx').on('post_metrics').columns(['workspace_id', 'post_id', 'captured_at']).execute();

  await db.schema.alterTable('preference_signals').addColumn('account_id', 'integer').execute();
  await db.schema.alterTable('preference_signals').addColumn('post_id', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('preference_signals').dropColumn('post_id').execute();
  await db.schema.alterTable('preference_signals').dropColumn('account_id').execute();
  await db.schema.dropTable('post_metrics').execute();
  await db.schema.dropTable('post_images').execute();
  await db.schema.dropTable('posts').execute();
  await db.schema.dropTable('accounts').execute();
}
