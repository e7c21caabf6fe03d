import { fetchPublic, SsrfRefused } from '../security/ssrf.js';
import { HttpStatusError } from './reliability.js';
import { ProviderError } from './types.js';

/** Provider image links point at object storage; a generated image is a few MB at most. */
export const MAX_IMAGE_DOWNLOAD_BYTES = 25 * 1024 * 1024;


/**
 * Fetches an image a provider answered with as a link (http/https only, size-capped, within the
 * caller's deadline). A link on the provider's own configured origin is trusted like the API
 * itself (that is where the operator pointed us); any other link must resolve to public
 * addresses only, so a malicious or compromised provider cannot make us read internal services.
 */
export async function downloadImage(link: string, opts: { provider: string; providerBaseUrl: string; signal: AbortSignal; timeoutMs: number }): Promise<Buffer> {
  const refuse = (why: string) => new ProviderError('bad_output', `${opts.provider} image download refused: ${why}`, opts.provider);
  const tooLarge = () => refuse(`the image is larger than ${MAX_IMAGE_DOWNLOAD_BYTES} bytes`);
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw refuse('the image link is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(`${url.protocol} links are not fetched`);

  if (url.origin !== new URL(opts.providerBaseUrl).origin) {
    const res = await fetchPublic(url.toString(), { maxBytes: MAX_IMAGE_DOWNLOAD_BYTES + 1, timeoutMs: opts.timeoutMs, accept: 'image/*' }).catch((error: unknown) => {
      throw error instanceof SsrfRefused ? refuse(error.message) : error;
    });
    if (res.status < 200 || res.status >= 300) throw new HttpStatusError(res.status, new Headers(), `downloading the generated image failed with HTTP ${res.status}`);
    if (res.truncated || res.body.length > MAX_IMAGE_DOWNLOAD_BYTES) throw tooLarge();
    return res.body;
  }

  const res = await fetch(url, { redirect: 'error', signal: opts.signal });
  if (!res.ok) {
    await res.body?.cancel();
    throw new HttpStatusError(res.status, res.headers, `downloading the generated image failed with HTTP ${res.status}`);
  }
  if (Number(res.headers.get('content-length') ?? '0') > MAX_IMAGE_DOWNLOAD_BYTES) {
    await res.body?.cancel();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.length;
    if (size > MAX_IMAGE_DOWNLOAD_BYTES) throw tooLarge();
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
