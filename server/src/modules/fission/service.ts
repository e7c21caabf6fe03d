import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import { readTogether } from '../../db/database.js';
import { PASS_LINE } from '../../content/scoring.js';
import { assertPostable, coverFirst, editedNote, imageEntryName, noteEvaluator, notesZip, shippedImages, wordsBlockingShipment, type NoteEdit, type NoteFolder, type NoteRow, type PostableNote } from '../notes/service.js';
import type { AuthUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import type { FailureReason, StoredParams } from '../../http/reasons.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { fileUrl } from '../../storage/signed-url.js';
import { accountForNotes } from '../accounts/service.js';
import { workspaceHasApiKey } from '../api-keys/service.js';
import { assertNoHardBlock } from '../banned-words/service.js';
import { assertAccepts } from '../tasks/service.js';
import { checklistMarkdown, type ChecklistSet } from './checklist.js';
import { fissionBulkJob, fissionGenerateJob, fissionRetryImagesJob, NOTE_DONE, NOTE_FAILED, syncFissionCovers, type SetImage } from './pipeline.js';
import type { ReferenceLevel } from '../../content/fission.js';
import * as repo from './repository.js';

const pad2 = (n: number) => String(n).padStart(2, '0');

/** `batch_id`: planned by a batch (issue 32): its calls are paced as bulk work and its job runs in the `bulk` lane. */
export async function createFission(
  ctx: AppContext,
  auth: AuthUser,
  body: { source_task_id: number; reference_level: ReferenceLevel; fanout_count: number; account_id?: number | undefined; batch_id?: number | undefined },
) {
  const ws = auth.workspaceId;
  const source = await repo.findSourceTask(ctx.db, ws, body.source_task_id);
  if (!source) throw fail('fission.source_not_found');
  // The task lifecycle's rule for a fission (who may, in which status), like every task action.
  assertAccepts('fission', source, auth);
  if ((await repo.countTexts(ctx.db, ws, source.id)) === 0) {
    throw fail('fission.source_has_no_text');
  }
  if (!(await workspaceHasApiKey(ctx, ws))) throw fail('connection.none_for_text');
  // Meant for an account: its persona (checked like every text sent to a model); else the source task's account.
  const account = body.account_id !== undefined ? await accountForNotes(ctx, ws, body.account_id) : null;
  if (account) await assertNoHardBlock(ctx, ws, source.product_id, [account.persona]);
  const at = nowIso(ctx.clock.now());
  const row = await repo.insertFission(ctx.db, {
    workspace_id: ws,
    source_task_id: source.id,
    operator_id: auth.userId,
    reference_level: body.reference_level,
    fanout_count: body.fanout_count,
    account_id: account?.id ?? source.account_id,
    batch_id: body.batch_id ?? null,
    status: 'generating',
    api_key_id: null,
    provider: null,
    error: null,
    lease_until: null,
    created_at: at,
    updated_at: at,
  });
  try {
    await ctx.queue.enqueue(body.batch_id === undefined ? fissionGenerateJob.kind : fissionBulkJob.kind, row.id);
  } catch (err) {
    // The row is the record of the work: the stale-work sweeper enqueues a generating fission
    // that no job runs, so the caller gets its id either way.
    ctx.log.error({ err, fissionId: row.id }, 'fission stored but not queued; the sweeper will pick it up');
  }
  return { fission_id: row.id, source_task_id: row.source_task_id, reference_level: row.reference_level, fanout_count: row.fanout_count, status: row.status };
}

async function ownFission(ctx: AppContext, auth: AuthUser, id: number) {
  const fission = await repo.findFission(ctx.db, auth.workspaceId, id);
  if (!fission) throw fail('fission.not_found');
  return fission;
}

/**
 * Contract rule 3: done = image_done notes, failed = failed notes, total = stored notes; plus
 * `running`, the images not settled yet. Each image settles with its note and fission in one
 * transaction, and both counts are read from one snapshot, so a finished count never stands
 * beside an image still running.
 */
async function progressOf(ctx: AppContext, workspaceId: number, id: number) {
  const [images, counts] = await readTogether(ctx.db, ctx.dialect, (db) =>
    Promise.all([repo.imageStatusCounts(db, workspaceId, id), repo.noteStatusCounts(db, workspaceId, id)]),
  );
  return {
    done: counts.get(NOTE_DONE) ?? 0,
    failed: counts.get(NOTE_FAILED) ?? 0,
    total: [...counts.values()].reduce((a, b) => a + b, 0),
    running: (images.get('pending') ?? 0) + (images.get('retrying') ?? 0),
  };
}

/** contract-decisions §8: the workspace's fissions (of one source task when asked), for every member, newest first. */
export async function listFissions(ctx: AppContext, auth: AuthUser, query: PageQuery & { source_task_id?: number | undefined }) {
  const [rows, total] = await repo.listFissions(ctx.db, auth.workspaceId, { sourceTaskId: query.source_task_id }, pageWindow(query));
  const items = await Promise.all(
    rows.map(async (row) => ({
      fission_id: row.id,
      source_task_id: row.source_task_id,
      reference_level: row.reference_level,
      fanout_count: row.fanout_count,
      status: row.status,
      progress: await progressOf(ctx, auth.workspaceId, row.id),
      created_at: row.created_at,
      created_by: { user_id: row.operator_id, username: row.operator_name ?? '' },
    })),
  );
  return pageOf(items, total, query);
}

/** Reading changes nothing. */
export async function getFission(ctx: AppContext, auth: AuthUser, id: number) {
  const fission = await ownFission(ctx, auth, id);
  const progress = await progressOf(ctx, auth.workspaceId, id);
  return {
    fission_id: fission.id,
    source_task_id: fission.source_task_id,
    reference_level: fission.reference_level,
    fanout_count: fission.fanout_count,
    status: fission.status,
    progress,
    error: fission.error,
    error_key: fission.error_key as FailureReason | null,
    error_params: fission.error_key ? ((fission.error_params ?? {}) as StoredParams) : null,
    created_at: fission.created_at,
    updated_at: fission.updated_at,
  };
}

/** Contract rule 4: the note as published; its score and banned-word result are the set's `score`, `passed` and `banned_word_status`. */
function publicNote(note: NoteRow) {
  return {
    angle_label: note.angle_label,
    title: note.title,
    content: note.content,
    tags: note.tags,
    cover_title: note.cover_title,
    image_brief: note.image_brief,
    image_plan: note.image_plan ?? [],
  };
}

function imageView(ctx: AppContext, image: SetImage) {
  return {
    seq: image.seq,
    role: image.role,
    ...(image.file_key ? { url: fileUrl(ctx, image.file_key) } : {}),
    ...(image.error ? { error: image.error, error_kind: image.error_kind, error_key: image.error_key as FailureReason | null, error_params: image.error_key ? ((image.error_params ?? {}) as StoredParams) : null } : {}),
    ...(image.status === 'retrying' ? { retrying: true } : {}),
  };
}

/**
 * A fission's images and notes from one snapshot (a note that reads image_done shows every
 * image it was settled with), each cover lettered with its note's cover title as it is now: read
 * again when a cover had to be lettered anew.
 */
async function setsOf(ctx: AppContext, fission: repo.FissionRow) {
  const read = () =>
    readTogether(ctx.db, ctx.dialect, async (db) => {
      const [images, notes] = await Promise.all([repo.imagesOf(db, fission.workspace_id, fission.id), repo.notesOf(db, fission.workspace_id, fission.id)]);
      return { images, notes };
    });
  const sets = await read();
  return (await syncFissionCovers(ctx, fission, sets.images, sets.notes)) ? read() : sets;
}

/** The notes with their images, each cover showing its note's cover title. */
export async function listNotes(ctx: AppContext, auth: AuthUser, id: number) {
  const fission = await ownFission(ctx, auth, id);
  const { images, notes } = await setsOf(ctx, fission);
  const running = images.filter((i) => i.status === 'pending' || i.status === 'retrying').length;
  return {
    fission_id: fission.id,
    status: fission.status,
    fanout_count: fission.fanout_count,
    running,
    notes: notes.map((row) => ({
      seq: repo.seqOf(row),
      note: publicNote(row),
      images: images.filter((image) => image.note_id === row.id).map((image) => imageView(ctx, image)),
      score: row.score_total,
      passed: row.score_total >= PASS_LINE,
      needs_optimization: row.score_total < PASS_LINE,
      dimension: row.dimension ?? '',
      status: row.image_status ?? NOTE_FAILED,
      banned_word_status: row.banned_word_status,
    })),
  };
}

/**
 * Contract rule 5: the elements with an error marker are queued for one background retry (the
 * marker gives way to `retrying` meanwhile); the others are not touched.
 */
export async function retryImages(ctx: AppContext, auth: AuthUser, id: number, seq: number) {
  const fission = await ownFission(ctx, auth, id);
  const note = await repo.findNoteBySeq(ctx.db, auth.workspaceId, id, seq);
  if (!note) throw fail('fission.note_not_found');
  if (fission.status === 'generating') throw fail('fission.generating_retry');
  const marked = await ctx.db.transaction().execute(async (trx) => {
    await repo.lockNote(trx, ctx.dialect, auth.workspaceId, note.id);
    const failed = await repo.markFailedForRetry(trx, auth.workspaceId, note.id, nowIso(ctx.clock.now()));
    const retrying = failed.length > 0 || (await repo.imageStatusCounts(trx, auth.workspaceId, id, note.id)).has('retrying');
    return { failed, retrying };
  });
  if (marked.failed.length === 0) {
    return {
      fission_id: id,
      seq,
      queued: false,
      message: marked.retrying ? 'the failed images of this set are being retried already' : 'no image of this set failed: nothing to retry',
    };
  }
  await ctx.queue.enqueue(fissionRetryImagesJob.kind, note.id);
  return { fission_id: id, seq, queued: true, note_id: note.id, failed_roles: marked.failed.map((i) => i.role) };
}

/**
 * The download: `fission_<id>.zip` with `checklist.md` at the root and a folder per set
 * (`set_01`, …) holding `note.txt` and the set's images, laid out as every zip of notes
 * (notes/service notesZip). A hard-blocked note never ships (contract-decisions §9, as packages
 * refuse one). Everything is checked before the first byte goes out, so a rejection is a clean
 * 409 and never a cut-off zip.
 */
export async function exportFission(ctx: AppContext, auth: AuthUser, id: number, onlySeq?: number): Promise<{ fileName: string; output: Readable }> {
  const fission = await ownFission(ctx, auth, id);
  // The package ships each cover with its note's cover title as it is now.
  const { images: allImages, notes: allNotes } = await setsOf(ctx, fission);
  // One set alone (contract-decisions §8: each set downloadable on its own), with its own checklist.
  const notes = onlySeq === undefined ? allNotes : allNotes.filter((n) => repo.seqOf(n) === onlySeq);
  if (onlySeq !== undefined && notes.length === 0) throw fail('fission.note_not_found');
  if (notes.length === 0) {
    throw fail(fission.status === 'generating' ? 'fission.empty_generating' : 'fission.empty');
  }
  const blocked = notes.filter((note) => wordsBlockingShipment(note).length > 0);
  if (blocked.length > 0) {
    throw fail('fission.export_hard_blocked', { sets: blocked.map((note) => String(repo.seqOf(note))), words: [...new Set(blocked.flatMap(wordsBlockingShipment))] });
  }
  const problems: string[] = [];
  const folders: NoteFolder[] = [];
  const sets: ChecklistSet[] = [];
  for (const note of notes) {
    const seq = repo.seqOf(note);
    const folder = `set_${pad2(seq)}`;
    const images = allImages.filter((image) => image.note_id === note.id);
    if (!note.title.trim() || !note.content.trim()) problems.push(`${folder}: the note has no title or no text`);
    sets.push({ folder, seq, dimension: note.dimension ?? '', status: note.image_status ?? NOTE_FAILED, score: note.score_total, note, images });
    const files: NoteFolder['images'] = [];
    for (const image of images) {
      const key = image.file_key;
      if (!key) continue;
      if (!(await ctx.storage.stat(key))) {
        problems.push(`${imageEntryName(folder, image)}: the stored image file is missing`);
        continue;
      }
      files.push({ seq: image.seq, role: image.role, mime: image.mime, read: () => ctx.storage.read(key) });
    }
    folders.push({ name: folder, text: note, images: files });
  }
  if (problems.length > 0) throw fail('fission.export_rejected', { problems: problems.join('; ') });
  const zip = notesZip(folders, { checklist: checklistMarkdown(fission, sets), mtime: new Date(fission.created_at) });
  return { fileName: onlySeq === undefined ? `fission_${fission.id}.zip` : `fission_${fission.id}_set_${pad2(onlySeq)}.zip`, output: zip.output };
}

/**
 * An operator's edit of one fission note, by the one rule of every note (notes/service
 * editedNote): made publishable (else 400 naming the part), checked against the banned words and
 * scored again; its covers are lettered with a changed cover title when the notes are read.
 */
export async function editNote(ctx: AppContext, auth: AuthUser, id: number, seq: number, edit: NoteEdit) {
  const fission = await ownFission(ctx, auth, id);
  if (fission.status === 'generating') throw fail('fission.generating_edit');
  const source = await repo.findSourceTask(ctx.db, auth.workspaceId, fission.source_task_id);
  if (!source) throw fail('fission.not_found');
  const evaluate = await noteEvaluator(ctx, auth.workspaceId, source);
  await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.findNoteBySeq(trx, auth.workspaceId, id, seq);
    if (!row) throw fail('fission.note_not_found');
    const note = await repo.lockNote(trx, ctx.dialect, auth.workspaceId, row.id);
    const { changes } = editedNote(evaluate, note!, edit);
    await repo.updateNote(trx, auth.workspaceId, row.id, { ...changes, updated_at: nowIso(ctx.clock.now()) });
  });
  // listNotes letters the set's covers again from their originals when the cover title changed.
  return (await listNotes(ctx, auth, id)).notes.find((n) => n.seq === seq)!;
}

