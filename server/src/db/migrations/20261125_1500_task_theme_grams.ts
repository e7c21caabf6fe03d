import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * The keyword search of `GET /tasks` (`q`) as an index: every pair of adjacent characters of a
 * task's theme (and its last character alone), lower-cased, kept by triggers in the transaction
 * of every insert, delete and theme change, whoever writes the task. Chinese has no spaces to
 * split words on and most keywords are two characters (面膜, 防晒), so word tokenizers (FTS5's
 * unicode61, PostgreSQL's to_tsvector) and trigram indexes (FTS5 trigram, pg_trgm: three
 * characters at least) cannot serve them; character pairs can (MySQL's ngram parser makes the
 * same choice). A keyword's candidates are the tasks holding its rarest pair, one primary-key
 * range; the whole keyword is then checked on those rows alone.
 *
 * `gram_positions` holds 1…1000 so that a trigger can cut a theme into pairs with one
 * INSERT … SELECT (SQLite triggers allow no recursive CTE); themes are at most 500 characters.
 * The column sorts bytewise (PostgreSQL COLLATE "C", SQLite's BINARY) so that a one-character
 * keyword is a prefix range of the key.
 */
const POSITIONS = 1000;

export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await db.schema
    .createTable('task_theme_grams')
    .addColumn('workspace_id', 'integer', (c) => c.notNull())
    .addColumn('gram', t.pg ? sql`text COLLATE "C"` : 'text', (c) => c.notNull())
    .addColumn('task_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('task_theme_grams_pk', ['workspace_id', 'gram', 'task_id'])
    .execute();
  await db.schema.createIndex('task_theme_grams_task_idx').on('task_theme_grams').column('task_id').execute();
  await db.schema.createTable('gram_positions').addColumn('n', 'integer', (c) => c.primaryKey()).execute();
  for (let start = 1; start <= POSITIONS; start += 250) {
    const values = Array.from({ length: 250 }, (_, i) => ({ n: start + i }));
    await db.insertInto('gram_positions').values(values).execute();
  }

  await sql`INSERT INTO task_theme_grams (workspace_id, gram, task_id)
    SELECT DISTINCT tasks.workspace_id, lower(substr(tasks.theme, p.n, 2)), tasks.id FROM tasks JOIN gram_positions p ON p.n <= length(tasks.theme)`.execute(db);

  const add = sql`INSERT INTO task_theme_grams (workspace_id, gram, task_id)
    SELECT DISTINCT NEW.workspace_id, lower(substr(NEW.theme, p.n, 2)), NEW.id FROM gram_positions p WHERE p.n <= length(NEW.theme);`;
  const remove = sql`DELETE FROM task_theme_grams WHERE task_id = OLD.id;`;
  if (t.pg) {
    await sql`CREATE FUNCTION task_theme_grams_track() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN ${remove} END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN ${add} END IF;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER tasks_theme_grams AFTER INSERT OR DELETE OR UPDATE OF theme, workspace_id ON tasks
      FOR EACH ROW EXECUTE FUNCTION task_theme_grams_track()`.execute(db);
    return;
  }
  await sql`CREATE TRIGGER tasks_theme_grams_insert AFTER INSERT ON tasks BEGIN ${add} END`.execute(db);
  await sql`CREATE TRIGGER tasks_theme_grams_delete AFTER DELETE ON tasks BEGIN ${remove} END`.execute(db);
  await sql`CREATE TRIGGER tasks_theme_grams_update AFTER UPDATE OF theme, workspace_id ON tasks BEGIN ${remove} ${add} END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  if (t.pg) {
    await sql`DROP TRIGGER tasks_theme_grams ON tasks`.execute(db);
    await sql`DROP FUNCTION task_theme_grams_track()`.execute(db);
  } else {
    for (const name of ['tasks_theme_grams_update', 'tasks_theme_grams_delete', 'tasks_theme_grams_insert']) await sql`DROP TRIGGER ${sql.id(name)}`.execute(db);
  }
  await db.schema.dropTable('gram_positions').execute();
  await db.schema.dropTable('task_theme_grams').execute();
}
