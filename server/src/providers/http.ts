import { isIP } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { guardedLookup, isPublicAddress, SsrfRefused } from '../security/ssrf.js';

export type FetchLike = typeof globalThis.fetch;

let publicAgent: Agent | undefined;

/**
 * The fetch every provider request goes through. Unless the deployment allows private
 * endpoints (ALLOW_PRIVATE_PROVIDER_URLS=1: intranet relays, tests), a connection's base URL
 * must lead to public addresses, checked in the socket's own lookup (no second resolution a
 * rebinding DNS server could answer differently), like a benchmark's link.
 */
export function providerFetch(allowPrivate: boolean): FetchLike {
  if (allowPrivate) return globalThis.fetch;
  publicAgent ??= new Agent({ connect: { lookup: guardedLookup() } });
  const dispatcher = publicAgent;
  return (async (input: Parameters<FetchLike>[0], init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // Sockets skip the lookup for address literals.
    if (isIP(host) && !isPublicAddress(host)) throw new SsrfRefused(`address ${host} is not public`);
    return undiciFetch(input as never, { ...(init as object), dispatcher } as never) as unknown as Response;
  }) as FetchLike;
}

/**
 * Providers that answer errors as `{code, message}` (SiliconFlow, DashScope's native API) get
 * them wrapped as `{error: {...}}`, the shape the OpenAI SDK keeps, so their codes reach
 * errors.ts instead of a bare status.
 */
export function withErrorEnvelope(fetchImpl: FetchLike): FetchLike {
  return (async (input: Parameters<FetchLike>[0], init?: RequestInit) => {
    const res = await fetchImpl(input, init);
    if (res.ok || !(res.headers.get('content-type') ?? '').includes('json')) return res;
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return new Response(text, { status: res.status, headers: res.headers });
    }
    const wrapped = typeof body === 'object' && body !== null && 'error' in body && typeof (body as { error: unknown }).error === 'object' ? body : { error: body };
    return new Response(JSON.stringify(wrapped), { status: res.status, headers: res.headers });
  }) as FetchLike;
}
