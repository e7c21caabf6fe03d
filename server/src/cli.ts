import { parseArgs } from 'node:util';
import type { Config } from './config.js';
import type { Role } from './db/schema.js';
import { createRuntime } from './runtime.js';
import { backup as makeBackup, restore as restoreBackup } from './ops/backup.js';
import { createUser, resetPasswordByUsername } from './modules/users/service.js';
import { findWorkspaceBySlug } from './modules/workspaces/repository.js';
import { USERNAME_PATTERN } from './modules/users/routes.js';
import { generatePassword } from './security/passwords.js';

const USAGE = `usage:
  npm run cli -- create-user --username NAME --email EMAIL [--role admin|supervisor|operator] [--workspace SLUG] [--password PW]
  npm run cli -- reset-password --username NAME [--password PW]
  npm run cli -- backup --out DIR
  npm run cli -- restore --from DIR
A password that is not given is generated and printed; the user must change it at next login.
backup: a new directory with the database (SQLite online; for PostgreSQL the pg_dump command is
printed), the stored files, the generated secrets and a manifest (docs/deploy.md).
restore: into an empty DATA_DIR, refused unless SECRET_KEY is the backup's.`;

function parseOptions(args: string[]) {
  return parseArgs({
    args,
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string', default: 'operator' },
      workspace: { type: 'string', default: 'default' },
      password: { type: 'string' },
      out: { type: 'string' },
      from: { type: 'string' },
    },
    strict: true,
  }).values;
}

function argumentProblem(command: string, values: ReturnType<typeof parseOptions>, password: string): string | undefined {
  if (password.length < 10) return 'the password must have at least 10 characters';
  if (command !== 'create-user') return undefined;
  if (!new RegExp(USERNAME_PATTERN).test(values.username!)) return '--username must be 3-64 letters, digits, _ . @ -';
  if (!/^[^\s@]+@[^\s@]+$/.test(values.email ?? '')) return '--email is required and must be an email address';
  if (!['admin', 'supervisor', 'operator'].includes(values.role!)) return '--role must be admin, supervisor or operator';
  return undefined;
}

export async function runCli(config: Config, argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  let values: ReturnType<typeof parseOptions>;
  try {
    values = parseOptions(rest);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    return 2;
  }
  if (command === 'backup') return backup(config, values.out);
  if (command === 'restore') return restore(config, values.from);
  if (command !== 'create-user' && command !== 'reset-password') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (!values.username) {
    process.stderr.write(`--username is required\n${USAGE}\n`);
    return 2;
  }
  // Arguments are checked before the database is opened, so a typo fails fast.
  const password = values.password ?? generatePassword();
  const problem = argumentProblem(command, values, password);
  if (problem) {
    process.stderr.write(`error: ${problem}\n`);
    return 2;
  }
  const runtime = await createRuntime(config);
  try {
    if (command === 'create-user') {
      const workspace = await findWorkspaceBySlug(runtime.ctx.db, values.workspace!);
      if (!workspace) throw new Error(`no workspace with slug "${values.workspace}" (a new database gets "default" at the first start)`);
      await createUser(runtime.ctx, {
        username: values.username,
        email: values.email!,
        password,
        role: values.role as Role,
        workspaceId: workspace.id,
      });
      process.stdout.write(`created ${values.role} "${values.username}" in workspace ${workspace.slug}\n`);
    } else {
      await resetPasswordByUsername(runtime.ctx, values.username, password);
      process.stdout.write(`password of "${values.username}" reset; a change is required at next login\n`);
    }
    if (!values.password) process.stdout.write(`password: ${password}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await runtime.close();
  }
}

async function backup(config: Config, out: string | undefined): Promise<number> {
  if (!out) {
    process.stderr.write(`--out DIR is required\n${USAGE}\n`);
    return 2;
  }
  try {
    const result = await makeBackup(config, out);
    if (result.database === 'postgres') {
      process.stderr.write(`files, secrets and manifest written to ${result.dir}; PostgreSQL is dumped with its own tool (docs/deploy.md); run, with DATABASE_URL set:\n`);
      process.stdout.write(`${result.command}\n`);
    } else {
      process.stdout.write(`backed up ${result.bytes} bytes of the SQLite database, the stored files and the secrets to ${result.dir}\n`);
    }
    return 0;
  } catch (err) {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

async function restore(config: Config, from: string | undefined): Promise<number> {
  if (!from) {
    process.stderr.write(`--from DIR is required\n${USAGE}\n`);
    return 2;
  }
  try {
    const result = await restoreBackup(config, from);
    if (result.database === 'postgres') {
      process.stderr.write(`files and secrets restored into ${config.dataDir}; restore the database into an empty one with DATABASE_URL set:\n`);
      process.stdout.write(`${result.command}\n`);
    } else {
      process.stdout.write(`restored ${result.dir} into ${config.dataDir}; start the service (it migrates forward)\n`);
    }
    return 0;
  } catch (err) {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
