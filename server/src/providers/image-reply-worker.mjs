// Runs in a worker thread (piscina, see image-reply.ts). An image model answers several megabytes
// of JSON-wrapped base64; receiving, decoding and parsing it here keeps that work, and the garbage
// it leaves, off the event loop that answers the API. Plain JavaScript so the same file loads
// under tsx, vitest and the built server alike.
import { move } from 'piscina';

/** How much of an error body travels back: enough for the provider's code and message. */
const ERROR_BODY_LIMIT = 4096;

/**
 * POSTs an image request and reads its reply.
 * @param {{ url: string, headers: Record<string, string>, body: string, abort: import('node:worker_threads').MessagePort }} request
 *   `abort` receives a message when the caller gives up (its deadline or a cancel)
 * @returns {Promise<Uint8Array | { url: string } | { invalid: string } | { status: number, headers: Record<string, string>, text: string }>}
 *   the image's bytes, its link, why neither, or an error status with the start of its body
 */
export default async function fetchImageReply({ url, headers, body, abort }) {
  const controller = new AbortController();
  abort.once('message', () => controller.abort());
  try {
    return await read(await fetch(url, { method: 'POST', headers, body, signal: controller.signal }));
  } finally {
    abort.close();
  }
}

/** @param {Response} response */
async function read(response) {
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (!response.ok) {
    return { status: response.status, headers: Object.fromEntries(response.headers), text: new TextDecoder().decode(bytes.subarray(0, ERROR_BODY_LIMIT)) };
  }
  let reply;
  try {
    reply = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { invalid: 'not JSON' };
  }
  const first = reply?.data?.[0] ?? reply?.images?.[0];
  if (typeof first?.b64_json === 'string') {
    const image = Buffer.from(first.b64_json, 'base64');
    // A buffer this large owns its memory, which then moves to the caller instead of being copied.
    const owned = image.byteOffset === 0 && image.byteLength === image.buffer.byteLength;
    return owned ? move(new Uint8Array(image.buffer)) : new Uint8Array(image);
  }
  if (typeof first?.url === 'string') return { url: first.url };
  return { invalid: 'no b64_json or url' };
}
