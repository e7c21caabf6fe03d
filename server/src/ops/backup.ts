import { createHmac } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { Config } from '../config.js';
import { sqliteFile } from '../db/database.js';

/**
 * A backup is what a restore needs (issue 28, finding 6), in one new directory (mode 0700,
 * every file 0600):
 *
 * - `app.sqlite`: SQLite's online backup API, page by page, consistent while the service keeps
 *   writing (WAL). PostgreSQL is dumped by its own tool: the command printed writes
 *   `database.pgdump` into the directory (the URL named by variable, never by value).
 * - `files/`: the stored files (STORAGE=local; content-addressed and never modified in place,
 *   so a copy taken after the database holds every file it references). A bucket is backed up
 *   by its own versioning or replication.
 * - `secrets/`: SECRET_KEY and JWT_SECRET when they were generated into DATA_DIR. Stored
 *   provider keys and webhook secrets are sealed with SECRET_KEY: without it a restored
 *   database holds nothing usable. Secrets that come from the environment are not copied (they
 *   live in the operator's secret store); the manifest keeps a check value of SECRET_KEY so a
 *   restore refuses the wrong one before anything starts.
 * - `manifest.json`: what is in it.
 *
 * The directory therefore holds the keys to the data it holds: keep it where the data may be.
 */

const SECRETS = ['JWT_SECRET', 'SECRET_KEY'] as const;

interface Manifest {
  format: 1;
  created_at: string;
  database: 'sqlite' | 'postgres';
  files: boolean;
  /** Which secrets the backup carries; the others must come from the environment. */
  secrets: Record<(typeof SECRETS)[number], 'included' | 'environment'>;
  /** HMAC of a fixed label under SECRET_KEY: says whether a key is the right one, reveals nothing of it. */
  secret_key_check: string;
}

export type BackupResult = { dir: string; database: 'sqlite'; bytes: number } | { dir: string; database: 'postgres'; command: string };

export type RestoreResult = { dir: string; database: 'sqlite' } | { dir: string; database: 'postgres'; command: string };

const secretKeyCheck = (secretKey: string) => createHmac('sha256', secretKey).update('cps-backup-secret-key-check').digest('hex').slice(0, 32);

const secretFile = (dataDir: string, name: string) => path.join(dataDir, 'secrets', name.toLowerCase());

/** Copies a tree, then makes it private: directories 0700, files 0600. */
function copyPrivate(from: string, to: string): void {
  cpSync(from, to, { recursive: true, errorOnExist: true, force: false });
  const tighten = (p: string) => {
    for (const entry of readdirSync(p, { withFileTypes: true })) {
      const child = path.join(p, entry.name);
      if (entry.isDirectory()) tighten(child);
      chmodSync(child, entry.isDirectory() ? 0o700 : 0o600);
    }
  };
  tighten(to);
  chmodSync(to, 0o700);
}

function writePrivate(file: string, data: string | Buffer): void {
  writeFileSync(file, data, { mode: 0o600, flag: 'wx' });
}

