// Entry of the image threads (threads.ts): runs a named export of one of this server's modules.
// Plain JavaScript because it must load before any TypeScript can: the built server imports the
// compiled module; from sources (tsx, vitest) the .ts beside it goes through tsx's CommonJS
// loader, the only one Node 20 runs inside a worker thread (module.register hooks do not apply
// there, and vitest's transform never does).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** @type {Map<string, Promise<Record<string, (args: unknown) => unknown>>>} */
const modules = new Map();

/** @param {string} href */
async function load(href) {
  if (existsSync(fileURLToPath(href))) return import(href);
  const { require } = await import('tsx/cjs/api');
  return require(fileURLToPath(href.replace(/\.js$/, '.ts')), import.meta.url);
}

/**
 * @param {{ module: string, name: string, args: unknown }} task
 *   `module`: the file URL of a module, as its compiled `.js` is named
 */
export default async function run({ module, name, args }) {
  let loading = modules.get(module);
  if (!loading) modules.set(module, (loading = load(module)));
  const exports = await loading;
  return exports[name](args);
}
