import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ADMIN_NEW_PASSWORD, describeOncePerCi, freshPostgresDatabase, startTestServer } from '../helpers/server.js';
import { runCli } from '../platform/process.js';
import { ok, workspaceWithProduct } from '../tasks/fixtures.js';

const PG_BASE = process.env.TEST_POSTGRES_URL || (/^postgres/.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : 'postgres://postgres@127.0.0.1:5432/postgres');

async function postgresAvailable(): Promise<boolean> {
  try {
    const db = await freshPostgresDatabase(PG_BASE);
    await db.drop();
    return true;
  } catch (err) {
    if (process.env.CI === 'true') throw err;
    process.stdout.write(`[backup] PostgreSQL at ${PG_BASE} unreachable (${String(err)}): skipping the pg_dump round trip\n`);
    return false;
  }
}

const cliEnv = (dataDir: string, extra: Record<string, string> = {}) => ({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra });

describeOncePerCi('cli backup', () => {
  it('SQLite: an online backup taken while the server writes restores every row', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-backup-'));
    const restoredDir = mkdtempSync(path.join(tmpdir(), 'cps-restore-'));
    const out = path.join(tmpdir(), `cps-backup-${process.pid}-${Date.now()}`);
    try {
      const server = await startTestServer({ dataDir, env: { DATABASE_URL: '' } });
      const names: string[] = [];
      try {
        const ws = await workspaceWithProduct(server);
        for (let i = 0; i < 5; i++) names.push((await ok(server, 'POST', '/products', ws.token, { name: `备份产品${i}`, category: 'c', source: 'custom' })).name);
        // Writes keep going while the backup runs: the copy is a consistent snapshot of one moment.
        let writing = true;
        const writer = (async () => {
          for (let i = 0; writing; i++) {
            await ok(server, 'POST', '/products', ws.token, { name: `并发${i}`, category: 'c', source: 'custom' });
            await new Promise((r) => setTimeout(r, 20));
          }
        })();
        const result = await runCli(['backup', '--out', out], cliEnv(dataDir));
        writing = false;
        await writer;
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        expect(result.stdout).toMatch(/backed up \d+ bytes/);
        // A second backup to the same directory is refused rather than overwriting it.
        const again = await runCli(['backup', '--out', out], cliEnv(dataDir));
        expect(again.code).toBe(1);
        expect(again.stderr).toMatch(/exists/);
      } finally {
        await server.close();
      }

      const restoredRun = await runCli(['restore', '--from', out], cliEnv(restoredDir));
      expect(restoredRun.stderr).toBe('');
      expect(restoredRun.code).toBe(0);
      const restored = await startTestServer({ dataDir: restoredDir, env: { DATABASE_URL: '' } });
      try {
        const login = await restored.request('POST', '/api/v1/auth/login', { body: { username: 'admin', password: ADMIN_NEW_PASSWORD } });
        expect(login.status).toBe(200);
        const rows = await restored.ctx.db.selectFrom('products').select('name').execute();
        const restoredNames = rows.map((p) => p.name);
        for (const name of names) expect(restoredNames).toContain(name);
        // Whatever the concurrent writer had committed is there, in one consistent piece.
        const concurrent = restoredNames.filter((n) => n.startsWith('并发')).map((n) => Number(n.slice(2))).sort((a, b) => a - b);
        expect(concurrent.length).toBeGreaterThan(0);
        expect(concurrent).toEqual(concurrent.map((_, i) => i));
      } finally {
        await restored.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(restoredDir, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
    // Three CLI processes and a server start and stop in turn: on a loaded machine that alone can
    // take most of the default 30 s.
  }, 90_000);

  it('refuses a missing --out', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-backup-'));
    try {
      const result = await runCli(['backup'], cliEnv(dataDir));
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--out DIR is required/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: prints a pg_dump command without the credentials, and that command round-trips', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cps-backup-'));
    const out = path.join(tmpdir(), `cps-pgdump-${process.pid}-${Date.now()}`);
    const dump = path.join(out, 'database.pgdump');
    try {
      const printed = await runCli(['backup', '--out', out], cliEnv(dataDir, { DATABASE_URL: 'postgres://cps:do-not-print-me@127.0.0.1:1/cps' }));
      expect(printed.code).toBe(0);
      expect(printed.stdout + printed.stderr).not.toContain('do-not-print-me');
      const command = printed.stdout.trim();
      expect(command).toBe(`pg_dump --format=custom --no-owner --file=${dump} "$DATABASE_URL"`);
      if (!(await postgresAvailable())) return;

      const source = await freshPostgresDatabase(PG_BASE);
      const target = await freshPostgresDatabase(PG_BASE);
      try {
        const server = await startTestServer({ env: { DATABASE_URL: source.url } });
        try {
          const ws = await workspaceWithProduct(server);
          await ok(server, 'POST', '/products', ws.token, { name: '转储产品', category: 'c', source: 'custom' });
        } finally {
          await server.close();
        }
        execFileSync('sh', ['-c', command], { env: { ...process.env, DATABASE_URL: source.url } });
        expect(existsSync(dump)).toBe(true);
        execFileSync('pg_restore', ['--no-owner', `--dbname=${target.url}`, dump]);
        const out = execFileSync('psql', [target.url, '-At', '-c', "select count(*) from products where name = '转储产品'"]).toString().trim();
        expect(out).toBe('1');
      } finally {
        await source.drop();
        await target.drop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  });
});