/**
 * Note `seq` of a completed fission whose source task is approved, as a post freezes it (§11):
 * its text, its cover lettered with its cover title as it is now, one finished image per slot.
 * 404 for a foreign fission or an unknown seq; 409 when the fission or its source is not ready,
 * or the note may not be posted.
 */
export async function completedNote(ctx: AppContext, workspaceId: number, fissionId: number, seq: number): Promise<PostableNote> {
  const fission = await repo.findFission(ctx.db, workspaceId, fissionId);
  if (!fission) throw fail('fission.not_found');
  const source = await repo.findSourceTask(ctx.db, workspaceId, fission.source_task_id);
  if (fission.status !== 'completed' || source?.status !== 'approved') {
    throw fail('post.fission_not_ready', { fission_id: fissionId, status: fission.status, task_id: fission.source_task_id, task_status: source?.status ?? 'deleted' });
  }
  const { images: all, notes } = await setsOf(ctx, fission);
  const note = notes.find((n) => repo.seqOf(n) === seq);
  if (!note) throw fail('fission.note_not_found');
  const images = coverFirst(shippedImages(all.filter((i): i is typeof i & { file_key: string } => i.note_id === note.id && i.status === 'done' && i.file_key !== null)));
  assertPostable(note, images);
  return {
    key: `fission:${fissionId}:${seq}`,
    auditTaskId: fission.source_task_id,
    productId: source.product_id,
    taskId: null,
    strategy: note.strategy,
    fissionId,
    fissionSeq: seq,
    angleLabel: note.dimension || note.angle_label,
    title: note.title,
    body: note.content,
    tags: note.tags,
    coverTitle: note.cover_title,
    images: images.map((i) => ({ role: i.role, file_key: i.file_key, ai_generated: i.source !== 'upload' })),
  };
}
