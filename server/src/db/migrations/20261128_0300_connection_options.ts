import type { Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * A connection's `options` (contract-decisions §7: thinking, token_param, temperature) as one
 * JSON column; null means every option at its default, so existing connections now write with
 * thinking off, as the defaults say.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('options', portable(db).json).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('options').execute();
}
