import type { Kysely } from 'kysely';

const PAGE = 200;

/** jsonb arrives parsed; SQLite text arrives parsed or not, depending on whether the adapter decodes that column. */
const decoded = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

interface Stored {
  id: number;
  workspace_id: number;
  file_key: string;
  /** The provider_calls key the image's provider result was stored under when it was made. */
  call_key: string;
}

/**
 * Images lettered before their table kept originals (task images before 20261125_1300, fission
 * images before 20261126_0100) have one after all: the provider's un-lettered image is still the
 * ledger entry of the call that made it (`provider_calls`, never pruned), keyed by the slot as the
 * pipelines then keyed it. Where that entry names a file other than the image's own (so the
 * image was drawn on it), the entry's file becomes the image's original, with nothing known
 * drawn (`lettered_title` null): the next reader letters the cover again from it with its set's
 * cover title, replacing the old lettering instead of drawing over it. Images whose entry names
 * their own file were never lettered and need no original; images without an entry stay as
 * they are and are never re-lettered.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await recover(db, 'image_candidates', (after) =>
    db
      .selectFrom('image_candidates')
      .select(['id', 'workspace_id', 'file_key', 'task_id', 'generation', 'strategy', 'seq'])
      .where('raw_file_key', 'is', null)
      .where('status', '=', 'done')
      // Rows from before 20261125_1300 (it gave them an empty brief): later variants and retries
      // were made under their own ledger keys, so the slot's key says nothing about them.
      .where('brief', '=', '')
      .where('variant', '=', 0)
      .where('source', '=', 'ai')
      .where('file_key', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute()
      .then((rows) => rows.map((r) => ({ ...r, call_key: `task:${r.task_id}:gen:${r.generation}:image:${r.strategy}:${r.seq}` }))),
  );
  await recover(db, 'fission_images', (after) =>
    db
      .selectFrom('fission_images')
      .innerJoin('fission_notes', 'fission_notes.id', 'fission_images.note_id')
      .select(['fission_images.id', 'fission_images.workspace_id', 'fission_images.file_key', 'fission_images.fission_id', 'fission_images.seq', 'fission_notes.seq as note_seq'])
      .where('fission_images.raw_file_key', 'is', null)
      .where('fission_images.status', '=', 'done')
      .where('fission_images.file_key', 'is not', null)
      .where('fission_images.id', '>', after)
      .orderBy('fission_images.id')
      .limit(PAGE)
      .execute()
      .then((rows) => rows.map((r) => ({ ...r, call_key: `fission:${r.fission_id}:image:${r.note_seq}:${r.seq}` }))),
  );
}

async function recover(db: Kysely<any>, table: 'image_candidates' | 'fission_images', page: (after: number) => Promise<Stored[]>): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await page(after);
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.id;
    const calls = await db
      .selectFrom('provider_calls')
      .select(['call_key', 'workspace_id', 'result'])
      .where(
        'call_key',
        'in',
        rows.map((r) => r.call_key),
      )
      .execute();
    const byKey = new Map(calls.map((c) => [c.call_key as string, c]));
    for (const row of rows) {
      const call = byKey.get(row.call_key);
      if (!call || call.workspace_id !== row.workspace_id) continue;
      const result = decoded(call.result) as { file_key?: unknown; mime?: unknown } | null;
      if (typeof result?.file_key !== 'string' || result.file_key === row.file_key) continue;
      await db
        .updateTable(table)
        .set({ raw_file_key: result.file_key, raw_mime: typeof result.mime === 'string' ? result.mime : 'image/png' })
        .where('id', '=', row.id)
        .where('raw_file_key', 'is', null)
        .execute();
    }
  }
}

/** The originals found stay: they are the images' true originals, and the columns hold them either way. */
export async function down(): Promise<void> {}
