import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase as SqliteDialectDatabase, type Transaction } from 'kysely';
import pg from 'pg';
import path from 'node:path';
import type { DB } from './schema.js';
import { SqliteRowNormalizer } from './codec.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<DB>;
/** Repositories accept either the root handle or a transaction, so callers decide the boundary. */
export type DbOrTx = Kysely<DB> | Transaction<DB>;

export interface Database {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

// Both dialects hand repositories the same JS values: timestamps as ISO-8601 UTC strings,
// counts as numbers. SQLite stores timestamps as that same ISO text, so ordering and range
// filters compare equal strings on both sides.
const PG_INT8 = 20;
const PG_NUMERIC = 1700;
const PG_TIMESTAMPTZ = 1184;
const PG_TIMESTAMP = 1114;
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === PG_INT8 || oid === PG_NUMERIC) return (v: string) => Number(v);
    if (oid === PG_TIMESTAMPTZ) return (v: string) => new Date(v).toISOString();
    if (oid === PG_TIMESTAMP) return (v: string) => new Date(`${v}Z`).toISOString();
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
};

/** The SQLite database of a data directory (also what `cli backup` copies). */
export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'app.sqlite');
}

export function openDatabase(opts: { databaseUrl?: string | undefined; dataDir: string; poolSize?: number }): Database {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      types: pgTypes as pg.CustomTypesConfig,
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  const sqlite = new SqliteDatabase(sqliteFile(opts.dataDir));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  const db = new Kysely<DB>({
    dialect: new SqliteDialect({ database: sqliteWithPortableParams(sqlite) }),
    plugins: [new SqliteRowNormalizer()],
  });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** better-sqlite3 cannot bind booleans; PostgreSQL's boolean columns take them as they are. */
function sqliteWithPortableParams(sqlite: SqliteDatabase.Database): SqliteDialectDatabase {
  const toParams = (params: ReadonlyArray<unknown>) =>
    params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      const stmt = sqlite.prepare(sql);
      return {
        reader: stmt.reader,
        all: (params) => stmt.all(...toParams(params)),
        run: (params) => stmt.run(...toParams(params)),
        iterate: (params) => stmt.iterate(...toParams(params)),
      };
    },
  };
}

/**
 * Row lock for read-modify-write inside a transaction. PostgreSQL needs FOR UPDATE; SQLite has
 * no such clause and needs none, since its single writer serialises the transaction anyway.
 */
export function forUpdate<QB extends { forUpdate(): QB }>(qb: QB, dialect: Dialect): QB {
  return dialect === 'postgres' ? qb.forUpdate() : qb;
}
