import type { Kysely } from 'kysely';
import { portable } from './types.js';

const BACKFILL_PAGE = 200;

interface StoredElement {
  seq: number;
  role: string;
  strategy: string;
  brief: string;
  overlay: unknown;
  file_key?: string;
  mime?: string;
  error?: string;
  retrying?: boolean;
}

/** jsonb arrives parsed; SQLite text arrives parsed or not, depending on whether the adapter decodes that column. */
const decoded = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

/**
 * Fission images become rows, as task images are: one per (note, seq) with its outcome, so an
 * image, its note's status and the fission's status settle in one transaction, a file key is an
 * indexed column the unused-file sweep can ask about, and a failed image can carry its
 * `error_kind`. The `images` JSON of each note is moved into the rows and dropped.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await t
    .id(db.schema.createTable('fission_images'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('fission_id', 'integer', (c) => c.notNull().references('fission_tasks.id').onDelete('cascade'))
    .addColumn('note_id', 'integer', (c) => c.notNull().references('fission_notes.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('strategy', 'text', (c) => c.notNull())
    .addColumn('brief', 'text', (c) => c.notNull())
    .addColumn('overlay', t.json, (c) => c.notNull())
    // pending (not made yet), done (file_key set), failed (error set), retrying (queued again).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('file_key', 'text')
    .addColumn('mime', 'text')
    .addColumn('error', 'text')
    .addColumn('error_kind', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('fission_images_note_seq_uq', ['note_id', 'seq'])
    .execute();
  await db.schema.createIndex('fission_images_fission_idx').on('fission_images').columns(['fission_id', 'status']).execute();
  await db.schema.createIndex('fission_images_file_key_idx').on('fission_images').column('file_key').execute();

  let after = 0;
  for (;;) {
    const notes = await db
      .selectFrom('fission_notes')
      .select(['id', 'workspace_id', 'fission_id', 'images', 'created_at', 'updated_at'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BACKFILL_PAGE)
      .execute();
    for (const note of notes) {
      const elements = decoded(note.images) as StoredElement[];
      if (elements.length === 0) continue;
      await db
        .insertInto('fission_images')
        .values(
          elements.map((e) => ({
            workspace_id: note.workspace_id,
            fission_id: note.fission_id,
            note_id: note.id,
            seq: e.seq,
            role: e.role,
            strategy: e.strategy,
            brief: e.brief,
            overlay: JSON.stringify(e.overlay ?? null),
            status: e.retrying ? 'retrying' : e.file_key ? 'done' : e.error ? 'failed' : 'pending',
            file_key: e.file_key ?? null,
            mime: e.mime ?? null,
            error: e.error ?? null,
            error_kind: null,
            created_at: note.created_at,
            updated_at: note.updated_at,
          })),
        )
        .execute();
    }
    if (notes.length < BACKFILL_PAGE) break;
    after = notes[notes.length - 1]!.id;
  }
  await db.schema.alterTable('fission_notes').dropColumn('images').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await db.schema.alterTable('fission_notes').addColumn('images', t.json, (c) => c.notNull().defaultTo('[]')).execute();
  const images = await db.selectFrom('fission_images').selectAll().orderBy('note_id').orderBy('seq').execute();
  const byNote = new Map<number, StoredElement[]>();
  for (const image of images) {
    const element: StoredElement = { seq: image.seq, role: image.role, strategy: image.strategy, brief: image.brief, overlay: decoded(image.overlay) };
    if (image.file_key) Object.assign(element, { file_key: image.file_key, mime: image.mime });
    if (image.error) element.error = image.error;
    if (image.status === 'retrying') element.retrying = true;
    byNote.set(image.note_id, [...(byNote.get(image.note_id) ?? []), element]);
  }
  for (const [noteId, elements] of byNote) {
    await db.updateTable('fission_notes').set({ images: JSON.stringify(elements) }).where('id', '=', noteId).execute();
  }
  await db.schema.dropTable('fission_images').execute();
}
