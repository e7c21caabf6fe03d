import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';

const serverDir = path.resolve(import.meta.dirname, '..', '..');
const writer = path.join(import.meta.dirname, 'fixtures', 'counter-writer.ts');

/** The SQLite adapter of db/database.ts: transactions across processes, statement cache, rows. */
describe('SQLite adapter', () => {
  let dataDir: string;
  let database: Database;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'cps-sqlite-adapter-'));
    database = openDatabase({ dataDir });
  });
  afterEach(async () => {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function runWriter(rounds: number): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', writer], {
        cwd: serverDir,
        env: { ...process.env, DATA_DIR: dataDir, ROUNDS: String(rounds) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += String(d)));
      child.stderr.on('data', (d) => (output += String(d)));
      child.once('exit', (code) => resolve({ code, output }));
    });
  }

  it('lets two processes run overlapping read-then-write transactions on one file: none fails, no update is lost', async () => {
    const { db } = database;
    await sql`CREATE TABLE counter (id integer PRIMARY KEY, n integer NOT NULL)`.execute(db);
    await sql`INSERT INTO counter (id, n) VALUES (1, 0)`.execute(db);
    const rounds = 40;
    const results = await Promise.all([runWriter(rounds), runWriter(rounds)]);
    for (const result of results) expect(result, result.output).toMatchObject({ code: 0 });
    const { rows } = await sql<{ n: number }>`SELECT n FROM counter WHERE id = 1`.execute(db);
    expect(rows[0]!.n).toBe(2 * rounds);
  }, 60_000);

  it('rolls a failed transaction back and keeps serving from its cached statements', async () => {
    const { db } = database;
    await sql`CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL UNIQUE)`.execute(db);
    const insert = (trx: typeof db, name: string) => sql`INSERT INTO items (name) VALUES (${name})`.execute(trx);
    await expect(
      db.transaction().execute(async (trx) => {
        await insert(trx, 'a');
        await insert(trx, 'a');
      }),
    ).rejects.toThrow(/UNIQUE/);
    await db.transaction().execute(async (trx) => {
      await insert(trx, 'a');
      await insert(trx, 'b');
    });
    const { rows } = await sql<{ name: string }>`SELECT name FROM items ORDER BY id`.execute(db);
    expect(rows.map((r) => r.name)).toEqual(['a', 'b']);
  });

  it('reads rows as plain objects with every column, also after the table changed under a cached statement', async () => {
    const { db } = database;
    await sql`CREATE TABLE things (id integer PRIMARY KEY, label text NOT NULL, amount integer NOT NULL)`.execute(db);
    await sql`INSERT INTO things (label, amount) VALUES ('first', 1), ('second', 0)`.execute(db);
    const all = () => sql<Record<string, unknown>>`SELECT * FROM things ORDER BY id`.execute(db).then((r) => r.rows);
    expect(await all()).toEqual([
      { id: 1, label: 'first', amount: 1 },
      { id: 2, label: 'second', amount: 0 },
    ]);
    expect(Object.getPrototypeOf((await all())[0])).toBe(Object.prototype);

    // Another connection (as another process would) changes the table: SQLite re-prepares the
    // cached statement, and the rows carry the new column under its name.
    const other = openDatabase({ dataDir });
    try {
      await sql`ALTER TABLE things ADD COLUMN remark text`.execute(other.db);
      await sql`UPDATE things SET remark = 'r' WHERE id = 2`.execute(other.db);
    } finally {
      await other.close();
    }
    expect(await all()).toEqual([
      { id: 1, label: 'first', amount: 1, remark: null },
      { id: 2, label: 'second', amount: 0, remark: 'r' },
    ]);

    // A change through this connection that keeps the number of columns.
    await sql`ALTER TABLE things RENAME COLUMN remark TO comment`.execute(db);
    expect(await all()).toEqual([
      { id: 1, label: 'first', amount: 1, comment: null },
      { id: 2, label: 'second', amount: 0, comment: 'r' },
    ]);
  });

  it('returns JSON and boolean columns as PostgreSQL does (by the table column they come from, also aliased), other columns as stored', async () => {
    const { db } = database;
    // `tasks` and `users` declare progress (json) and is_active (bool) in COLUMN_CODECS; `mixed` declares nothing.
    await sql`CREATE TABLE tasks (id integer PRIMARY KEY, progress text, label text)`.execute(db);
    await sql`CREATE TABLE users (id integer PRIMARY KEY, is_active integer)`.execute(db);
    await sql`CREATE TABLE mixed (id integer PRIMARY KEY, progress text, is_active integer)`.execute(db);
    await sql`INSERT INTO tasks (progress, label) VALUES ('{"stage":"text","done":1}', '{"not":"parsed"}'), (NULL, 'x')`.execute(db);
    await sql`INSERT INTO users (is_active) VALUES (1), (0)`.execute(db);
    await sql`INSERT INTO mixed (progress, is_active) VALUES ('{"stage":"text"}', 1)`.execute(db);
    const { rows } = await sql<Record<string, unknown>>`
      SELECT tasks.progress, tasks.label, users.is_active, tasks.progress AS renamed, users.is_active AS active, (users.is_active = 1) AS computed
      FROM tasks JOIN users ON users.id = tasks.id ORDER BY tasks.id`.execute(db);
    expect(rows).toEqual([
      { progress: { stage: 'text', done: 1 }, label: '{"not":"parsed"}', is_active: true, renamed: { stage: 'text', done: 1 }, active: true, computed: 1 },
      { progress: null, label: 'x', is_active: false, renamed: null, active: false, computed: 0 },
    ]);
    // The same names in a table that declares no codec are read as stored.
    const other = await sql<Record<string, unknown>>`SELECT progress, is_active FROM mixed`.execute(db);
    expect(other.rows).toEqual([{ progress: '{"stage":"text"}', is_active: 1 }]);
    await expect(sql`SELECT label AS "__proto__" FROM tasks`.execute(db)).rejects.toThrow(/__proto__/);
  });
});
