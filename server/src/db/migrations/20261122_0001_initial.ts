import type { Kysely } from 'kysely';
import { portable } from './types.js';

export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  const ws = (c: any) => c.notNull().references('workspaces.id').onDelete('cascade');

  await t.id(db.schema.createTable('workspaces'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();

  await t.id(db.schema.createTable('users'))
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('must_change_password', t.bool, t.boolDefault(false))
    .addColumn('is_active', t.bool, t.boolDefault(true))
    .addColumn('token_version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('current_workspace_id', 'integer', (c) => c.references('workspaces.id').onDelete('set null'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema.createTable('memberships')
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['workspace_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user_idx').on('memberships').column('user_id').execute();

  await db.schema.createTable('login_throttle')
    .addColumn('username', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', t.timestamp, (c) => c.notNull())
    .addColumn('locked_until', t.timestamp)
    .execute();

  await t.id(db.schema.createTable('api_keys'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('ciphertext', 'text', (c) => c.notNull())
    .addColumn('iv', 'text', (c) => c.notNull())
    .addColumn('auth_tag', 'text', (c) => c.notNull())
    .addColumn('key_version', 'integer', (c) => c.notNull())
    .addColumn('key_last4', 'text', (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('api_keys_ws_idx').on('api_keys').columns(['workspace_id', 'created_at']).execute();

  await t.id(db.schema.createTable('banned_words'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('word', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('replacement', 'text')
    .addColumn('updatable', t.bool, t.boolDefault(true))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('banned_words_ws_word_uq', ['workspace_id', 'word'])
    .execute();

  await t.id(db.schema.createTable('products'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('selling_points', t.json, (c) => c.notNull())
    .addColumn('style_tone', 'text')
    .addColumn('text_angles', t.json, (c) => c.notNull())
    .addColumn('custom_prompt', 'text')
    .addColumn('banned_word_ids', t.json, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('products_ws_idx').on('products').columns(['workspace_id', 'id']).execute();

  await t.id(db.schema.createTable('product_images'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('file_key', 'text', (c) => c.notNull())
    .addColumn('thumb_key', 'text')
    .addColumn('mime', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('scene', 'text', (c) => c.notNull())
    .addColumn('is_primary', t.bool, t.boolDefault(false))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('product_images_product_idx').on('product_images').column('product_id').execute();

  await t.id(db.schema.createTable('benchmarks'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('screenshot_url', 'text')
    .addColumn('screenshot_key', 'text')
    .addColumn('highlights', 'text', (c) => c.notNull())
    .addColumn('link_url', 'text')
    .addColumn('features', t.json)
    .addColumn('analyze_status', 'text', (c) => c.notNull())
    .addColumn('analysis_source', 'text')
    .addColumn('analysis_warning', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('benchmarks_product_idx').on('benchmarks').columns(['product_id', 'id']).execute();

  await t.id(db.schema.createTable('tasks'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id'))
    .addColumn('operator_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('theme', 'text', (c) => c.notNull())
    .addColumn('text_count', 'integer', (c) => c.notNull())
    .addColumn('image_count', 'integer', (c) => c.notNull())
    .addColumn('track', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('benchmark_ids', t.json, (c) => c.notNull())
    .addColumn('need_product_image', t.bool, t.boolDefault(false))
    .addColumn('overlay_text', t.bool, t.boolDefault(true))
    .addColumn('review_status', 'text')
    .addColumn('reject_reason', 'text')
    .addColumn('reviewed_at', t.timestamp)
    .addColumn('submitted_at', t.timestamp)
    .addColumn('submitted_by', 'integer', (c) => c.references('users.id'))
    .addColumn('api_key_id', 'integer', (c) => c.references('api_keys.id').onDelete('set null'))
    .addColumn('provider', 'text')
    .addColumn('generation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('progress', t.json)
    .addColumn('failure_reason', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('lease_until', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  // The list query filters by workspace (and optionally status/product) and sorts newest first.
  await db.schema.createIndex('tasks_ws_created_idx').on('tasks').columns(['workspace_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('tasks_ws_status_idx').on('tasks').columns(['workspace_id', 'status', 'created_at']).execute();
  await db.schema.createIndex('tasks_ws_product_idx').on('tasks').columns(['workspace_id', 'product_id', 'created_at']).execute();
  await db.schema.createIndex('tasks_status_lease_idx').on('tasks').columns(['status', 'lease_until']).execute();
  await db.schema.createIndex('tasks_idem_uq').on('tasks').columns(['workspace_id', 'operator_id', 'idempotency_key']).unique().execute();

  await t.id(db.schema.createTable('text_candidates'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('strategy', 'text')
    .addColumn('angle_label', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('tags', t.json, (c) => c.notNull())
    .addColumn('cover_title', 'text', (c) => c.notNull())
    .addColumn('image_brief', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('score', t.json, (c) => c.notNull())
    .addColumn('score_total', 'integer', (c) => c.notNull())
    .addColumn('banned_word_status', 'text', (c) => c.notNull())
    .addColumn('banned_hits', t.json, (c) => c.notNull())
    .addColumn('is_selected', t.bool, t.boolDefault(false))
    .addColumn('verdict', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('edited', t.bool, t.boolDefault(false))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('text_candidates_slot_uq', ['task_id', 'generation', 'slot'])
    .execute();

  await t.id(db.schema.createTable('image_candidates'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('strategy', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('file_key', 'text', (c) => c.notNull())
    .addColumn('mime', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('is_selected', t.bool, t.boolDefault(false))
    .addColumn('is_regen', t.bool, t.boolDefault(false))
    .addColumn('ai_visual_score', t.real)
    .addColumn('ai_visual_note', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('image_candidates_slot_uq', ['task_id', 'generation', 'strategy', 'seq'])
    .execute();

  await db.schema.createTable('task_events')
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('data', t.json, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('task_events_pk', ['task_id', 'seq'])
    .execute();

  await db.schema.createTable('one_time_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('subject_id', 'integer', (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('used_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('one_time_tokens_expiry_idx').on('one_time_tokens').column('expires_at').execute();

  await t.id(db.schema.createTable('preference_signals'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('task_id', 'integer', (c) => c.references('tasks.id').onDelete('set null'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('candidate_id', 'integer')
    .addColumn('candidate_kind', 'text')
    .addColumn('strategy', 'text')
    .addColumn('angle_label', 'text')
    .addColumn('signal_type', 'text', (c) => c.notNull())
    .addColumn('weight', t.real, (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('excerpt', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('preference_signals_product_idx').on('preference_signals').columns(['workspace_id', 'product_id', 'created_at']).execute();

  await db.schema.createTable('preference_snapshots')
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('context', t.json, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('preference_snapshots_pk', ['task_id', 'generation'])
    .execute();

  await t.id(db.schema.createTable('reviews'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('final', t.bool, t.boolDefault(false))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reviews_task_idx').on('reviews').columns(['task_id', 'id']).execute();

  await t.id(db.schema.createTable('delivery_packages'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('note_ids', t.json)
    .addColumn('file_key', 'text')
    .addColumn('file_name', 'text')
    .addColumn('size_bytes', 'bigint')
    .addColumn('error', 'text')
    .addColumn('expires_at', t.timestamp)
    .addColumn('ready_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('delivery_packages_task_idx').on('delivery_packages').columns(['workspace_id', 'task_id']).execute();

  await t.id(db.schema.createTable('fission_tasks'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('source_task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('operator_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('reference_level', 'text', (c) => c.notNull())
    .addColumn('fanout_count', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'integer', (c) => c.references('api_keys.id').onDelete('set null'))
    .addColumn('provider', 'text')
    .addColumn('error', 'text')
    .addColumn('lease_until', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();

  await t.id(db.schema.createTable('fission_notes'))
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('fission_id', 'integer', (c) => c.notNull().references('fission_tasks.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('note', t.json, (c) => c.notNull())
    .addColumn('images', t.json, (c) => c.notNull())
    .addColumn('score', t.real, (c) => c.notNull())
    .addColumn('passed', t.bool, t.boolDefault(false))
    .addColumn('needs_optimization', t.bool, t.boolDefault(false))
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('fission_notes_seq_uq', ['fission_id', 'seq'])
    .execute();

  await t.id(db.schema.createTable('jobs'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('ref_id', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_after', t.timestamp, (c) => c.notNull())
    .addColumn('locked_until', t.timestamp)
    .addColumn('last_error', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_status_idx').on('jobs').columns(['status', 'run_after']).execute();

  await db.schema.createTable('provider_calls')
    .addColumn('call_key', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'integer', ws)
    .addColumn('result', t.json, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('the initial migration is not reversible: restore a backup instead');
}
