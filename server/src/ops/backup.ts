import { existsSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { Config } from '../config.js';
import { sqliteFile } from '../db/database.js';

export type BackupResult =
  | { kind: 'sqlite'; file: string; bytes: number }
  /** PostgreSQL is backed up by its own tool; the command names the URL by variable, never by value. */
  | { kind: 'postgres'; command: string };

/**
 * SQLite: SQLite's online backup API (better-sqlite3 `backup()`), page by page, consistent while
 * the service keeps writing (WAL). The copy is a plain database file: restoring is stopping the
 * service and putting it in place of DATA_DIR/app.sqlite. Stored files are not in it (they live
 * under DATA_DIR/files, content-addressed, so copying that directory at any time is safe).
 */
export async function backupDatabase(config: Config, out: string): Promise<BackupResult> {
  if (config.databaseUrl) {
    return { kind: 'postgres', command: `pg_dump --format=custom --no-owner --file=${shellQuote(out)} "$DATABASE_URL"` };
  }
  const target = path.resolve(out);
  if (existsSync(target)) throw new Error(`${target} exists; choose a new file (a backup never overwrites)`);
  const source = sqliteFile(config.dataDir);
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  // Not read-only: a read-only connection cannot open a WAL database whose -shm file is gone.
  const db = new SqliteDatabase(source, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  try {
    const progress = await db.backup(target);
    return { kind: 'sqlite', file: target, bytes: progress.totalPages * (db.pragma('page_size', { simple: true }) as number) };
  } finally {
    db.close();
  }
}

function shellQuote(value: string): string {
  return /^[\w./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
