// Entry of `npm start`, `npm run api|worker|migrate|cli`: builds whatever is missing or older
// than its sources, then runs the server with the requested role in this same process.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

function buildIfStale(name, output, sources, env = process.env) {
  const outputTime = existsSync(output) ? statSync(output).mtimeMs : 0;
  const sourceTime = Math.max(...sources.filter(existsSync).map((s) => (statSync(s).isDirectory() ? newestMtime(s) : statSync(s).mtimeMs)));
  if (outputTime >= sourceTime) return;
  process.stderr.write(`building ${name}…\n`);
  try {
    execFileSync('npm', ['run', 'build', '-w', name], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  } catch {
    // The compiler already printed why; a stack trace of this script would only bury it.
    process.stderr.write(`\nbuilding ${name} failed (see above); not starting\n`);
    process.exit(1);
  }
}

buildIfStale('server', path.join(root, 'server/dist/main.js'), [path.join(root, 'server/src')]);
if (existsSync(path.join(root, 'web/package.json'))) {
  // The console is served as a production build whatever the server runs as: Vite builds in the
  // process's NODE_ENV when one is set, and under `test` or `development` that is React's
  // development build (a third larger, and slower).
  const sources = [path.join(root, 'web/src'), path.join(root, 'web/index.html'), path.join(root, 'web/vite.config.ts')];
  buildIfStale('web', path.join(root, 'web/dist/index.html'), sources, { ...process.env, NODE_ENV: 'production' });
}

// A fresh `npm start` is a ready-to-try demo: the offline `local` provider in a Demo workspace.
if (process.env.DEMO_DATA === undefined && process.env.NODE_ENV !== 'production') process.env.DEMO_DATA = '1';

await import(pathToFileURL(path.join(root, 'server/dist/main.js')).href);
