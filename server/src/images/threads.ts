// sharp's shared libraries must be loaded by the main thread before a worker loads them, so that
// they stay loaded when a thread ends (sharp's documentation, "Worker threads", glibc Linux).
import 'sharp';
import { MessageChannel, type TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { DEFAULT_HEIGHT, DEFAULT_WIDTH, InvalidImageError, type NormalizedImage, type NormalizeOptions } from './normalize.js';
import type { overlayText } from './overlay.js';

let pool: Piscina | undefined;
const MAX_THREADS = 2;

/**
 * Runs `name`, exported by `module`, in one of the image threads. Image work left on the event
 * loop delays every request of the process by tens of milliseconds: sharp's handling of each
 * multi-megabyte input and output, the lettering, and above all the collections the buffers'
 * garbage triggers (docs/performance.md, "Responsive all-in-one process"). In a thread the bytes
 * of a provider's image never reach the main thread at all (providers/image-reply.ts), and only
 * the finished JPEG of a normalisation or lettering does, moved rather than copied.
 *
 * Two threads at most (two cores; sharp's pipelines run on libuv's shared pool anyway), started
 * on first use and ended after a minute idle. Each runs many tasks at once: a task mostly waits
 * on libuv or on a provider, and how many run is bounded by the callers (provider slots, image
 * pools), so a task never queues here while its deadline runs. Piscina's default blocks an idle
 * thread in Atomics.wait, which would freeze the tasks still waiting in it.
 */
export function runInImageThread<T>(module: URL, name: string, args: unknown, transferList: TransferListItem[] = []): Promise<T> {
  pool ??= new Piscina({
    filename: new URL('./thread.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: MAX_THREADS,
    concurrentTasksPerWorker: 64,
    atomics: 'disabled',
    idleTimeout: 60_000,
  });
  return pool.run({ module: module.href, name, args }, { transferList }) as Promise<T>;
}

/**
 * Starts the threads and loads the image code in them ahead of need: a thread takes a quarter to
 * half a second to start and load sharp, resvg and the fonts' code (more from sources under tsx),
 * which the first images would otherwise wait for. A generation calls this as it starts; its
 * texts take longer than that. Tasks queued on a cold pool start every thread at once.
 */
export function warmImageThreads(): void {
  for (let i = 0; i < MAX_THREADS; i++) void runInImageThread(TASKS, 'ready', undefined).catch(() => undefined);
}

/** Ends the threads once their tasks are done (graceful shutdown). */
export async function closeImageThreads(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.close();
}

/** What a thread answers for an image (thread-tasks.ts): its bytes, or why they are not an image. */
export type ThreadImage = Uint8Array | { invalid: string };

/** The thread's answer as normalizeImage's result, or its InvalidImageError. */
export function imageOf(reply: ThreadImage, opts: NormalizeOptions = {}): NormalizedImage {
  if (!(reply instanceof Uint8Array)) throw new InvalidImageError(reply.invalid);
  return {
    data: Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength),
    mime: opts.format === 'png' ? 'image/png' : 'image/jpeg',
    width: opts.width ?? DEFAULT_WIDTH,
    height: opts.height ?? DEFAULT_HEIGHT,
  };
}

const TASKS = new URL('./thread-tasks.js', import.meta.url);

/** normalizeImage in an image thread; `input` is handed over (detached when it owns its memory). */
export async function normalizeImageInThread(input: Buffer, opts: NormalizeOptions = {}): Promise<NormalizedImage> {
  return imageOf(await runInImageThread<ThreadImage>(TASKS, 'normalize', { input, opts }, transferable(input)), opts);
}

/** overlayText in an image thread; `text` and `opts` travel as they are (structured clone). */
export async function overlayTextInThread(input: Buffer, text: Parameters<typeof overlayText>[1], opts: Parameters<typeof overlayText>[2] = {}): Promise<NormalizedImage> {
  return imageOf(await runInImageThread<ThreadImage>(TASKS, 'overlay', { input, text, opts }, transferable(input)), opts);
}

/** A port that takes nothing in: what is moved to it is detached and dropped (releaseImage). */
const sink = new MessageChannel().port1;
sink.close();

/**
 * Frees an image's memory now instead of at a later garbage collection, leaving `data` empty:
 * for bytes nothing else holds, once they are stored. Image bytes on the main thread count as
 * V8's external memory, and tens of megabytes of them waiting for a collection make V8 run full
 * collections of the whole heap, each pausing the event loop 30-70 ms while tasks generate
 * (docs/performance.md, "Responsive all-in-one process"). Moved to a closed port, a buffer is
 * detached and its memory freed at once (ArrayBuffer.prototype.transfer, which says so directly,
 * needs Node 21). A slice of a shared pool is left alone.
 */
export function releaseImage(data: Buffer): void {
  const owned = transferable(data);
  if (owned.length > 0) sink.postMessage(null, owned);
}

/** A buffer that owns its memory moves to the thread; a slice of a shared pool is copied. */
function transferable(data: Buffer): TransferListItem[] {
  return data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer ? [data.buffer] : [];
}
