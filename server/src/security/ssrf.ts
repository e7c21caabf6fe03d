import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';

/**
 * Fetching a URL a user typed (a benchmark's link) without letting it reach inside the network.
 *
 * - Only http and https, no credentials in the URL.
 * - Every address a host name resolves to must be public unicast: loopback, private (10/8,
 *   172.16/12, 192.168/16), link-local (169.254/16 with the cloud metadata endpoints), CGNAT
 *   (100.64/10, Alibaba's metadata), unique-local fc00::/7, IPv4-mapped/NAT64/6to4/Teredo
 *   forms of those, multicast and reserved ranges are refused.
 * - The check runs inside the socket's own DNS lookup, so the address validated is the address
 *   connected to (no second resolution a rebinding DNS server could answer differently).
 * - Redirects are followed by hand (at most `maxRedirects`), each hop checked the same way.
 * - Total time and body size are capped; the body is returned as bytes for the caller to treat
 *   as untrusted data.
 */

export class SsrfRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SsrfRefused';
  }
}

export interface SafeFetchOptions {
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  accept?: string;
  /** Name resolution; the system resolver by default. Tests map names to chosen addresses. */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Address policy; isPublicAddress by default. */
  isAllowedAddress?: (address: string) => boolean;
}

export interface SafeFetchResult {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  truncated: boolean;
}

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
}

async function systemResolve(hostname: string): Promise<string[]> {
  const results = await dnsLookup(hostname, { all: true, verbatim: true });
  return results.map((r) => r.address);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SsrfRefused('not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SsrfRefused(`scheme ${url.protocol} is not allowed`);
  if (url.username || url.password) throw new SsrfRefused('credentials in URLs are not allowed');
  return url;
}

export async function fetchPublic(rawUrl: string, opts: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  const timeoutMs = opts.timeoutMs ?? 5000;
  const maxRedirects = opts.maxRedirects ?? 3;
  const resolve = opts.resolve ?? systemResolve;
  const allowed = opts.isAllowedAddress ?? isPublicAddress;

  const guardedLookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.find((a) => !allowed(a));
        if (addresses.length === 0) return callback(new SsrfRefused(`${hostname} does not resolve`), '', 4);
        if (refused) return callback(new SsrfRefused(`${hostname} resolves to a non-public address (${refused})`), '', 4);
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options.all) return (callback as unknown as (e: null, a: typeof entries) => void)(null, entries);
        return callback(null, entries[0]!.address, entries[0]!.family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };

  const signal = AbortSignal.timeout(timeoutMs);
  const agent = new Agent({ connect: { lookup: guardedLookup, timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  try {
    let url = checkUrl(rawUrl);
    for (let hop = 0; ; hop++) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      // Sockets skip the lookup for address literals, so those are checked here.
      if (isIP(host) && !allowed(host)) throw new SsrfRefused(`address ${host} is not public`);
      const response = await request(url, {
        dispatcher: agent,
        method: 'GET',
        headers: { accept: opts.accept ?? '*/*', 'user-agent': 'content-production-service/1 (link preview)' },
        signal,
      }).catch((err: unknown) => {
        throw unwrapRefusal(err);
      });
      if (REDIRECTS.has(response.statusCode)) {
        await response.body.dump();
        const location = response.headers.location;
        if (typeof location !== 'string') throw new SsrfRefused('redirect without a location');
        if (hop >= maxRedirects) throw new SsrfRefused(`more than ${maxRedirects} redirects`);
        url = checkUrl(new URL(location, url).toString());
        continue;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      for await (const chunk of response.body) {
        const buf = chunk as Buffer;
        if (size + buf.length > maxBytes) {
          chunks.push(buf.subarray(0, maxBytes - size));
          truncated = true;
          break;
        }
        chunks.push(buf);
        size += buf.length;
      }
      if (truncated) response.body.destroy();
      const contentType = String(response.headers['content-type'] ?? '');
      return { url: url.toString(), status: response.statusCode, contentType, body: Buffer.concat(chunks), truncated };
    }
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

/** undici wraps the lookup's error; callers should see the refusal itself. */
function unwrapRefusal(err: unknown): unknown {
  for (let e: any = err; e; e = e.cause) if (e instanceof SsrfRefused) return e;
  return err;
}
