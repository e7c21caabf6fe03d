import type { DbOrTx } from '../../db/database.js';
import type { Row } from '../../db/schema.js';

/**
 * A finished image's lettered file, replaced only if it still shows what `from` says was drawn on
 * the same original (two readers re-lettering at once, or a new image landing meanwhile: one wins).
 */
export async function reletterImage(
  db: DbOrTx,
  workspaceId: number,
  from: Pick<Row<'image_candidates'>, 'id' | 'raw_file_key' | 'lettered_title'>,
  file: { file_key: string; mime: string; title: string },
): Promise<boolean> {
  let query = db
    .updateTable('image_candidates')
    .set({ file_key: file.file_key, mime: file.mime, lettered_title: file.title })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', from.id)
    .where('status', '=', 'done')
    .where('raw_file_key', '=', from.raw_file_key);
  query = from.lettered_title === null ? query.where('lettered_title', 'is', null) : query.where('lettered_title', '=', from.lettered_title);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