export async function backup(config: Config, out: string): Promise<BackupResult> {
  const dir = path.resolve(out);
  if (existsSync(dir)) throw new Error(`${dir} exists; choose a new directory (a backup never overwrites)`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);

  let result: BackupResult;
  if (config.databaseUrl) {
    result = { dir, database: 'postgres', command: `pg_dump --format=custom --no-owner --file=${shellQuote(path.join(dir, 'database.pgdump'))} "$DATABASE_URL"` };
  } else {
    const source = sqliteFile(config.dataDir);
    if (!existsSync(source)) throw new Error(`no database at ${source}`);
    // Not read-only: a read-only connection cannot open a WAL database whose -shm file is gone.
    const db = new SqliteDatabase(source, { fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const target = path.join(dir, 'app.sqlite');
    try {
      // The backup API creates the file with the process umask: made private before any page lands.
      writePrivate(target, '');
      const progress = await db.backup(target);
      result = { dir, database: 'sqlite', bytes: progress.totalPages * (db.pragma('page_size', { simple: true }) as number) };
    } finally {
      db.close();
    }
    chmodSync(target, 0o600);
  }

  const files = config.storage.kind === 'local' && existsSync(path.join(config.dataDir, 'files'));
  if (files) copyPrivate(path.join(config.dataDir, 'files'), path.join(dir, 'files'));
  const secrets = {} as Manifest['secrets'];
  for (const name of SECRETS) {
    const generated = config.secretSources[name] === 'generated' && existsSync(secretFile(config.dataDir, name));
    secrets[name] = generated ? 'included' : 'environment';
    if (!generated) continue;
    mkdirSync(path.join(dir, 'secrets'), { recursive: true, mode: 0o700 });
    writePrivate(secretFile(dir, name), readFileSync(secretFile(config.dataDir, name)));
  }
  const manifest: Manifest = {
    format: 1,
    created_at: new Date().toISOString(),
    database: result.database,
    files,
    secrets,
    secret_key_check: secretKeyCheck(config.secretKey),
  };
  writePrivate(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return result;
}

/**
 * Restores a backup into this deployment's DATA_DIR, which must hold no database and no stored
 * files yet (a restore never overwrites data). Secrets the backup carries replace the ones the
 * first start of an empty DATA_DIR generated (they protected nothing yet), unless the
 * environment sets them; either way SECRET_KEY must match the backup's or nothing is restored.
 */
export async function restore(config: Config, from: string): Promise<RestoreResult> {
  const dir = path.resolve(from);
  const manifestFile = path.join(dir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new Error(`${dir} is not a backup (no manifest.json)`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  if (manifest.format !== 1) throw new Error(`unknown backup format ${String(manifest.format)}`);
  if ((manifest.database === 'postgres') !== Boolean(config.databaseUrl)) {
    throw new Error(`the backup holds a ${manifest.database} database; this deployment uses ${config.databaseUrl ? 'postgres' : 'sqlite'}`);
  }
  const filesDir = path.join(config.dataDir, 'files');
  if (existsSync(sqliteFile(config.dataDir)) || (existsSync(filesDir) && readdirSync(filesDir).length > 0)) {
    throw new Error(`${config.dataDir} already holds data; restore into an empty DATA_DIR`);
  }

  const secretKey = config.secretSources.SECRET_KEY === 'environment' ? config.secretKey : (manifest.secrets.SECRET_KEY === 'included' ? readFileSync(secretFile(dir, 'SECRET_KEY'), 'utf8').trim() : config.secretKey);
  if (secretKeyCheck(secretKey) !== manifest.secret_key_check) {
    throw new Error('SECRET_KEY is not the one the backup was made with: its provider keys and webhook secrets would not open. Set SECRET_KEY to that key');
  }

  for (const name of SECRETS) {
    if (manifest.secrets[name] !== 'included' || config.secretSources[name] === 'environment') continue;
    mkdirSync(path.join(config.dataDir, 'secrets'), { recursive: true, mode: 0o700 });
    writeFileSync(secretFile(config.dataDir, name), readFileSync(secretFile(dir, name)), { mode: 0o600 });
    chmodSync(secretFile(config.dataDir, name), 0o600);
  }
  if (manifest.files) {
    if (existsSync(filesDir)) cpSync(path.join(dir, 'files'), filesDir, { recursive: true, errorOnExist: true, force: false });
    else copyPrivate(path.join(dir, 'files'), filesDir);
  }
  if (manifest.database === 'postgres') {
    return { dir, database: 'postgres', command: `pg_restore --no-owner --dbname="$DATABASE_URL" ${shellQuote(path.join(dir, 'database.pgdump'))}` };
  }
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(sqliteFile(config.dataDir), readFileSync(path.join(dir, 'app.sqlite')), { mode: 0o600, flag: 'wx' });
  return { dir, database: 'sqlite' };
}

function shellQuote(value: string): string {
  return /^[\w./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
