import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * A benchmark's analysis warnings as codes from a fixed set (`modules/benchmarks/warnings.ts`)
 * next to their Chinese text. Warnings written before were free text that could carry raw
 * network errors (internal host names, addresses and ports): they are replaced by the one
 * reason that says so, and a new analysis gives the real ones.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await db.schema.alterTable('benchmarks').addColumn('analysis_warning_codes', t.json).execute();
  await db
    .updateTable('benchmarks')
    .set({
      analysis_warning: '此前分析的提示已隐去，重新分析可查看原因',
      analysis_warning_codes: t.pg ? sql`'["earlier_analysis"]'::jsonb` : '["earlier_analysis"]',
    })
    .where('analysis_warning', 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('benchmarks').dropColumn('analysis_warning_codes').execute();
}
