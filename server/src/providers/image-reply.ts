import { APIError } from 'openai';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';

/** What an OpenAI-style image reply holds: the image itself (b64_json), a link to it, or neither. */
export type ImageReply = { image: Buffer } | { url: string } | { invalid: string };

type WorkerReply = Uint8Array | { url: string } | { invalid: string } | { status: number; headers: Record<string, string>; text: string };

let pool: Piscina | undefined;

/**
 * POSTs an image generation request from a worker thread (image-reply-worker.mjs) and returns
 * what it answered. Error statuses become the OpenAI SDK's APIError, exactly as the SDK would
 * raise them, so retries and error kinds stay decided in one place (reliability.ts).
 *
 * Two threads at most, started on first use and ended after a minute idle. Each thread runs
 * many requests at once: a request mostly waits on the provider, and how many run is already
 * bounded by the provider's concurrency slots, so a request never queues here while its
 * attempt's deadline runs.
 */
export async function fetchImageReply(request: { url: string; apiKey: string; body: unknown; signal: AbortSignal }): Promise<ImageReply> {
  pool ??= new Piscina({
    filename: new URL('./image-reply-worker.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: 2,
    concurrentTasksPerWorker: 64,
    // Piscina's default blocks an idle thread in Atomics.wait, which would freeze the requests
    // still waiting on their providers in that thread.
    atomics: 'disabled',
    idleTimeout: 60_000,
  });
  const headers = { authorization: `Bearer ${request.apiKey}`, 'content-type': 'application/json', accept: 'application/json' };
  // Not piscina's own `signal`: it aborts a task by ending its whole thread, so it runs such
  // tasks one per thread. The request is aborted inside the thread through a port instead.
  request.signal.throwIfAborted();
  const { port1: abort, port2: aborted } = new MessageChannel();
  const onAbort = () => abort.postMessage('abort');
  request.signal.addEventListener('abort', onAbort, { once: true });
  let reply: WorkerReply;
  try {
    reply = (await pool.run({ url: request.url, headers, body: JSON.stringify(request.body), abort: aborted }, { transferList: [aborted] })) as WorkerReply;
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    abort.close();
  }
  if (reply instanceof Uint8Array) return { image: Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength) };
  if ('status' in reply) {
    let json: object | undefined;
    try {
      json = JSON.parse(reply.text) as object;
    } catch {
      json = undefined;
    }
    // Bodies without an `error` object (SiliconFlow's {code, message}) are wrapped so their code reaches errors.ts.
    const body = json && !('error' in json && typeof (json as { error: unknown }).error === 'object') ? { error: json } : json;
    throw APIError.generate(reply.status, body, json ? undefined : reply.text, new Headers(reply.headers));
  }
  return reply;
}

/** Ends the worker threads (graceful shutdown). */
export async function closeImageReplyPool(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.destroy();
}
