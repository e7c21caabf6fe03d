import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  sql,
  type Compilable,
  type CompiledQuery,
  type PostgresPool,
  type PostgresPoolClient,
  type SqliteDatabase as SqliteDialectDatabase,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { chmodSync, closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { COLUMN_CODECS, type ColumnCodec, type DB } from './schema.js';

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
    // Named statements (namingPool) are still planned for their values on every run: a generic
    // plan, made once without them, cannot know a LIMIT and would read a deep page's ids by a scan
    // of every task. Parsing once is what naming them saves. Queued before the client's first query.
    pool.on('connect', (client) => {
      client.query('SET plan_cache_mode = force_custom_plan').catch(() => {});
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: namingPool(pool) }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  // Private like the secrets beside it (issue 28, finding 10): created 0600, and an older 0644
  // file is tightened on start. SQLite gives its -wal and -shm files the database file's mode.
  const file = sqliteFile(opts.dataDir);
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  const db = new Kysely<DB>({
    dialect: new SqliteDialect({ database: sqliteAdapter(sqlite) }),
  });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** preparedQuery's statements by SQL text, with the name PostgreSQL keeps each one parsed under. */
const namedStatements = new Map<string, string>();

/**
 * The pool as Kysely sees it, sending preparedQuery's statements as named ones: each connection
 * parses and analyses such a statement once and then only binds, plans and runs it, for the
 * per-request hot paths (about 0.1 ms of the 0.5 ms a page of GET /tasks took by itself). Other
 * queries go as they are: their texts are open-ended (`in` lists of any length) and would pile up
 * in every connection.
 */
function namingPool(pool: pg.Pool): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    // Kysely passes SQL text and values, or a cursor (streamed queries) that goes as it is.
    query: ((text: string | pg.Submittable, values?: unknown[]) => {
      if (typeof text !== 'string') return client.query(text);
      const name = namedStatements.get(text);
      return name ? client.query({ name, text, values }) : client.query(text, values);
    }) as unknown as PostgresPoolClient['query'],
    release: () => client.release(),
  });
  return {
    connect: async () => {
      const client = await pool.connect();
      let wrapped = clients.get(client);
      if (!wrapped) clients.set(client, (wrapped = wrap(client)));
      return wrapped;
    },
    end: () => pool.end(),
  };
}

/** Distinct SQL texts kept prepared; `in (?, ?, …)` lists of varying length make the set open-ended. */
const STATEMENT_CACHE_SIZE = 500;
const DDL = /^\s*(create|alter|drop)\b/i;

type Statement = ReturnType<SqliteDialectDatabase['prepare']>;

const READERS: Record<ColumnCodec, (value: unknown) => unknown> = {
  bool: (value) => (typeof value === 'number' ? value !== 0 : value),
  json: (value) => (typeof value === 'string' ? JSON.parse(value) : value),
};

/**
 * How a result column's stored value becomes the value PostgreSQL would have returned, from
 * the table column it comes from (also under an alias); computed expressions are left as they are.
 */
function columnReader(column: { name: string; table: string | null; column: string | null }): ((value: unknown) => unknown) | undefined {
  if (column.name === '__proto__') throw new Error('a result column named __proto__ is not supported');
  if (!column.table || !column.column) return undefined;
  const codec = (COLUMN_CODECS as Record<string, Record<string, ColumnCodec> | undefined>)[column.table]?.[column.column];
  return codec ? READERS[codec] : undefined;
}

/**
 * Kysely's SQLite driver prepares every query anew, takes better-sqlite3's row objects and starts
 * transactions DEFERRED. This adapter:
 * - keeps prepared statements in a bounded LRU keyed by SQL text: preparing cost more than
 *   running the hot queries. A schema change through this connection empties it;
 * - reads rows as arrays and builds the objects here, from column names read once per
 *   statement (on Node 20 better-sqlite3 internalises every name again for every row, which made
 *   a 20-row page about a third slower to read), turning JSON columns (text in SQLite) and
 *   boolean columns (0/1), known by the table column a result column comes from
 *   (COLUMN_CODECS), into what PostgreSQL returns, so repositories see the same rows;
 * - binds booleans as 0/1 (better-sqlite3 refuses them; PostgreSQL takes them as they are);
 * - turns Kysely's `begin` into `begin immediate`: a deferred transaction that reads and then
 *   writes while another process holds the write lock fails at once with SQLITE_BUSY (its read
 *   snapshot is stale, so busy_timeout is never consulted); an immediate one waits for the lock
 *   up front, within busy_timeout.
 */
