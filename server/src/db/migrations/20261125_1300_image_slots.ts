import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Image candidates become editable slots (contract-decisions §8): more than one image per
 * (task, generation, set, seq) — a regenerated or uploaded image is a new `variant` of the slot —
 * a failed image is stored as a row (`status` failed, no file, its `error_kind`) so it can be
 * retried, and a lettered image keeps its un-lettered original (`raw_file_key`) and the text drawn
 * on it (`lettered_title`), so a cover is lettered again from the original, never drawn over.
 */
const NEW_COLUMNS = ['variant', 'source', 'status', 'error', 'error_kind', 'raw_file_key', 'raw_mime', 'lettered_title', 'overlay', 'brief', 'instruction', 'updated_at'] as const;

async function createIndexes(db: Kysely<any>) {
  await db.schema.createIndex('image_candidates_slot_variant_uq').on('image_candidates').columns(['task_id', 'generation', 'strategy', 'seq', 'variant']).unique().execute();
  await db.schema.createIndex('image_candidates_raw_file_key_idx').on('image_candidates').column('raw_file_key').execute();
  await db.schema.createIndex('image_candidates_status_idx').on('image_candidates').columns(['status', 'updated_at']).execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  if (t.pg) {
    await db.schema
      .alterTable('image_candidates')
      .addColumn('variant', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('source', 'text', (c) => c.notNull().defaultTo('ai'))
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('done'))
      .addColumn('error', 'text')
      .addColumn('error_kind', 'text')
      .addColumn('raw_file_key', 'text')
      .addColumn('raw_mime', 'text')
      .addColumn('lettered_title', 'text')
      .addColumn('overlay', t.json)
      .addColumn('brief', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('instruction', 'text')
      .addColumn('updated_at', t.timestamp)
      .execute();
    await db.schema.alterTable('image_candidates').alterColumn('file_key', (c) => c.dropNotNull()).execute();
    await db.schema.alterTable('image_candidates').alterColumn('mime', (c) => c.dropNotNull()).execute();
    await db.schema.alterTable('image_candidates').dropConstraint('image_candidates_slot_uq').execute();
    await sql`update image_candidates set updated_at = created_at`.execute(db);
    await createIndexes(db);
    return;
  }
  // SQLite cannot drop a table constraint or a NOT NULL: the table is rebuilt (nothing references it).
  await db.schema
    .createTable('image_candidates_next')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('strategy', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('file_key', 'text')
    .addColumn('mime', 'text')
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('is_selected', t.bool, t.boolDefault(false))
    .addColumn('is_regen', t.bool, t.boolDefault(false))
    .addColumn('ai_visual_score', t.real)
    .addColumn('ai_visual_note', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('variant', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('ai'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('done'))
    .addColumn('error', 'text')
    .addColumn('error_kind', 'text')
    .addColumn('raw_file_key', 'text')
    .addColumn('raw_mime', 'text')
    .addColumn('lettered_title', 'text')
    .addColumn('overlay', t.json)
    .addColumn('brief', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('instruction', 'text')
    .addColumn('updated_at', t.timestamp)
    .execute();
  const kept = ['id', 'workspace_id', 'task_id', 'generation', 'strategy', 'role', 'seq', 'file_key', 'mime', 'prompt', 'is_selected', 'is_regen', 'ai_visual_score', 'ai_visual_note', 'created_at'];
  const columns = sql.join(kept.map((c) => sql.ref(c)));
  await sql`insert into image_candidates_next (${columns}, updated_at) select ${columns}, created_at from image_candidates`.execute(db);
  await db.schema.dropTable('image_candidates').execute();
  await db.schema.alterTable('image_candidates_next').renameTo('image_candidates').execute();
  await db.schema.createIndex('image_candidates_task_idx').on('image_candidates').columns(['task_id', 'strategy', 'created_at']).execute();
  await db.schema.createIndex('image_candidates_file_key_idx').on('image_candidates').column('file_key').execute();
  await createIndexes(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  // The earlier shape holds one finished image per slot: variants and unfinished slots go.
  await db.deleteFrom('image_candidates').where((eb) => eb.or([eb('variant', '>', 0), eb('file_key', 'is', null), eb('status', '!=', 'done')])).execute();
  await db.schema.dropIndex('image_candidates_slot_variant_uq').execute();
  await db.schema.dropIndex('image_candidates_raw_file_key_idx').execute();
  await db.schema.dropIndex('image_candidates_status_idx').execute();
  if (t.pg) {
    for (const column of NEW_COLUMNS) await db.schema.alterTable('image_candidates').dropColumn(column).execute();
    await db.schema.alterTable('image_candidates').alterColumn('file_key', (c) => c.setNotNull()).execute();
    await db.schema.alterTable('image_candidates').alterColumn('mime', (c) => c.setNotNull()).execute();
    await db.schema.alterTable('image_candidates').addUniqueConstraint('image_candidates_slot_uq', ['task_id', 'generation', 'strategy', 'seq']).execute();
    return;
  }
  await t
    .id(db.schema.createTable('image_candidates_prev'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
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
  const kept = ['id', 'workspace_id', 'task_id', 'generation', 'strategy', 'role', 'seq', 'file_key', 'mime', 'prompt', 'is_selected', 'is_regen', 'ai_visual_score', 'ai_visual_note', 'created_at'];
  const columns = sql.join(kept.map((c) => sql.ref(c)));
  await sql`insert into image_candidates_prev (${columns}) select ${columns} from image_candidates`.execute(db);
  await db.schema.dropTable('image_candidates').execute();
  await db.schema.alterTable('image_candidates_prev').renameTo('image_candidates').execute();
  await db.schema.createIndex('image_candidates_task_idx').on('image_candidates').columns(['task_id', 'strategy', 'created_at']).execute();
  await db.schema.createIndex('image_candidates_file_key_idx').on('image_candidates').column('file_key').execute();
}
