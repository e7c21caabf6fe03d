// Entry of the image threads (threads.ts): runs a named export of one of this server's modules.
// Plain JavaScript because it must load before any TypeScript can: the built server imports the
// compiled module; from sources (tsx, vitest) the .ts beside it goes through tsx's CommonJS
// loader, the only one Node 20 runs inside a worker thread (module.register hooks do not apply
// there, and vitest's transform never does).
import { existsSync, readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * Image work is background work, and so is everything else a process runs beside its event
 * loop. On Linux, where a nice value belongs to one thread, every thread of the process but the
 * main one (the event loop's) runs at nice 10: this thread, libvips' pixel threads, libuv's
 * pool (where sharp's pipelines and file writes run) and V8's helpers (which collect the image
 * threads' heaps). The event loop then gets a core first whenever it wants one (bench/responsive:
 * busy p99 about halved with this thread and libvips' at nice 10; lower again in 7 of 10
 * alternating pairs with the rest too). Elsewhere the call would renice the whole process, so
 * it is not made.
 */
const NICE = 10;
const LINUX = process.platform === 'linux';
if (LINUX) setPriority(0, NICE);
const reniced = new Set([String(process.pid)]);

/** Threads start when they are first needed; each is lowered once, when first seen after an image task. */
function lowerBackgroundThreads() {
  for (const tid of readdirSync('/proc/self/task')) {
    if (reniced.has(tid)) continue;
    try {
      setPriority(Number(tid), NICE);
      reniced.add(tid);
    } catch {
      // The thread ended meanwhile.
    }
  }
}

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
  try {
    return await exports[name](args);
  } finally {
    if (LINUX) lowerBackgroundThreads();
  }
}