function sqliteAdapter(sqlite: SqliteDatabase.Database): SqliteDialectDatabase {
  const toParams = (params: ReadonlyArray<unknown>) =>
    params.some((p) => typeof p === 'boolean') ? params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p)) : params;
  const cache = new Map<string, Statement>();

  const adapt = (sql: string, stmt: SqliteDatabase.Statement): Statement => {
    let names: string[] = [];
    let readers: (((value: unknown) => unknown) | undefined)[] = [];
    const readColumns = () => {
      const columns = stmt.columns();
      names = columns.map((c) => c.name);
      readers = columns.map(columnReader);
    };
    if (stmt.reader) {
      stmt.raw(true);
      readColumns();
    }
    const toObject = (row: unknown[]) => {
      // Another process may have changed the table under a `select *` (SQLite re-prepares the
      // statement): a different column count means other names. Migrations, the usual schema
      // changes, run through this connection and empty the cache instead.
      if (row.length !== names.length) readColumns();
      const object: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) {
        const read = readers[i];
        object[names[i]!] = read ? read(row[i]) : row[i];
      }
      return object;
    };
    // Kysely calls all() and iterate() for statements that return rows, run() for the others.
    return {
      reader: stmt.reader,
      all: (params) => (stmt.all(toParams(params)) as unknown[][]).map(toObject),
      run: (params) => {
        const result = stmt.run(toParams(params));
        if (DDL.test(sql)) cache.clear();
        return result;
      },
      iterate: function* (params) {
        for (const row of stmt.iterate(toParams(params))) yield toObject(row as unknown[]);
      },
    };
  };

  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare(text: string) {
      const sql = text === 'begin' ? 'begin immediate' : text;
      const cached = cache.get(sql);
      // Kysely holds the one connection for a whole streamed query, so a cached statement is
      // never asked to run while it is still being iterated.
      if (cached) {
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const adapted = adapt(sql, sqlite.prepare(sql));
      cache.set(sql, adapted);
      if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      return adapted;
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

/**
 * Several reads that see the database as it was at one moment: a reply built from two tables
 * (a note and its images) never pairs a row with another row's later state. PostgreSQL reads
 * in one repeatable-read snapshot; SQLite in one deferred read transaction (WAL gives it a
 * snapshot without taking the write lock, which `begin immediate` would).
 */
export function readTogether<T>(db: Db, dialect: Dialect, read: (snapshot: Db) => Promise<T>): Promise<T> {
  const begin = dialect === 'postgres' ? 'start transaction isolation level repeatable read, read only' : 'begin deferred';
  return db.connection().execute(async (connection) => {
    await sql.raw(begin).execute(connection);
    try {
      const result = await read(connection);
      await sql.raw('commit').execute(connection);
      return result;
    } catch (err) {
      await sql.raw('rollback').execute(connection);
      throw err;
    }
  });
}

const PARAMETER = '\u0000prepared-parameter:';

/**
 * A query built and compiled once per database handle and set of given parameters, then run
 * with fresh values: for the per-request hot paths, where Kysely's builder and compiler cost
 * more than the indexed query itself (with the SQLite statement cache the SQL is prepared once
 * too). `build` receives stand-ins for the given parameters and `undefined` for the others, so
 * it may branch on whether a parameter is given, never on its value, and may only pass the
 * stand-ins on as scalar values (no `in` lists, no `sql.lit`).
 */
export function preparedQuery<A extends unknown[], R>(build: (db: DbOrTx, ...params: A) => Compilable<R>) {
  const compiled = new WeakMap<DbOrTx, Map<number, CompiledQuery<R>>>();
  return async (db: DbOrTx, ...params: A): Promise<R[]> => {
    let shape = 0;
    params.forEach((p, i) => {
      if (p !== undefined) shape |= 1 << i;
    });
    let shapes = compiled.get(db);
    if (!shapes) compiled.set(db, (shapes = new Map()));
    let query = shapes.get(shape);
    if (!query) {
      query = build(db, ...(params.map((p, i) => (p === undefined ? undefined : `${PARAMETER}${i}`)) as A)).compile();
      shapes.set(shape, query);
      if (!namedStatements.has(query.sql)) namedStatements.set(query.sql, `cps_${namedStatements.size}`);
    }
    const parameters = query.parameters.map((p) =>
      typeof p === 'string' && p.startsWith(PARAMETER) ? params[Number(p.slice(PARAMETER.length))] : p,
    );
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
