import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * One note model (issue 34 item 1): a fission's notes and their images move from
 * `fission_notes` (a JSON blob with `_score`, `_passed`, `_block` keys) and `fission_images` into
 * `text_candidates` and `image_candidates`, the rows a task's generation writes. A note's origin
 * is its task (`task_id`) or its fission (`fission_id`), exactly one of them; a fission note's
 * images name their note (`note_id`). What only a fission note has stays in columns of its own:
 * `dimension`, `image_plan` and `image_status` (where its images stand). `passed` and
 * `needs_optimization` were `score >= PASS_LINE` and its negation, written from the same score, so
 * they are read from `score_total` now. A queued `fission.retry-images` job names the note by its
 * new id.
 */

const TASK_ID = '"task_id" integer not null references "tasks" ("id") on delete cascade';
const TEXT_COLUMNS =
  '"fission_id" integer references "fission_tasks" ("id") on delete cascade, "dimension" text, "image_plan" text, "image_status" text';
const IMAGE_COLUMNS =
  '"fission_id" integer references "fission_tasks" ("id") on delete cascade, "note_id" integer references "text_candidates" ("id") on delete cascade';
const originCheck = (table: string) => `constraint "${table}_origin_ck" check (("task_id" is null) <> ("fission_id" is null))`;

type Table = 'text_candidates' | 'image_candidates';

/**
 * SQLite cannot drop a NOT NULL or add a table constraint: the table is rebuilt from its own
 * CREATE statement, changed by `edit`, with its rows and indexes. Foreign keys are off meanwhile
 * (Kysely runs SQLite migrations outside a transaction, so the pragma takes), or dropping
 * `text_candidates` would cascade into `package_notes`.
 */
