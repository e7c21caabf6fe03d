/**
 * Bundle sizes of the web client per page (the JavaScript a first visit to that page loads),
 * from a fresh production build. Prints a table and writes bench/out/web-bundles.json.
 * Run: node --import tsx bench/web/run.ts   (or: npm run bench -w web)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error plain ESM helper shared with the e2e budget check
import { routeSizes } from '../../web/scripts/bundle-sizes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const LOGIN_BUDGET_GZIP = 300 * 1024;

execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: path.join(root, 'web'), stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
const sizes = routeSizes(path.join(root, 'web', 'dist')) as {
  entry: { raw: number; gzip: number };
  routes: { route: string; total: { raw: number; gzip: number }; beyondEntry: { raw: number; gzip: number } }[];
};

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
console.log(`entry (shared by every page): ${kb(sizes.entry.raw)} raw, ${kb(sizes.entry.gzip)} gzip`);
console.log(['page'.padEnd(22), 'total gzip'.padStart(12), 'beyond entry'.padStart(14)].join(' '));
for (const r of sizes.routes) {
  console.log([r.route.padEnd(22), kb(r.total.gzip).padStart(12), kb(r.beyondEntry.gzip).padStart(14)].join(' '));
}
const login = sizes.routes.find((r) => r.route === 'LoginPage');
if (login) {
  console.log(`\nlogin page: ${kb(login.total.gzip)} gzip of a ${kb(LOGIN_BUDGET_GZIP)} budget (ratio ${(login.total.gzip / LOGIN_BUDGET_GZIP).toFixed(2)})`);
}
mkdirSync(path.join(root, 'bench', 'out'), { recursive: true });
writeFileSync(path.join(root, 'bench', 'out', 'web-bundles.json'), `${JSON.stringify({ at: new Date().toISOString(), ...sizes }, null, 2)}\n`);
if (login && login.total.gzip > LOGIN_BUDGET_GZIP) process.exitCode = 1;
