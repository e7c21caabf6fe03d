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
 *   (100.64/10, Alibaba's metadata), unique-local fc00::/7, multicast and reserved ranges are
 *   refused, and so is every IPv6 form that embeds a refused IPv4 address (isPublicAddress).
 * - The check runs inside the socket's own DNS lookup, so the address validated is the address
 *   connected to (no second resolution a rebinding DNS server could answer differently).
 * - Redirects are followed by hand (at most `maxRedirects`), each hop checked the same way.
 * - Total time and body size are capped; the body is returned as bytes for the caller to treat
 *   as untrusted data.
 */

/** `blocked`: the URL or an address it leads to is not allowed; the others: it leads nowhere. */
export type RefusalReason = 'blocked' | 'unresolvable' | 'redirect';

export class SsrfRefused extends Error {
  constructor(
    message: string,
    readonly reason: RefusalReason = 'blocked',
  ) {
    super(message);
    this.name = 'SsrfRefused';
  }
}

/**
 * What became of a failed fetchPublic, in words a user may see: never the resolver's or the
 * socket's own message (`getaddrinfo ENOTFOUND host`, `connect EHOSTUNREACH 10.0.0.7:8080`),
 * which would turn the fetch into a scanner of the network around the service.
 */
export function fetchFailureKind(err: unknown): 'blocked_address' | 'timeout' | 'unreachable' {
  if (err instanceof SsrfRefused) return err.reason === 'blocked' ? 'blocked_address' : 'unreachable';
  for (let e: any = err; e; e = e.cause) {
    if (e.name === 'TimeoutError' || /TIMEOUT/.test(String(e.code ?? ''))) return 'timeout';
  }
  return 'unreachable';
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

/**
 * Whether a connection to this address stays on the public internet. IPv4: public unicast only.
 * IPv6 forms that carry an IPv4 address inside are judged by that address or refused whole
 * (issue 17, finding 4; docs/decisions.md):
 *
 * - IPv4-mapped `::ffff:a.b.c.d` and NAT64's well-known prefix `64:ff9b::/96` (RFC 6052, what a
 *   DNS64 resolver answers on an IPv6-only network): the embedded IPv4 address decides;
 * - the rest of `::/8` (IPv4-compatible `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`,
 *   `::`, `::1`): refused, none is a public destination;
 * - NAT64 local-use `64:ff9b:1::/48` (RFC 8215; where the IPv4 address sits depends on the
 *   operator's prefix length), any other `64:ff9b::/32`, 6to4 `2002::/16` and Teredo
 *   `2001::/32` (tunnels to whatever IPv4 address they carry): refused;
 * - everything else: public unicast only (no loopback, link-local, unique-local, multicast,
 *   documentation or other reserved ranges).
 */
export function isPublicAddress(address: string): boolean {
  const text = address.replace(/%.*$/, '');
  if (!ipaddr.isValid(text)) return false;
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv4') return isPublicIPv4(parsed as ipaddr.IPv4);
  const v6 = canonicalIPv6(text);
  const [a, b, c, d, e, f, g, h] = v6.parts as [number, number, number, number, number, number, number, number];
  if (v6.isIPv4MappedAddress()) return isPublicIPv4(v6.toIPv4Address());
  // Before the ::/8 rule: 64:ff9b:: lies inside ::/8 too.
  if (a === 0x64 && b === 0xff9b) return c === 0 && d === 0 && e === 0 && f === 0 && isPublicIPv4(ipv4Of(g, h));
  if (a < 0x100) return false;
  if (a === 0x2002 || (a === 0x2001 && b === 0)) return false;
  return v6.range() === 'unicast';
}

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

const ipv4Of = (high: number, low: number) => ipaddr.IPv4.parse(`${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`);

/**
 * ipaddr.js reads the dotted IPv4-compatible form `::a.b.c.d` as if it were mapped
 * (`::ffff:a.b.c.d`); the WHATWG URL parser writes every IPv6 form as plain hex groups, which
 * ipaddr.js reads right. (It is also how a URL's host reaches us.)
 */
function canonicalIPv6(text: string): ipaddr.IPv6 {
  return ipaddr.IPv6.parse(new URL(`http://[${text}]/`).hostname.slice(1, -1));
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

/**
 * A socket lookup that refuses names resolving to a refused address: the address checked is the
 * address connected to. Also used for connections to provider endpoints (providers/http.ts).
 */
export function guardedLookup(resolve: (hostname: string) => Promise<string[]> = systemResolve, allowed: (address: string) => boolean = isPublicAddress): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.find((a) => !allowed(a));
        if (addresses.length === 0) return callback(new SsrfRefused(`${hostname} does not resolve`, 'unresolvable'), '', 4);
        if (refused) return callback(new SsrfRefused(`${hostname} resolves to a non-public address (${refused})`), '', 4);
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options.all) return (callback as unknown as (e: null, a: typeof entries) => void)(null, entries);
        return callback(null, entries[0]!.address, entries[0]!.family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };
}

export async function fetchPublic(rawUrl: string, opts: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  const timeoutMs = opts.timeoutMs ?? 5000;
  const maxRedirects = opts.maxRedirects ?? 3;
  const resolve = opts.resolve ?? systemResolve;
  const allowed = opts.isAllowedAddress ?? isPublicAddress;

  const signal = AbortSignal.timeout(timeoutMs);
  const agent = guardedAgent(resolve, allowed, timeoutMs);
  try {
    let url = checkUrl(rawUrl);
    for (let hop = 0; ; hop++) {
      checkLiteral(url, allowed);
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
        if (typeof location !== 'string') throw new SsrfRefused('redirect without a location', 'redirect');
        if (hop >= maxRedirects) throw new SsrfRefused(`more than ${maxRedirects} redirects`, 'redirect');
        url = checkUrl(new URL(location, url).toString());
        continue;
      }
      const { body, truncated } = await readCapped(response.body, maxBytes);
      const contentType = String(response.headers['content-type'] ?? '');
      return { url: url.toString(), status: response.statusCode, contentType, body, truncated };
    }
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

/**
 * An undici agent whose sockets resolve names through `resolve` and refuse to connect unless
 * every address is allowed: the address checked is the address connected to.
 */
function guardedAgent(resolve: (hostname: string) => Promise<string[]>, allowed: (address: string) => boolean, timeoutMs: number): Agent {
  return new Agent({ connect: { lookup: guardedLookup(resolve, allowed), timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
}

/** Sockets skip the lookup for address literals, so those are checked here. */
function checkLiteral(url: URL, allowed: (address: string) => boolean): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !allowed(host)) throw new SsrfRefused(`address ${host} is not public`);
}

async function readCapped(stream: AsyncIterable<unknown> & { destroy(): void }, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    if (size + buf.length > maxBytes) {
      chunks.push(buf.subarray(0, maxBytes - size));
      truncated = true;
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  if (truncated) stream.destroy();
  return { body: Buffer.concat(chunks), truncated };
}

/**
 * Checks a URL a user gives for later calls (a webhook): http or https, no credentials, and
 * every address its host resolves to allowed now. A name that does not resolve (yet, or from
 * here) is let through: every call is checked again where it connects (postPublic), since DNS
 * may answer differently by then anyway.
 */
export async function checkPublicUrl(rawUrl: string, opts: Pick<SafeFetchOptions, 'resolve' | 'isAllowedAddress'> = {}): Promise<URL> {
  const url = checkUrl(rawUrl);
  const allowed = opts.isAllowedAddress ?? isPublicAddress;
  checkLiteral(url, allowed);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return url;
  const addresses = await (opts.resolve ?? systemResolve)(host).catch(() => [] as string[]);
  const refused = addresses.find((a) => !allowed(a));
  if (refused) throw new SsrfRefused(`${host} resolves to a non-public address`);
  return url;
}

export interface PostResult {
  status: number;
  body: Buffer;
}

/**
 * One POST to a URL a user gave (a webhook receiver), under the same address rule as
 * fetchPublic, with one deadline for connecting, sending and reading (`timeoutMs`). Redirects
 * are not followed: a receiver that moved answers 3xx, which the caller treats as a failure.
 */
export async function postPublic(
  rawUrl: string,
  request_: { body: string; headers: Record<string, string> },
  opts: Pick<SafeFetchOptions, 'maxBytes' | 'timeoutMs' | 'resolve' | 'isAllowedAddress'> = {},
): Promise<PostResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const allowed = opts.isAllowedAddress ?? isPublicAddress;
  const agent = guardedAgent(opts.resolve ?? systemResolve, allowed, timeoutMs);
  try {
    const url = checkUrl(rawUrl);
    checkLiteral(url, allowed);
    const response = await request(url, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'user-agent': 'content-production-service/1 (webhook)', ...request_.headers },
      body: request_.body,
      signal: AbortSignal.timeout(timeoutMs),
    }).catch((err: unknown) => {
      throw unwrapRefusal(err);
    });
    const { body } = await readCapped(response.body, opts.maxBytes ?? 64 * 1024);
    return { status: response.statusCode, body };
  } finally {
    // destroy, not close: a receiver that never answers must not hold the caller past its deadline.
    await agent.destroy().catch(() => undefined);
  }
}

/** undici wraps the lookup's error; callers should see the refusal itself. */
function unwrapRefusal(err: unknown): unknown {
  for (let e: any = err; e; e = e.cause) if (e instanceof SsrfRefused) return e;
  return err;
}
