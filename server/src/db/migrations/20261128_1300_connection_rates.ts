import type { Kysely } from 'kysely';

/**
 * Rate-aware calling: a connection's requests-per-minute and tokens-per-minute budget. Null is
 * the preset's (or the deployment's PROVIDER_<LABEL>_RPM / _TPM), so existing connections are
 * paced to their provider's documented defaults.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('rpm', 'integer').execute();
  await db.schema.alterTable('api_keys').addColumn('tpm', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('tpm').execute();
  await db.schema.alterTable('api_keys').dropColumn('rpm').execute();
}
