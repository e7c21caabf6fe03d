import { move } from 'piscina';
import { InvalidImageError, normalizeImage, type NormalizedImage, type NormalizeOptions } from './normalize.js';
import { overlayText } from './overlay.js';
import type { ThreadImage } from './threads.js';

/** The image work that runs in the image threads (threads.ts), with its arguments as they arrive. */

/** Nothing: loading this module (sharp, resvg, the fonts) is the work (warmImageThreads). */
export function ready(): void {}

export function normalize({ input, opts }: { input: Uint8Array; opts: NormalizeOptions }): Promise<ThreadImage> {
  return answer(() => normalizeImage(asBuffer(input), opts));
}

export function overlay({ input, text, opts }: { input: Uint8Array; text: Parameters<typeof overlayText>[1]; opts: Parameters<typeof overlayText>[2] }): Promise<ThreadImage> {
  return answer(() => overlayText(asBuffer(input), text, opts));
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The image's bytes, moved to the caller; InvalidImageError as a value, since an error's class
 * does not survive the trip between threads.
 */
export async function answer(work: () => Promise<NormalizedImage>): Promise<ThreadImage> {
  let image: NormalizedImage;
  try {
    image = await work();
  } catch (err) {
    if (err instanceof InvalidImageError) return { invalid: err.message };
    throw err;
  }
  // sharp's output lives in memory of its own that cannot be handed over: one copy here, in
  // the thread, and none on the caller's side.
  return move(new Uint8Array(image.data)) as Uint8Array;
}
