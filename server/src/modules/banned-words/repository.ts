import type { DbOrTx } from '../../db/database.js';
import { containsText } from '../../db/search.js';
import type { BannedLevel, NewRow, RowUpdate } from '../../db/schema.js';

const columns = ['id', 'workspace_id', 'word', 'level', 'replacement', 'updatable', 'preset', 'created_at', 'updated_at'] as const;

export function listWords(
  db: DbOrTx,
  workspaceId: number,
  filter: { q?: string | undefined; level?: BannedLevel | undefined },
  page: { offset: number; limit: number },
) {
  let base = db.selectFrom('banned_words').where('workspace_id', '=', workspaceId);
  if (filter.level) base = base.where('level', '=', filter.level);
  if (filter.q) base = base.where(containsText('word', filter.q));
  return Promise.all([
    base.select(columns).orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

export function allWords(db: DbOrTx, workspaceId: number) {
  return db.selectFrom('banned_words').select(['id', 'word', 'level', 'replacement', 'preset']).where('workspace_id', '=', workspaceId).execute();
}

/** Changes whenever a word is added, changed or removed: the matcher cache key. */
export function wordsVersion(db: DbOrTx, workspaceId: number) {
  return db
    .selectFrom('banned_words')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('id').as('max_id'), eb.fn.max('updated_at').as('max_updated')])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow()
    .then((r) => `${Number(r.n)}:${r.max_id ?? 0}:${r.max_updated ?? ''}`);
}

export function findWord(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('banned_words').select(columns).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function findByWord(db: DbOrTx, workspaceId: number, word: string) {
  return db.selectFrom('banned_words').select(['id']).where('workspace_id', '=', workspaceId).where('word', '=', word).executeTakeFirst();
}


export function insertWord(db: DbOrTx, row: NewRow<'banned_words'>) {
  return db.insertInto('banned_words').values(row).returning(columns).executeTakeFirstOrThrow();
}

/** Inserts the words not present yet; returns the words that were new. */
export async function insertMissingWords(db: DbOrTx, rows: NewRow<'banned_words'>[]): Promise<string[]> {
  const inserted: string[] = [];
  for (const row of rows) {
    const result = await db
      .insertInto('banned_words')
      .values(row)
      .onConflict((oc) => oc.columns(['workspace_id', 'word']).doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) inserted.push(row.word);
  }
  return inserted;
}

export function findWords(db: DbOrTx, workspaceId: number, ids: number[]) {
  return db.selectFrom('banned_words').select(['id', 'word', 'updatable']).where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
}

export async function deleteWords(db: DbOrTx, workspaceId: number, ids: number[]) {
  await db.deleteFrom('banned_words').where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
}

export function updateWord(db: DbOrTx, workspaceId: number, id: number, changes: RowUpdate<'banned_words'>) {
  return db
    .updateTable('banned_words')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirst();
}

export async function deleteWord(db: DbOrTx, workspaceId: number, id: number) {
  await db.deleteFrom('banned_words').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}
