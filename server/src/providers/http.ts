import type { FetchLike } from '../security/ssrf.js';

export type { FetchLike };

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
