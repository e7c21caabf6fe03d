import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, readTogether, type Database } from '../../src/db/database.js';
import { freshPostgresDatabase, usingPostgres } from '../helpers/server.js';

/**
 * A reply built from two reads (a fission's images, then its notes) must not pair one table's
 * state with another's later state: a write that commits between the two reads stays unseen.
 */
describe(`readTogether (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  let database: Database;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-read-together-'));
    const pgDb = usingPostgres ? await freshPostgresDatabase(process.env.DATABASE_URL!) : undefined;
    database = openDatabase({ databaseUrl: pgDb?.url, dataDir });
    await sql`create table counters (name text primary key, n integer not null)`.execute(database.db);
    await sql`insert into counters (name, n) values ('a', 0), ('b', 0)`.execute(database.db);
    cleanup = async () => {
      await database.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(() => cleanup?.());

  const valueOf = async (db: Database['db'], name: string) =>
    Number((await sql<{ n: number }>`select n from counters where name = ${name}`.execute(db)).rows[0]!.n);
  // Both counters move together, in one transaction, as an image and its note settle together.
  const bumpBoth = () =>
    database.db.transaction().execute(async (trx) => {
      await sql`update counters set n = n + 1`.execute(trx);
    });

  it('sees both rows as they were when it began, while a write commits between its reads', async () => {
    let write: Promise<void> | undefined;
    const [a, b] = await readTogether(database.db, database.dialect, async (db) => {
      const first = await valueOf(db, 'a');
      // PostgreSQL commits this on another connection meanwhile; on SQLite it waits for the one
      // connection, which plain reads would hand it between the two selects.
      write = bumpBoth();
      await new Promise((resolve) => setTimeout(resolve, 100));
      return [first, await valueOf(db, 'b')];
    });
    await write;
    expect([a, b]).toEqual([0, 0]);
    expect([await valueOf(database.db, 'a'), await valueOf(database.db, 'b')]).toEqual([1, 1]);
  });

  it('ends its transaction when a read fails, and the connection serves the next read', async () => {
    await expect(readTogether(database.db, database.dialect, (db) => sql`select * from no_such_table`.execute(db))).rejects.toThrow();
    expect(await readTogether(database.db, database.dialect, (db) => valueOf(db, 'a'))).toBe(1);
    await bumpBoth();
    expect(await valueOf(database.db, 'b')).toBe(2);
  });
});
