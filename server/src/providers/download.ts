import { fetchPublic, isPublicAddress, SsrfRefused, type AddressPolicy, type Resolver } from '../security/ssrf.js';
import { HttpStatusError } from './reliability.js';
import { ProviderError } from './types.js';

/** Provider image links point at object storage; a generated image is a few MB at most. */
export const MAX_IMAGE_DOWNLOAD_BYTES = 25 * 1024 * 1024;

/** Where a connection's endpoint may connect, and how names are looked up. */
export interface Reach {
  policy: AddressPolicy;
  resolve: Resolver;
}

/**
 * Fetches an image a provider answered with as a link (http/https only, size-capped, within the
 * caller's deadline), following redirects (CDNs use them) with every hop checked where it
 * connects. A hop on the provider's own origin may reach what the endpoint itself may (its
 * `reach`: the deployment's own endpoint, or a private host the deployment listed);
 * any other must be public, so a malicious or compromised provider cannot make us read internal
 * services, neither by a link, nor a redirect, nor a name that re-resolves.
 */
export async function downloadImage(
  link: string,
  opts: { provider: string; providerBaseUrl: string; reach: Reach; signal: AbortSignal; timeoutMs: number },
): Promise<Buffer> {
  const refuse = (why: string) => new ProviderError('bad_output', `${opts.provider} image download refused: ${why}`, opts.provider);
  const origin = new URL(opts.providerBaseUrl);
  const originPort = Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80);
  const originHost = origin.hostname.replace(/^\[|\]$/g, '');
  const allowed: AddressPolicy = (address, target) =>
    target.host === originHost && target.port === originPort ? opts.reach.policy(address, target) : isPublicAddress(address);
  const res = await fetchPublic(link, { maxBytes: MAX_IMAGE_DOWNLOAD_BYTES + 1, timeoutMs: opts.timeoutMs, accept: 'image/*', isAllowedAddress: allowed, resolve: opts.reach.resolve, signal: opts.signal }).catch((error: unknown) => {
    throw error instanceof SsrfRefused ? refuse(error.message) : error;
  });
  if (res.status < 200 || res.status >= 300) throw new HttpStatusError(res.status, new Headers(), `downloading the generated image failed with HTTP ${res.status}`);
  if (res.truncated || res.body.length > MAX_IMAGE_DOWNLOAD_BYTES) throw refuse(`the image is larger than ${MAX_IMAGE_DOWNLOAD_BYTES} bytes`);
  return res.body;
}
