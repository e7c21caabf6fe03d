import { APIError } from 'openai';
import { Piscina } from 'piscina';

/** What an OpenAI-style image reply holds: the image itself (b64_json), a link to it, or neither. */
export type ImageReply = { image: Buffer } | { url: string } | { invalid: string };

type WorkerReply = Uint8Array | { url: string } | { invalid: string } | { status: number; headers: Record<string, string>; text: string };

let pool: Piscina | undefined;

/**
 * POSTs an image generation request from a worker thread (image-reply-worker.mjs) and returns
 * what it answered. Error statuses become the OpenAI SDK's APIError, exactly as the SDK would
 * raise them, so retries and error kinds stay decided in one place (reliability.ts). Two
 * threads at most, started on first use and ended when idle.
 */
export async function fetchImageReply(request: { url: string; apiKey: string; body: unknown; signal: AbortSignal }): Promise<ImageReply> {
  pool ??= new Piscina({
    filename: new URL('./image-reply-worker.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: 2,
    idleTimeout: 10_000,
  });
  const headers = { authorization: `Bearer ${request.apiKey}`, 'content-type': 'application/json', accept: 'application/json' };
  const reply = (await pool.run({ url: request.url, headers, body: JSON.stringify(request.body) }, { signal: request.signal })) as WorkerReply;
  if (reply instanceof Uint8Array) return { image: Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength) };
  if ('status' in reply) {
    let json: object | undefined;
    try {
      json = JSON.parse(reply.text) as object;
    } catch {
      json = undefined;
    }
    throw APIError.generate(reply.status, json, json ? undefined : reply.text, new Headers(reply.headers));
  }
  return reply;
}

/** Ends the worker threads (graceful shutdown). */
export async function closeImageReplyPool(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.destroy();
}
