// Entry of the image threads (threads.ts): runs a named export of one of this server's modules.
import { loadServerModule, lowerBackgroundThreads, lowerThisThread } from '../threads/background.mjs';

lowerThisThread();

/** @type {Map<string, Promise<Record<string, (args: unknown) => unknown>>>} */
const modules = new Map();

/**
 * @param {{ module: string, name: string, args: unknown }} task
 *   `module`: the file URL of a module, as its compiled `.js` is named
 */
export default async function run({ module, name, args }) {
  let loading = modules.get(module);
  if (!loading) modules.set(module, (loading = loadServerModule(module)));
  const exports = await loading;
  try {
    return await exports[name](args);
  } finally {
    // Threads start when they are first needed (libvips', libuv's): lowered when first seen after an image task.
    lowerBackgroundThreads();
  }
}
