// What every worker thread of this server shares: how it loads the server's modules and how it
// makes way for the event loop. Plain JavaScript because it must load before any TypeScript can.
import { existsSync, readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * Loads a module of this server inside a worker thread: the built server imports the compiled
 * module; from sources (tsx, vitest) the .ts beside it goes through tsx's CommonJS loader, the
 * only one Node 20 runs inside a worker thread (module.register hooks do not apply there, and
 * vitest's transform never does).
 * @param {string} href the file URL of a module, as its compiled `.js` is named
 */
export async function loadServerModule(href) {
  if (existsSync(fileURLToPath(href))) return import(href);
  const { require } = await import('tsx/cjs/api');
  return require(fileURLToPath(href.replace(/\.js$/, '.ts')), import.meta.url);
}

/**
 * Everything a process runs beside its event loop is background work: the job thread, the image
 * threads, libvips' pixel threads, libuv's pool (where sharp's pipelines and file writes run)
 * and V8's helpers. On Linux, where a nice value belongs to one thread, every thread of the
 * process but the main one (the event loop's, which answers the API) runs at nice 10, so the
 * event loop gets a core first whenever it wants one (bench/responsive: busy p99 about halved
 * with the image threads and libvips' at nice 10; lower again in 7 of 10 alternating pairs with
 * the rest too). Elsewhere the call would renice the whole process, so it is not made.
 */
const NICE = 10;
const LINUX = process.platform === 'linux';
const reniced = new Set([String(process.pid)]);

/** Lowers the calling thread (a worker thread: never the main one). */
export function lowerThisThread() {
  if (LINUX) setPriority(0, NICE);
}

/** Lowers every thread of the process but the main one; each is lowered once, when first seen. */
export function lowerBackgroundThreads() {
  if (!LINUX) return;
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
