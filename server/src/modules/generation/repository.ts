import type { DbOrTx } from '../../db/database.js';
import { json } from '../../db/codec.js';

/** The paid-call ledger: a result stored under its call key survives a crash of the run that paid for it. */
export function findCall(db: DbOrTx, workspaceId: number, callKey: string) {
  return db
    .selectFrom('provider_calls')
    .select('result')
    .where('workspace_id', '=', workspaceId)
    .where('call_key', '=', callKey)
    .executeTakeFirst();
}

/**
 * A result that names a stored file (an image: `{file_key, mime}`) records it in `file_key` too,
 * so the unused-file sweep keeps the file for a re-run that reuses this entry.
 */
export async function saveCall(db: DbOrTx, workspaceId: number, callKey: string, result: unknown, at: string): Promise<void> {
  const fileKey = (result as { file_key?: unknown } | null)?.file_key;
  await db
    .insertInto('provider_calls')
    .values({ call_key: callKey, workspace_id: workspaceId, result: json(result), file_key: typeof fileKey === 'string' ? fileKey : null, created_at: at })
    .onConflict((oc) => oc.column('call_key').doNothing())
    .execute();
}
