/**
 * `npm run lint:openapi`: the served OpenAPI document through Redocly's recommended ruleset
 * (redocly.yaml) and Spectral's oas ruleset (.spectral.yaml); a single warning of either fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenapiDocument } from './openapi.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (name: string) => {
  const file = path.join(root, 'node_modules', '.bin', name);
  if (!existsSync(file)) throw new Error(`${name} is not installed: run npm ci (package.json has @redocly/cli and @stoplight/spectral-cli)`);
  return file;
};
const dir = mkdtempSync(path.join(tmpdir(), 'cps-openapi-lint-'));
let failed = false;
try {
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(await buildOpenapiDocument(), null, 2));

  // Redocly exits 1 on errors only: its JSON report counts the warnings too.
  const redocly = JSON.parse(
    execFileSync(bin('redocly'), ['lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'json'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
  ) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
  for (const problem of redocly.problems) console.error(`redocly ${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer ?? ''})`);
  console.log(`redocly (recommended): ${redocly.totals.errors} errors, ${redocly.totals.warnings} warnings`);
  failed ||= redocly.totals.errors + redocly.totals.warnings > 0;

  try {
    execFileSync(bin('spectral'), ['lint', file, '--ruleset', path.join(root, '.spectral.yaml'), '--fail-severity', 'warn', '--format', 'text'], { cwd: root, stdio: 'inherit' });
    console.log('spectral (oas): 0 warnings');
  } catch {
    failed = true;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failed) process.exit(1);
