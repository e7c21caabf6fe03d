// `npm test`: the server suite (API tests on SQLite, or on PostgreSQL when DATABASE_URL says
// so), then the web client's tests. Every part runs even when an earlier one failed; the last
// line is a plain `N passed, N failed` summed over all parts, and the exit code is non-zero when
// anything failed or a part produced no results (it crashed before reporting). Extra arguments
// (`npm test -- test/platform`) are handed to every part's vitest as filters.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// TEST_PARTS picks parts by id (`TEST_PARTS=server`: CI's PostgreSQL pass repeats what talks to
// the database, and the web client's tests never do); TEST_BROWSER=0 leaves out the browser tests,
// which drive the whole stack and run once, in the SQLite pass.
const wanted = process.env.TEST_PARTS?.split(',').map((id) => id.trim());
const parts = [
  { id: 'server', name: 'server', workspace: 'server', script: 'test' },
  { id: 'web', name: 'web', workspace: 'web', script: 'test:unit' },
  ...(process.env.TEST_BROWSER === '0' ? [] : [{ id: 'browser', name: 'web browser', workspace: 'web', script: 'test:e2e' }]),
].filter((part) => !wanted || wanted.includes(part.id));
const filters = process.argv.slice(2);
const db = /^postgres/.test(process.env.DATABASE_URL ?? '') ? 'PostgreSQL' : 'SQLite';
const reportDir = mkdtempSync(path.join(tmpdir(), 'cps-test-report-'));
const totals = { passed: 0, failed: 0, skipped: 0 };
const broken = [];

for (const { name, workspace, script } of parts) {
  process.stdout.write(`\n=== ${name} tests (database: ${db}) ===\n`);
  const report = path.join(reportDir, `${name.replace(/\W/g, '-')}.json`);
  const result = spawnSync(
    'npm',
    ['run', script, '-w', workspace, '--', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...filters, ...(filters.length ? ['--passWithNoTests'] : [])],
    { stdio: 'inherit', env: process.env },
  );
  if (!existsSync(report)) {
    broken.push(`${name} (exit ${result.status ?? result.signal}, no test report)`);
    continue;
  }
  const summary = JSON.parse(readFileSync(report, 'utf8'));
  totals.passed += summary.numPassedTests;
  totals.failed += summary.numFailedTests;
  totals.skipped += summary.numPendingTests + summary.numTodoTests;
  // A file that fails to load counts as a failed suite, not as a failed test.
  const failedFiles = summary.testResults.filter((file) => file.status === 'failed' && file.assertionResults.length === 0);
  if (failedFiles.length > 0 || (result.status !== 0 && summary.numFailedTests === 0)) {
    broken.push(`${name} (${failedFiles.length || 'some'} test file(s) failed to run)`);
  }
}
rmSync(reportDir, { recursive: true, force: true });

process.stdout.write(`\n=== summary (database: ${db}) ===\n`);
if (totals.skipped > 0) process.stdout.write(`${totals.skipped} skipped\n`);
for (const part of broken) process.stdout.write(`broken: ${part}\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed\n`);
process.exit(totals.failed > 0 || broken.length > 0 ? 1 : 0);
