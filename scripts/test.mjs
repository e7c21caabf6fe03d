// `npm test`: the server suite (API tests on SQLite, or on PostgreSQL when DATABASE_URL says
// so), then the web client's tests. Stops at the first failing part and exits non-zero.
import { spawnSync } from 'node:child_process';

const parts = [
  ['server', ['run', 'test', '-w', 'server']],
  ['web', ['run', 'test', '-w', 'web']],
];

const db = /^postgres/.test(process.env.DATABASE_URL ?? '') ? 'PostgreSQL' : 'SQLite';
for (const [name, args] of parts) {
  process.stdout.write(`\n=== ${name} tests (database: ${db}) ===\n`);
  const result = spawnSync('npm', args, { stdio: 'inherit', env: process.env });
  if (result.status !== 0) {
    process.stdout.write(`\n${name} tests failed\n`);
    process.exit(result.status ?? 1);
  }
}
