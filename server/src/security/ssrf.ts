import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, fetch as undiciFetch, request } from 'undici';

/**
 * Every outbound connection of the service (provider API calls, image downloads, link analysis,
 * webhooks) goes through this module, so one rule holds for all of them (contract-decisions §7,
 * issue 28 findings 3 and 4):
 *
 * - Only http and https, no credentials in the URL.
 * - The address is checked when the socket connects, against the address connected to: the
 *   connector resolves the name itself, checks every address under the connection's
 *   AddressPolicy, and connects to the first one (pinned: no second resolution a rebinding DNS
 *   server could answer differently). Address literals, IPv4-mapped IPv6 included, pass the
 *   same check, so a redirect to `http://[::ffff:7f00:1]/` meets it too.
 * - The public rule (isPublicAddress) refuses loopback, private (10/8, 172.16/12, 192.168/16),
 *   link-local (169.254/16 with the cloud metadata endpoints), CGNAT (100.64/10, Alibaba's
 *   metadata), unique-local fc00::/7, multicast, reserved ranges and every IPv6 form that embeds
 *   a refused IPv4 address.
 * - Provider calls never follow a redirect (outboundFetch): a 3xx is a refusal, so a stored key
 *   or a prompt never travels to where an answer points. Downloads follow redirects by hand
 *   (fetchPublic), each hop connecting under the same policy. Webhooks do not follow them.
 * - Total time and body size are capped; bodies are bytes for the caller to treat as untrusted.
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
  /** The caller's own deadline or cancel, besides `timeoutMs`. */
  signal?: AbortSignal;
  /** Name resolution; the system resolver by default. Tests answer names with chosen addresses. */
  resolve?: Resolver;
  /** Address policy; public addresses only by default. */
  isAllowedAddress?: AddressPolicy;
}

export type Resolver = (hostname: string) => Promise<string[]>;

/** Where a connection goes: the URL's host name (or literal) and port. */
export interface Target {
  host: string;
  port: number;
}

/** Whether a connection to `target` may use `address`. */
export type AddressPolicy = (address: string, target: Target) => boolean;

export const publicOnly: AddressPolicy = (address) => isPublicAddress(address);
export const anyAddress: AddressPolicy = () => true;

/**
 * The policy of endpoints users type (provider base URLs, webhooks): public addresses only;
 * every address with ALLOW_PRIVATE_PROVIDER_URLS=1; and, with ALLOW_PRIVATE_PROVIDER_HOSTS
 * (`host:port,…`), private addresses for those exact host names and ports only, so one intranet
 * relay or Ollama does not open every private address to whoever can type a URL.
 */
/** Where outbound connections look names up and which addresses typed endpoints may reach. */
export interface Outbound {
  resolve: Resolver;
  userEndpoints: AddressPolicy;
}

/** The system's resolver, and the address policy of ALLOW_PRIVATE_PROVIDER_URLS and _HOSTS (read by config.ts). */
export function outboundOf(settings: { allowPrivate: boolean; privateHosts: readonly string[] }): Outbound {
  return { resolve: systemResolve, userEndpoints: userEndpointPolicy(settings) };
}

export function userEndpointPolicy(opts: { allowPrivate: boolean; privateHosts: readonly string[] }): AddressPolicy {
  if (opts.allowPrivate) return anyAddress;
  if (opts.privateHosts.length === 0) return publicOnly;
  const listed = new Set(opts.privateHosts.map((h) => h.toLowerCase()));
  return (address, target) => isPublicAddress(address) || listed.has(`${target.host.toLowerCase()}:${target.port}`);
}

/**
 * ALLOW_PRIVATE_PROVIDER_HOSTS as `host:port` entries (an IPv6 literal in brackets), the form
 * the policy compares with; a malformed entry stops the process at start.
 */
