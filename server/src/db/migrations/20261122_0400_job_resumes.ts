import type { Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * How often the stale-work sweeper resumed a record's background work (task generation, fission,
 * package build), so work that keeps losing its worker is failed after a bound instead of
 * forever; `swept_at` lets only one of several sweeping workers act on a record at a time.
 * Plus the index the in-process queue needs to find the jobs of one record.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await db.schema
    .createTable('job_resumes')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('ref_id', 'integer', (c) => c.notNull())
    .addColumn('resumes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('swept_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('job_resumes_pk', ['kind', 'ref_id'])
    .execute();
  await db.schema.createIndex('jobs_kind_ref_idx').on('jobs').columns(['kind', 'ref_id', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_kind_ref_idx').execute();
  await db.schema.dropTable('job_resumes').execute();
}
