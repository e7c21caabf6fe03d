import { APIError } from 'openai';
import { MessageChannel } from 'node:worker_threads';
import type { NormalizedImage, NormalizeOptions } from '../images/normalize.js';
import { imageOf, runInImageThread, type ThreadImage } from '../images/threads.js';
import { redirectRefused } from '../security/ssrf.js';
import type { ThreadReply } from './image-reply-thread.js';

/**
 * What an OpenAI-style image reply holds: the image itself (b64_json), still being normalised
 * when the reply resolves; a link to it; or neither.
 */
export type ImageReply = { image: Promise<NormalizedImage> } | { url: string } | { invalid: string };

const THREAD = new URL('./image-reply-thread.js', import.meta.url);

/**
 * POSTs an image generation request from an image thread (image-reply-thread.ts, images/threads.ts)
 * and resolves as soon as the provider has answered: an image is then normalised in that thread
 * (`image`, rejecting with InvalidImageError when it is none) while the caller already frees its
 * provider slot. Error statuses become the OpenAI SDK's APIError, exactly as the SDK would raise
 * them, so retries and error kinds stay decided in one place (reliability.ts).
 */
export async function fetchImageReply(request: { url: string; apiKey: string; body: unknown; signal: AbortSignal; size: NormalizeOptions }): Promise<ImageReply> {
  const headers = { authorization: `Bearer ${request.apiKey}`, 'content-type': 'application/json', accept: 'application/json' };
  // Not piscina's own `signal`: it aborts a task by ending its whole thread, so it runs such
  // tasks one per thread. The request is aborted inside the thread through a port instead, which
  // also says when the reply is in.
  request.signal.throwIfAborted();
  const { port1: port, port2 } = new MessageChannel();
  const onAbort = () => port.postMessage('abort');
  request.signal.addEventListener('abort', onAbort, { once: true });
  const received = new Promise<'received'>((resolve) => port.once('message', () => resolve('received')));
  const task = runInImageThread<ThreadReply>(THREAD, 'fetchImage', { url: request.url, headers, body: JSON.stringify(request.body), port: port2, size: request.size }, [port2]);
  let first: ThreadReply | 'received';
  try {
    first = await Promise.race([task, received]);
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    port.close();
  }
  if (first === 'received' || first instanceof Uint8Array || 'invalid' in first) {
    const image = task.then((reply) => imageOf(reply as ThreadImage, request.size));
    // Awaited by the caller once its slot is free; until then a rejection is not unhandled.
    image.catch(() => undefined);
    return { image };
  }
  if ('status' in first) {
    let json: object | undefined;
    try {
      json = JSON.parse(first.text) as object;
    } catch {
      json = undefined;
    }
    // Bodies without an `error` object (SiliconFlow's {code, message}) are wrapped so their code reaches errors.ts.
    const body = json && !('error' in json && typeof (json as { error: unknown }).error === 'object') ? { error: json } : json;
    throw APIError.generate(first.status, body, json ? undefined : first.text, new Headers(first.headers));
  }
  if ('redirect' in first) throw redirectRefused(first.redirect);
  if ('noImage' in first) return { invalid: first.noImage };
  return first;
}