export function parsePrivateHosts(raw: string | undefined): string[] {
  if (!raw?.trim()) return [];
  return raw.split(',').map((entry) => {
    const text = entry.trim();
    let url: URL;
    try {
      url = new URL(`http://${text}`);
    } catch {
      throw new Error(`ALLOW_PRIVATE_PROVIDER_HOSTS: "${text}" is not host:port`);
    }
    if (!/:\d+$/.test(text) || url.pathname !== '/' || url.username || url.search) throw new Error(`ALLOW_PRIVATE_PROVIDER_HOSTS: "${text}" is not host:port`);
    return `${url.hostname}:${url.port || 80}`;
  });
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

function targetOf(url: URL): Target {
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
}

/**
 * The addresses a connection to `target` may use, all of them checked: a name with one refused
 * address among several is refused whole (which one the socket would pick is not ours to know).
 */
async function checkedAddresses(target: Target, resolve: Resolver, allowed: AddressPolicy): Promise<string[]> {
  const addresses = isIP(target.host) ? [target.host] : await resolve(target.host).catch(() => [] as string[]);
  if (addresses.length === 0) throw new SsrfRefused(`${target.host} does not resolve`, 'unresolvable');
  const refused = addresses.find((a) => !allowed(a, target));
  if (refused) throw new SsrfRefused(isIP(target.host) ? `address ${target.host} is not public` : `${target.host} resolves to a non-public address (${refused})`);
  return addresses;
}

/**
 * An undici agent whose every socket connects to an address checked just before, under
 * `allowed`, and to that address only (the name is not resolved again). TLS still verifies the
 * certificate against the URL's host name (undici takes the server name from `host`).
 */
export function outboundAgent(allowed: AddressPolicy, opts: { resolve?: Resolver; timeoutMs?: number } = {}): Agent {
  const resolve = opts.resolve ?? systemResolve;
  const connectTimeout = opts.timeoutMs ?? 10_000;
  const connect = buildConnector({ timeout: connectTimeout });
  return new Agent({
    connect: (options, callback) => {
      const target = { host: options.hostname.replace(/^\[|\]$/g, ''), port: Number(options.port) || (options.protocol === 'https:' ? 443 : 80) };
      checkedAddresses(target, resolve, allowed).then(
        ([address]) => connect({ ...options, hostname: address! }, callback),
        (err: Error) => callback(err, null),
      );
    },
    ...(opts.timeoutMs ? { headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs } : {}),
  });
}

export async function fetchPublic(rawUrl: string, opts: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  const timeoutMs = opts.timeoutMs ?? 5000;
  const maxRedirects = opts.maxRedirects ?? 3;
  const signal = opts.signal ? AbortSignal.any([AbortSignal.timeout(timeoutMs), opts.signal]) : AbortSignal.timeout(timeoutMs);
  const agent = outboundAgent(opts.isAllowedAddress ?? publicOnly, { resolve: opts.resolve, timeoutMs });
  try {
    let url = checkUrl(rawUrl);
    for (let hop = 0; ; hop++) {
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
        // Every hop is a new connection through the same agent: its address is checked there.
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

export type FetchLike = typeof globalThis.fetch;

/**
 * The fetch of provider API calls: connections under `allowed`, redirects never followed. A 3xx
 * answer is refused before anything reads it, so a key or a prompt never follows a Location to
 * another host (or, after a 303, reaches an internal path as a GET).
 */
export function outboundFetch(allowed: AddressPolicy, opts: { resolve?: Resolver } = {}): FetchLike {
  const dispatcher = outboundAgent(allowed, { resolve: opts.resolve });
  const send = async (input: Parameters<FetchLike>[0], init?: RequestInit) => {
    const response = await undiciFetch(input as never, { ...(await portableBody(init)), redirect: 'manual', dispatcher } as never).catch((err: unknown) => {
      throw unwrapRefusal(err);
    });
    if (REDIRECTS.has(response.status)) {
      await response.body?.cancel();
      throw redirectRefused(response.status);
    }
    // Node's own Response class: the OpenAI SDK judges from a reply's class whether this fetch
    // can send Node's FormData (portableBody makes sure it can).
    return new Response(response.body as ReadableStream | null, { status: response.status, statusText: response.statusText, headers: response.headers as unknown as Headers });
  };
  return send as FetchLike;
}

export function redirectRefused(status: number): SsrfRefused {
  return new SsrfRefused(`the endpoint answered a redirect (HTTP ${status}); provider calls do not follow redirects: set base_url to the final address`, 'redirect');
}

/**
 * Node's own FormData (the OpenAI SDK's multipart uploads) is not the undici package's, whose
 * fetch would send it as text: encoded here into bytes with its multipart content type.
 */
async function portableBody(init: RequestInit | undefined): Promise<RequestInit | undefined> {
  if (!(init?.body instanceof FormData)) return init;
  const encoded = new Response(init.body);
  const headers = new Headers(init.headers);
  headers.set('content-type', encoded.headers.get('content-type')!);
  return { ...init, headers, body: Buffer.from(await encoded.arrayBuffer()) };
}

/** Literals are judged when a URL is saved as well (names are looked up then too: checkPublicUrl). */
function checkLiteral(url: URL, allowed: AddressPolicy): void {
  const target = targetOf(url);
  if (isIP(target.host) && !allowed(target.host, target)) throw new SsrfRefused(`address ${target.host} is not public`);
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
export async function checkPublicUrl(rawUrl: string, opts: Pick<SafeFetchOptions, 'resolve' | 'isAllowedAddress'> & { mustResolve?: boolean } = {}): Promise<URL> {
  const url = checkUrl(rawUrl);
  const allowed = opts.isAllowedAddress ?? publicOnly;
  checkLiteral(url, allowed);
  const target = targetOf(url);
  if (isIP(target.host)) return url;
  const addresses = await (opts.resolve ?? systemResolve)(target.host).catch(() => [] as string[]);
  if (opts.mustResolve && addresses.length === 0) throw new SsrfRefused(`${target.host} does not resolve`, 'unresolvable');
  const refused = addresses.find((a) => !allowed(a, target));
  if (refused) throw new SsrfRefused(`${target.host} resolves to a non-public address`);
  return url;
}

export interface PostResult {
  status: number;
  body: Buffer;
}

/**
 * One POST to a URL a user gave (a webhook receiver), under the address rule of the caller's
 * policy, with one deadline for connecting, sending and reading (`timeoutMs`). Redirects
 * are not followed: a receiver that moved answers 3xx, which the caller treats as a failure.
 */
export async function postPublic(
  rawUrl: string,
  request_: { body: string; headers: Record<string, string> },
  opts: Pick<SafeFetchOptions, 'maxBytes' | 'timeoutMs' | 'resolve' | 'isAllowedAddress'> = {},
): Promise<PostResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const agent = outboundAgent(opts.isAllowedAddress ?? publicOnly, { resolve: opts.resolve, timeoutMs });
  try {
    const url = checkUrl(rawUrl);
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

/** undici wraps the connector's error; callers should see the refusal itself. */
function unwrapRefusal(err: unknown): unknown {
  for (let e: any = err; e; e = e.cause) if (e instanceof SsrfRefused) return e;
  return err;
}
