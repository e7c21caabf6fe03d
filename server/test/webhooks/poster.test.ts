import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPublicUrl, fetchFailureKind, postPublic, SsrfRefused } from '../../src/security/ssrf.js';
import { Receiver } from './receiver.js';

/**
 * The webhook poster and the check of a webhook URL: the address rule holds at the connection
 * (a name that resolves to a private address is refused whatever it resolved to when saved),
 * redirects are not followed, and a receiver that never answers ends at the deadline.
 */
describe('postPublic / checkPublicUrl', () => {
  let receiver: Receiver;
  const anyAddress = () => true;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    receiver.answer = (r) => (r.path === '/moved' ? { status: 302, body: {} } : r.path === '/hang' ? 'hang' : { status: 200, body: { ok: true } });
  });
  afterAll(async () => receiver?.close());

  it('refuses a name that resolves to a private address when connecting, and literals before', async () => {
    const port = new URL(receiver.url).port;
    const toLoopback = async () => ['127.0.0.1'];
    await expect(postPublic(`http://hooks.example.com:${port}/x`, { body: '{}', headers: {} }, { resolve: toLoopback })).rejects.toBeInstanceOf(SsrfRefused);
    await expect(postPublic(`${receiver.url}/x`, { body: '{}', headers: {} })).rejects.toThrow(/not public/);
    expect(receiver.received).toHaveLength(0);
    // The deployment may allow private receivers.
    const answer = await postPublic(`http://hooks.example.com:${port}/x`, { body: '{"a":1}', headers: { 'content-type': 'application/json' } }, { resolve: toLoopback, isAllowedAddress: anyAddress });
    expect(answer.status).toBe(200);
    expect(receiver.on('/x')[0]!.body).toEqual({ a: 1 });
  });

  it('does not follow redirects and stops at the deadline', async () => {
    expect((await postPublic(`${receiver.url}/moved`, { body: '{}', headers: {} }, { isAllowedAddress: anyAddress })).status).toBe(302);
    expect(receiver.on('/moved')).toHaveLength(1);
    const started = Date.now();
    const err = await postPublic(`${receiver.url}/hang`, { body: '{}', headers: {} }, { isAllowedAddress: anyAddress, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(fetchFailureKind(err)).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('checks a URL when it is saved: refused addresses are refused, a name that does not resolve yet is let through', async () => {
    await expect(checkPublicUrl('http://10.0.0.1/hook')).rejects.toThrow(/not public/);
    await expect(checkPublicUrl('http://internal.example/hook', { resolve: async () => ['192.168.1.5'] })).rejects.toThrow(/non-public/);
    await expect(checkPublicUrl('http://internal.example/hook', { resolve: async () => ['93.184.215.14', '10.1.1.1'] })).rejects.toThrow(/non-public/);
    await expect(checkPublicUrl('https://open.feishu.cn/open-apis/bot/v2/hook/x', { resolve: async () => ['93.184.215.14'] })).resolves.toBeInstanceOf(URL);
    await expect(checkPublicUrl('https://not-yet.example/hook', { resolve: async () => Promise.reject(new Error('ENOTFOUND')) })).resolves.toBeInstanceOf(URL);
    await expect(checkPublicUrl('gopher://example.com/')).rejects.toThrow(/scheme/);
  });
});
