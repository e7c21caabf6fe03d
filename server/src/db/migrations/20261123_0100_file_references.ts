import type { Kysely } from 'kysely';
import { portable } from './types.js';

/** Every column that holds a stored file's key, one index each. */
const FILE_KEY_COLUMNS = [
  ['product_images', 'file_key'],
  ['product_images', 'thumb_key'],
  ['benchmarks', 'screenshot_key'],
  ['image_candidates', 'file_key'],
  ['delivery_packages', 'file_key'],
] as const;

const BACKFILL_PAGE = 500;

/**
 * What the unused-file sweep needs to ask "does any row still use these files?" one page of
 * keys at a time: an index per file-key column, and the ledger's stored file (a provider's raw
 * image, until now only inside the `result` JSON) in a column of its own, filled in for the
 * entries already there. Plus `periodic_runs`, where one of several worker processes claims
 * the next run of a periodic chore.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  for (const [table, column] of FILE_KEY_COLUMNS) {
    await db.schema.createIndex(`${table}_${column}_idx`).on(table).column(column).execute();
  }

  await db.schema.alterTable('provider_calls').addColumn('file_key', 'text').execute();
  let after = '';
  for (;;) {
    const rows = await db.selectFrom('provider_calls').select(['call_key', 'result']).where('call_key', '>', after).orderBy('call_key').limit(BACKFILL_PAGE).execute();
    for (const row of rows) {
      // Decoded already (jsonb; the SQLite adapter reads JSON columns): a result may be any JSON value.
      const result = row.result as { file_key?: unknown } | null;
      if (typeof result?.file_key === 'string') {
        await db.updateTable('provider_calls').set({ file_key: result.file_key }).where('call_key', '=', row.call_key).execute();
      }
    }
    if (rows.length < BACKFILL_PAGE) break;
    after = rows[rows.length - 1]!.call_key;
  }
  await db.schema.createIndex('provider_calls_file_key_idx').on('provider_calls').column('file_key').execute();

  await db.schema
    .createTable('periodic_runs')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('next_run_at', t.timestamp, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('periodic_runs').execute();
  await db.schema.dropIndex('provider_calls_file_key_idx').execute();
  await db.schema.alterTable('provider_calls').dropColumn('file_key').execute();
  for (const [table, column] of FILE_KEY_COLUMNS) await db.schema.dropIndex(`${table}_${column}_idx`).execute();
}