async function rebuild(db: Kysely<any>, table: Table, edit: (create: string) => string): Promise<void> {
  const objects = await sql<{ type: string; sql: string | null }>`select type, sql from sqlite_master where tbl_name = ${table}`.execute(db);
  const create = objects.rows.find((o) => o.type === 'table')!.sql!;
  const indexes = objects.rows.filter((o) => o.type === 'index' && o.sql).map((o) => o.sql!);
  const next = edit(create);
  if (next === create) throw new Error(`${table}: its CREATE statement is not the one this migration knows`);
  const columns = sql.join(
    (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows
      .map((c) => c.name)
      .filter((name) => next.includes(`"${name}"`))
      .map((name) => sql.ref(name)),
  );
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await sql.raw(next.replace(`CREATE TABLE "${table}"`, `CREATE TABLE "${table}_next"`)).execute(trx);
      await sql`insert into ${sql.table(`${table}_next`)} (${columns}) select ${columns} from ${sql.table(table)}`.execute(trx);
      await sql`drop table ${sql.table(table)}`.execute(trx);
      await sql`alter table ${sql.table(`${table}_next`)} rename to ${sql.table(table)}`.execute(trx);
      for (const index of indexes) await sql.raw(index).execute(trx);
      const broken = await sql`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) throw new Error(`${table}: the rebuild broke ${broken.rows.length} foreign keys`);
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

/** The `fission.retry-images` job records, read before any note moves: old and new ids may overlap. */
async function queuedRetries(db: Kysely<any>) {
  const of = (table: string) => db.selectFrom(table).select(['ref_id']).where('kind', '=', 'fission.retry-images').execute();
  return { jobs: await of('jobs'), resumes: await of('job_resumes') };
}

async function renameRetries(db: Kysely<any>, retries: Awaited<ReturnType<typeof queuedRetries>>, moves: Map<number, number>) {
  // Through a negative id first, so a record renamed to an id another still holds is not renamed twice.
  for (const [table, rows] of [['jobs', retries.jobs], ['job_resumes', retries.resumes]] as const) {
    for (const { ref_id } of rows) {
      const to = moves.get(Number(ref_id));
      if (to !== undefined) await db.updateTable(table).set({ ref_id: -to }).where('kind', '=', 'fission.retry-images').where('ref_id', '=', ref_id).execute();
    }
    await db.updateTable(table).set({ ref_id: sql`-ref_id` }).where('kind', '=', 'fission.retry-images').where('ref_id', '<', 0).execute();
  }
}

/** The moves in one transaction: PostgreSQL runs the migration in one already, SQLite does not. */
const atomically = <T>(db: Kysely<any>, work: (trx: Kysely<any>) => Promise<T>): Promise<T> => (db.isTransaction ? work(db) : db.transaction().execute(work));

const decode = (value: unknown): any => (typeof value === 'string' ? JSON.parse(value) : value);

export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  if (t.pg) {
    await sql`alter table text_candidates alter column task_id drop not null`.execute(db);
    await sql.raw(`alter table text_candidates add column ${TEXT_COLUMNS.replace('"image_plan" text', '"image_plan" jsonb').replaceAll(', "', ', add column "')}`).execute(db);
    await sql.raw(`alter table text_candidates add ${originCheck('text_candidates')}`).execute(db);
    await sql`alter table image_candidates alter column task_id drop not null`.execute(db);
    await sql.raw(`alter table image_candidates add column ${IMAGE_COLUMNS.replaceAll(', "', ', add column "')}`).execute(db);
    await sql.raw(`alter table image_candidates add ${originCheck('image_candidates')}`).execute(db);
  } else {
    const widen = (columns: string, table: Table) => (create: string) =>
      create.replace(TASK_ID, `"task_id" integer references "tasks" ("id") on delete cascade, ${columns}`).replace(/\)$/, `, ${originCheck(table)})`);
    await rebuild(db, 'text_candidates', widen(TEXT_COLUMNS, 'text_candidates'));
    await rebuild(db, 'image_candidates', widen(IMAGE_COLUMNS, 'image_candidates'));
  }
  await db.schema.createIndex('text_candidates_fission_uq').on('text_candidates').columns(['fission_id', 'slot']).unique().execute();
  await db.schema.createIndex('image_candidates_note_uq').on('image_candidates').columns(['note_id', 'seq']).unique().execute();
  await db.schema.createIndex('image_candidates_fission_idx').on('image_candidates').columns(['fission_id', 'status']).execute();

  await atomically(db, async (trx) => {
    const retries = await queuedRetries(trx);
    const moves = new Map<number, number>();
    const notes = await trx.selectFrom('fission_notes').selectAll().orderBy('id').execute();
    const images = await trx.selectFrom('fission_images').selectAll().orderBy('id').execute();
    for (const row of notes) {
      const note = decode(row.note) ?? {};
      const { verdict = '', summary = '', ...score } = note._score ?? {};
      const own = images.filter((i) => i.note_id === row.id);
      const moved = await trx
        .insertInto('text_candidates')
        .values({
          workspace_id: row.workspace_id,
          task_id: null,
          fission_id: row.fission_id,
          generation: 1,
          slot: row.seq - 1,
          // A package's strategy was kept on its images only.
          strategy: own[0]?.strategy ?? null,
          angle_label: note.angle_label ?? '',
          title: note.title ?? '',
          content: note.content ?? '',
          tags: JSON.stringify(note.tags ?? []),
          cover_title: note.cover_title ?? '',
          image_brief: note.image_brief ?? '',
          source: 'ai',
          score: JSON.stringify({ total: row.score, ...score }),
          score_total: row.score,
          banned_word_status: note._block?.status ?? 'pass',
          banned_hits: JSON.stringify(note._block?.hits ?? []),
          is_selected: t.pg ? false : 0,
          verdict,
          summary,
          edited: t.pg ? false : 0,
          dimension: row.dimension,
          image_plan: JSON.stringify(note.image_plan ?? []),
          image_status: row.status,
          created_at: row.created_at,
          updated_at: row.updated_at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const image of own) {
        await trx
          .insertInto('image_candidates')
          .values({
            workspace_id: image.workspace_id,
            task_id: null,
            fission_id: image.fission_id,
            note_id: moved.id,
            generation: 1,
            strategy: image.strategy,
            role: image.role,
            seq: image.seq,
            file_key: image.file_key,
            mime: image.mime,
            prompt: '',
            is_selected: t.pg ? false : 0,
            is_regen: t.pg ? false : 0,
            created_at: image.created_at,
            variant: 0,
            source: 'ai',
            status: image.status,
            error: image.error,
            error_kind: image.error_kind,
            raw_file_key: image.raw_file_key,
            raw_mime: image.raw_mime,
            lettered_title: image.lettered_title,
            overlay: JSON.stringify(decode(image.overlay) ?? null),
            brief: image.brief,
            updated_at: image.updated_at,
          })
          .execute();
      }
      moves.set(row.id, moved.id);
    }
    await renameRetries(trx, retries, moves);
  });
  await db.schema.dropTable('fission_images').execute();
  await db.schema.dropTable('fission_notes').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await t
    .id(db.schema.createTable('fission_notes'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('fission_id', 'integer', (c) => c.notNull().references('fission_tasks.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('note', t.json, (c) => c.notNull())
    .addColumn('score', t.real, (c) => c.notNull())
    .addColumn('passed', t.bool, t.boolDefault(false))
    .addColumn('needs_optimization', t.bool, t.boolDefault(false))
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('fission_notes_seq_uq', ['fission_id', 'seq'])
    .execute();
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
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('file_key', 'text')
    .addColumn('mime', 'text')
    .addColumn('error', 'text')
    .addColumn('error_kind', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('raw_file_key', 'text')
    .addColumn('raw_mime', 'text')
    .addColumn('lettered_title', 'text')
    .addUniqueConstraint('fission_images_note_seq_uq', ['note_id', 'seq'])
    .execute();
  await db.schema.createIndex('fission_images_fission_idx').on('fission_images').columns(['fission_id', 'status']).execute();
  await db.schema.createIndex('fission_images_file_key_idx').on('fission_images').column('file_key').execute();
  await db.schema.createIndex('fission_images_raw_file_key_idx').on('fission_images').column('raw_file_key').execute();

  await atomically(db, async (trx) => {
    const retries = await queuedRetries(trx);
    const moves = new Map<number, number>();
    const notes = await trx.selectFrom('text_candidates').selectAll().where('fission_id', 'is not', null).orderBy('id').execute();
    const images = await trx.selectFrom('image_candidates').selectAll().where('fission_id', 'is not', null).orderBy('id').execute();
    for (const row of notes) {
      const score = decode(row.score);
      // 80 was PASS_LINE when fission notes had their own table.
      const passed = Number(row.score_total) >= 80;
      const note = {
        angle_label: row.angle_label,
        title: row.title,
        content: row.content,
        tags: decode(row.tags),
        cover_title: row.cover_title,
        image_brief: row.image_brief,
        image_plan: decode(row.image_plan),
        _score: { ...score, verdict: row.verdict, summary: row.summary },
        _passed: passed,
        _block: { status: row.banned_word_status, hits: decode(row.banned_hits) },
      };
      const back = await trx
        .insertInto('fission_notes')
        .values({
          workspace_id: row.workspace_id,
          fission_id: row.fission_id,
          seq: row.slot + 1,
          note: JSON.stringify(note),
          score: row.score_total,
          passed: t.pg ? passed : Number(passed),
          needs_optimization: t.pg ? !passed : Number(!passed),
          dimension: row.dimension ?? '',
          status: row.image_status ?? 'failed',
          created_at: row.created_at,
          updated_at: row.updated_at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      moves.set(row.id, back.id);
      for (const image of images.filter((i) => i.note_id === row.id)) {
        await trx
          .insertInto('fission_images')
          .values({
            workspace_id: image.workspace_id,
            fission_id: image.fission_id,
            note_id: back.id,
            seq: image.seq,
            role: image.role,
            strategy: image.strategy,
            brief: image.brief,
            overlay: JSON.stringify(decode(image.overlay) ?? null),
            status: image.status,
            file_key: image.file_key,
            mime: image.mime,
            error: image.error,
            error_kind: image.error_kind,
            created_at: image.created_at,
            updated_at: image.updated_at ?? image.created_at,
            raw_file_key: image.raw_file_key,
            raw_mime: image.raw_mime,
            lettered_title: image.lettered_title,
          })
          .execute();
      }
    }
    await renameRetries(trx, retries, moves);
    await trx.deleteFrom('image_candidates').where('fission_id', 'is not', null).execute();
    await trx.deleteFrom('text_candidates').where('fission_id', 'is not', null).execute();
  });

  await db.schema.dropIndex('image_candidates_fission_idx').execute();
  await db.schema.dropIndex('image_candidates_note_uq').execute();
  await db.schema.dropIndex('text_candidates_fission_uq').execute();
  if (t.pg) {
    await sql`alter table image_candidates drop constraint image_candidates_origin_ck, drop column fission_id, drop column note_id`.execute(db);
    await sql`alter table image_candidates alter column task_id set not null`.execute(db);
    await sql`alter table text_candidates drop constraint text_candidates_origin_ck, drop column fission_id, drop column dimension, drop column image_plan, drop column image_status`.execute(db);
    await sql`alter table text_candidates alter column task_id set not null`.execute(db);
  } else {
    const narrow = (columns: string, table: Table) => (create: string) =>
      create.replace(`"task_id" integer references "tasks" ("id") on delete cascade, ${columns}`, TASK_ID).replace(`, ${originCheck(table)})`, ')');
    await rebuild(db, 'image_candidates', narrow(IMAGE_COLUMNS, 'image_candidates'));
    await rebuild(db, 'text_candidates', narrow(TEXT_COLUMNS, 'text_candidates'));
  }
}
