import type { Transaction } from 'kysely';
import { forUpdate, type Dialect, type DbOrTx } from '../../db/database.js';
import type { DB, NewRow, Row, RowUpdate } from '../../db/schema.js';

export type FissionRow = Row<'fission_tasks'>;
export type FissionNoteRow = Row<'fission_notes'>;

export function insertFission(db: DbOrTx, row: NewRow<'fission_tasks'>) {
  return db.insertInto('fission_tasks').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findFission(db: DbOrTx, workspaceId: number, id: number) {
  return db.selectFrom('fission_tasks').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** For the background jobs, which carry the id only; everything they read next is scoped by its workspace. */
export function findFissionById(db: DbOrTx, id: number) {
  return db.selectFrom('fission_tasks').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes a fission only while its status is `from`: the pipeline's transitions. */
export async function updateFissionIf(db: DbOrTx, id: number, from: FissionRow['status'] | readonly FissionRow['status'][], changes: RowUpdate<'fission_tasks'>): Promise<boolean> {
  const statuses = typeof from === 'string' ? [from] : from;
  const result = await db.updateTable('fission_tasks').set(changes).where('id', '=', id).where('status', 'in', statuses).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function notesOf(db: DbOrTx, workspaceId: number, fissionId: number) {
  return db.selectFrom('fission_notes').selectAll().where('workspace_id', '=', workspaceId).where('fission_id', '=', fissionId).orderBy('seq').execute();
}

export function findNoteBySeq(db: DbOrTx, workspaceId: number, fissionId: number, seq: number) {
  return db
    .selectFrom('fission_notes')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('fission_id', '=', fissionId)
    .where('seq', '=', seq)
    .executeTakeFirst();
}

export function findNoteById(db: DbOrTx, id: number) {
  return db.selectFrom('fission_notes').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The note row locked for a read-modify-write of its images (see forUpdate). */
export function lockNote(trx: Transaction<DB>, dialect: Dialect, id: number) {
  return forUpdate(trx.selectFrom('fission_notes').selectAll().where('id', '=', id), dialect).executeTakeFirst();
}

/** Inserts the notes whose seq is still free (a re-run never duplicates). */
export async function insertNotes(db: DbOrTx, rows: NewRow<'fission_notes'>[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('fission_notes')
    .values(rows)
    .onConflict((oc) => oc.columns(['fission_id', 'seq']).doNothing())
    .execute();
}

export async function updateNote(db: DbOrTx, id: number, changes: RowUpdate<'fission_notes'>, fromStatus?: string): Promise<boolean> {
  let query = db.updateTable('fission_notes').set(changes).where('id', '=', id);
  if (fromStatus !== undefined) query = query.where('status', '=', fromStatus);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Notes per status, for `progress` (contract rule 3) and for settling the fission. */
export async function noteStatusCounts(db: DbOrTx, workspaceId: number, fissionId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('fission_notes')
    .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
    .where('workspace_id', '=', workspaceId)
    .where('fission_id', '=', fissionId)
    .groupBy('status')
    .execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

export function findSourceTask(db: DbOrTx, workspaceId: number, taskId: number) {
  return db.selectFrom('tasks').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', taskId).executeTakeFirst();
}

export async function countTexts(db: DbOrTx, workspaceId: number, taskId: number): Promise<number> {
  const row = await db
    .selectFrom('text_candidates')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The source task's texts, for choosing the one a fission starts from. */
export function sourceTexts(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('text_candidates')
    .select(['id', 'strategy', 'angle_label', 'title', 'content', 'tags', 'score_total', 'is_selected'])
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .orderBy('id')
    .execute();
}

/** Role and seq of the source set's images, oldest first (a later image of a seq replaces an earlier one). */
export function sourceImages(db: DbOrTx, workspaceId: number, taskId: number, strategy: 'A' | 'B' | 'C') {
  return db
    .selectFrom('image_candidates')
    .select(['seq', 'role', 'is_selected'])
    .where('workspace_id', '=', workspaceId)
    .where('task_id', '=', taskId)
    .where('strategy', '=', strategy)
    .orderBy('id')
    .execute();
}
