import { cpSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const serverDir = path.resolve(import.meta.dirname, '..');

/**
 * Transpiles the server once per test run for the processes tests spawn (helpers/service-entry):
 * through tsx each spawn transformed and loaded every module again, and its job thread did the same
 * through tsx's CommonJS loader. A directory per run, so two runs side by side never share one; two
 * levels below the repository root like `dist/`, where the server finds the console's build.
 */
export default async function setup(): Promise<() => void> {
  const out = path.join(serverDir, `.test-build-${process.pid}`);
  await build({
    entryPoints: ['src/**/*.ts'],
    absWorkingDir: serverDir,
    outbase: 'src',
    outdir: out,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  // The thread entries are plain JavaScript already.
  const src = path.join(serverDir, 'src');
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.mjs'))) cpSync(path.join(src, file), path.join(out, file));
  process.env.CPS_TEST_SERVICE_BUILD = out;
  return () => rmSync(out, { recursive: true, force: true });
}
