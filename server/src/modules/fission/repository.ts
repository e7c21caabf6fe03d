import type { Transaction } from 'kysely';
import { forUpdate, type Dialect, type DbOrTx } from '../../db/database.js';
import type { DB, NewRow, Row, RowUpdate } from '../../db/schema.js';
import type { StaleWindow } from '../../jobs/types.js';

export type FissionRow = Row<'fission_tasks'>;
/** A fission's note: a note of the one note model (modules/notes) whose origin is the fission. */
export type FissionNoteRow = Row<'text_candidates'>;

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
export async function updateFissionIf(db: DbOrTx, workspaceId: number, id: number, from: FissionRow['status'] | readonly FissionRow['status'][], changes: RowUpdate<'fission_tasks'>): Promise<boolean> {
  const statuses = typeof from === 'string' ? [from] : from;
  const result = await db.updateTable('fission_tasks').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).where('status', 'in', statuses).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A fission note's seq (1, 2, …) is its slot in the fission, counted from one. */
export const seqOf = (note: Pick<FissionNoteRow, 'slot'>) => note.slot + 1;

export function notesOf(db: DbOrTx, workspaceId: number, fissionId: number) {
  return db.selectFrom('text_candidates').selectAll().where('workspace_id', '=', workspaceId).where('fission_id', '=', fissionId).orderBy('slot').execute();
}

export function findNoteBySeq(db: DbOrTx, workspaceId: number, fissionId: number, seq: number) {
  return db
    .selectFrom('text_candidates')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('fission_id', '=', fissionId)
    .where('slot', '=', seq - 1)
    .executeTakeFirst();
}

/** A fission note by id alone, across workspaces: for the retry job, which carries the note id only. */
export function findNoteById(db: DbOrTx, id: number) {
  return db.selectFrom('text_candidates').selectAll().where('id', '=', id).where('fission_id', 'is not', null).executeTakeFirst();
}

/** The note row locked: its images settle one at a time (see forUpdate). */
export function lockNote(trx: Transaction<DB>, dialect: Dialect, workspaceId: number, id: number) {
  return forUpdate(trx.selectFrom('text_candidates').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id), dialect).executeTakeFirst();
}

/**
 * The plan of a fission, in one transaction: its notes, then each note's images, each skipped
 * where it exists (a re-run never duplicates), so progress never shows a half-written plan.
 */
export async function insertPlan(
  trx: Transaction<DB>,
  workspaceId: number,
  fissionId: number,
  notes: Array<{ note: NewRow<'text_candidates'>; images: Array<Omit<NewRow<'image_candidates'>, 'note_id'>> }>,
): Promise<void> {
  if (notes.length === 0) return;
  await trx
    .insertInto('text_candidates')
    .values(notes.map((n) => n.note))
    .onConflict((oc) => oc.columns(['fission_id', 'slot']).doNothing())
    .execute();
  const ids = new Map((await notesOf(trx, workspaceId, fissionId)).map((row) => [row.slot, row.id]));
  const images = notes.flatMap((n) => n.images.map((image) => ({ ...image, note_id: ids.get(n.note.slot)! })));
  if (images.length === 0) return;
  await trx
    .insertInto('image_candidates')
    .values(images)
    .onConflict((oc) => oc.columns(['note_id', 'seq']).doNothing())
    .execute();
}

