import type { MessagePort } from 'node:worker_threads';
import { normalizeImage, type NormalizeOptions } from '../images/normalize.js';
import { answer } from '../images/thread-tasks.js';
import type { ThreadImage } from '../images/threads.js';

/**
 * Runs in an image thread (image-reply.ts). An image model answers several megabytes of
 * JSON-wrapped base64: receiving, parsing, decoding and normalising it here keeps that work, the
 * garbage it leaves and the image's bytes themselves off the event loop that answers the API.
 */

/** How much of an error body travels back: enough for the provider's code and message. */
const ERROR_BODY_LIMIT = 4096;

export type ThreadReply = ThreadImage | { url: string } | { noImage: string } | { redirect: number } | { status: number; headers: Record<string, string>; text: string };

/**
 * POSTs an image request and reads its reply. `port` receives a message when the caller gives up
 * (its deadline or a cancel), and says 'received' once the provider has answered an image, before
 * it is normalised: the provider's part is over and the caller frees its slot.
 */
export async function fetchImage({ url, headers, body, port, size }: { url: string; headers: Record<string, string>; body: string; port: MessagePort; size: NormalizeOptions }): Promise<ThreadReply> {
  const controller = new AbortController();
  port.once('message', () => controller.abort());
  try {
    // Only the deployment's own endpoints come here (any address is theirs to use), but a
    // redirect would still carry the key to wherever it points: never followed.
    const response = await fetch(url, { method: 'POST', headers, body, signal: controller.signal, redirect: 'manual' });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      return { redirect: response.status };
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (!response.ok) {
      return { status: response.status, headers: Object.fromEntries(response.headers), text: new TextDecoder().decode(bytes.subarray(0, ERROR_BODY_LIMIT)) };
    }
    let reply: { data?: Array<{ b64_json?: unknown; url?: unknown }>; images?: Array<{ b64_json?: unknown; url?: unknown }> };
    try {
      reply = JSON.parse(new TextDecoder().decode(bytes)) as typeof reply;
    } catch {
      return { noImage: 'not JSON' };
    }
    const first = reply?.data?.[0] ?? reply?.images?.[0];
    if (typeof first?.b64_json === 'string') {
      const image = Buffer.from(first.b64_json, 'base64');
      port.postMessage('received');
      return await answer(() => normalizeImage(image, size));
    }
    if (typeof first?.url === 'string') return { url: first.url };
    return { noImage: 'no b64_json or url' };
  } finally {
    port.close();
  }
}