export async function updateNote(db: DbOrTx, workspaceId: number, id: number, changes: RowUpdate<'text_candidates'>): Promise<void> {
  await db.updateTable('text_candidates').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

/** The images of a fission (or of one of its notes), by note then seq. */
export function imagesOf(db: DbOrTx, workspaceId: number, fissionId: number, noteId?: number) {
  let query = db.selectFrom('image_candidates').selectAll().where('workspace_id', '=', workspaceId).where('fission_id', '=', fissionId);
  if (noteId !== undefined) query = query.where('note_id', '=', noteId);
  return query.orderBy('note_id').orderBy('seq').execute();
}

export async function updateImage(db: DbOrTx, workspaceId: number, id: number, changes: RowUpdate<'image_candidates'>): Promise<void> {
  await db.updateTable('image_candidates').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

/** Failed images of a note queued for a retry (their error marker gives way to `retrying`); returns those it queued. */
export async function markFailedForRetry(db: DbOrTx, workspaceId: number, noteId: number, at: string) {
  return db
    .updateTable('image_candidates')
    .set({ status: 'retrying', error: null, error_key: null, error_params: null, error_kind: null, updated_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('note_id', '=', noteId)
    .where('status', '=', 'failed')
    .returning(['seq', 'role'])
    .execute()
    .then((rows) => rows.sort((a, b) => a.seq - b.seq));
}

/** Images per status, of a fission or of one note. */
export async function imageStatusCounts(db: DbOrTx, workspaceId: number, fissionId: number, noteId?: number): Promise<Map<string, number>> {
  let query = db
    .selectFrom('image_candidates')
    .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
    .where('workspace_id', '=', workspaceId)
    .where('fission_id', '=', fissionId);
  if (noteId !== undefined) query = query.where('note_id', '=', noteId);
  const rows = await query.groupBy('status').execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/** Notes per image status, for `progress` (contract rule 3) and for settling the fission. */
export async function noteStatusCounts(db: DbOrTx, workspaceId: number, fissionId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('text_candidates')
    .select((eb) => ['image_status', eb.fn.countAll<number>().as('n')])
    .where('workspace_id', '=', workspaceId)
    .where('fission_id', '=', fissionId)
    .groupBy('image_status')
    .execute();
  return new Map(rows.map((r) => [r.image_status ?? '', Number(r.n)]));
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
    .where('status', '=', 'done')
    .orderBy('id')
    .execute();
}

/** The stale-work sweeper's rule for fissions, across workspaces: generating under a lapsed lease, untouched since `staleBeforeIso`. */
export function findStaleFissions(db: DbOrTx, window: StaleWindow): Promise<number[]> {
  return staleFissions(db, window, false);
}

/** The same rule for the fissions batches planned (their own job kind, in the `bulk` lane). */
export function findStaleBulkFissions(db: DbOrTx, window: StaleWindow): Promise<number[]> {
  return staleFissions(db, window, true);
}

async function staleFissions(db: DbOrTx, window: StaleWindow, ofBatches: boolean): Promise<number[]> {
  const rows = await db
    .selectFrom('fission_tasks')
    .select('id')
    .where('batch_id', ofBatches ? 'is not' : 'is', null)
    .where('updated_at', '<', window.staleBeforeIso)
    .where('status', '=', 'generating')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', window.nowIso)]))
    .orderBy('id')
    .limit(window.limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The stale-work sweeper's rule for image retries, across workspaces: notes with an image queued
 * for a retry whose job was lost (untouched since `staleBeforeIso`).
 */
export async function findStaleRetries(db: DbOrTx, window: StaleWindow): Promise<number[]> {
  const rows = await db
    .selectFrom('image_candidates')
    .select('note_id')
    .distinct()
    .where('status', '=', 'retrying')
    .where('note_id', 'is not', null)
    .where('updated_at', '<', window.staleBeforeIso)
    .orderBy('note_id')
    .limit(window.limit)
    .execute();
  return rows.map((r) => r.note_id!);
}

/** A page of the workspace's fissions, newest first, optionally of one source task, with the starter's name. */
export function listFissions(db: DbOrTx, workspaceId: number, filter: { sourceTaskId?: number | undefined }, page: { offset: number; limit: number }) {
  let base = db.selectFrom('fission_tasks').where('fission_tasks.workspace_id', '=', workspaceId);
  if (filter.sourceTaskId !== undefined) base = base.where('fission_tasks.source_task_id', '=', filter.sourceTaskId);
  return Promise.all([
    base
      .leftJoin('users', 'users.id', 'fission_tasks.operator_id')
      .select([
        'fission_tasks.id',
        'fission_tasks.source_task_id',
        'fission_tasks.reference_level',
        'fission_tasks.fanout_count',
        'fission_tasks.status',
        'fission_tasks.operator_id',
        'fission_tasks.created_at',
        'users.username as operator_name',
      ])
      .orderBy('fission_tasks.id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}
