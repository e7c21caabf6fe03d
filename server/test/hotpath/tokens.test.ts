import { createHmac } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TTL_SECONDS, AccessTokens, type AccessClaims } from '../../src/security/tokens.js';

const SECRET = 'test-secret-of-some-length-0123456789';
const key = new TextEncoder().encode(SECRET);
const claims: AccessClaims = { sub: 7, ws: 3, role: 'supervisor', ver: 2 };
const start = new Date('2026-11-22T12:00:00Z');
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Access tokens are standard HS256 JWTs: checked here against jose, an independent implementation. */
describe('access tokens', () => {
  let now = start;
  const tokens = new AccessTokens(SECRET, () => now);

  const joseToken = (header: Record<string, unknown>, payload: Record<string, unknown>, secret = key) =>
    new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(secret);
  // jose refuses to sign some headers (unknown `crit`); this signs anything.
  const handSigned = (header: Record<string, unknown>, payload: Record<string, unknown>) => {
    const input = [header, payload].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.');
    return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
  };
  const standard = { ws: 3, role: 'supervisor', ver: 2, sub: '7', iat: seconds(start), exp: seconds(start) + 600 };

  it('signs tokens jose verifies, with the contract claims and a 12-hour lifetime', async () => {
    const token = await tokens.sign(claims);
    const { payload, protectedHeader } = await jwtVerify(token, key, { algorithms: ['HS256'], currentDate: start });
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toEqual({ sub: '7', ws: 3, role: 'supervisor', ver: 2, iat: seconds(start), exp: seconds(start) + ACCESS_TOKEN_TTL_SECONDS });
    expect(await tokens.verify(token)).toEqual(claims);
  });

  it('carries the membership session version (mv) when given; one without it stands for version 0', async () => {
    now = start;
    const withMv = await tokens.sign({ ...claims, mv: 5 });
    expect((await jwtVerify(withMv, key, { algorithms: ['HS256'], currentDate: start })).payload.mv).toBe(5);
    expect(await tokens.verify(withMv)).toEqual({ ...claims, mv: 5 });
    expect(await tokens.verify(await tokens.sign(claims))).not.toHaveProperty('mv');
    for (const mv of ['5', 1.5, null]) expect(await tokens.verify(handSigned({ alg: 'HS256' }, { ...standard, mv })), String(mv)).toBeUndefined();
  });

  it('accepts an HS256 token jose signed with the same secret', async () => {
    expect(await tokens.verify(await joseToken({ alg: 'HS256' }, standard))).toEqual(claims);
  });

  it('refuses tokens signed otherwise: another secret, another algorithm, none', async () => {
    expect(await tokens.verify(await joseToken({ alg: 'HS256' }, standard, new TextEncoder().encode('another-secret')))).toBeUndefined();
    expect(await tokens.verify(await joseToken({ alg: 'HS512' }, standard))).toBeUndefined();
    expect(await tokens.verify(await joseToken({ alg: 'HS384' }, standard))).toBeUndefined();
    const [, payload] = (await tokens.sign(claims)).split('.');
    const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    expect(await tokens.verify(`${none}.${payload}.`)).toBeUndefined();
    expect(await tokens.verify(`${none}.${payload}`)).toBeUndefined();
  });

  it('refuses a changed payload, a changed signature and a non-canonical encoding of the right signature', async () => {
    const token = await tokens.sign(claims);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const elevated = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), role: 'admin' })).toString('base64url');
    expect(await tokens.verify(`${header}.${elevated}.${signature}`)).toBeUndefined();
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    expect(await tokens.verify(`${header}.${payload}.${flipped}`)).toBeUndefined();
    // 32 bytes in 43 characters leave two unused bits in the last one: same bytes, other text.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet[alphabet.indexOf(signature.at(-1)!) ^ 1]!;
    const variant = `${signature.slice(0, -1)}${last}`;
    expect(Buffer.from(variant, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
    expect(await tokens.verify(`${header}.${payload}.${variant}`)).toBeUndefined();
    for (const malformed of ['', 'a.b', `${token}.x`, `${token} `, ` ${token}`, token.replace('.', '..'), `${header}.${payload}.${signature}=`]) {
      expect(await tokens.verify(malformed)).toBeUndefined();
    }
  });

  it('honours exp (required) and nbf, and refuses unknown critical header parameters', async () => {
    now = start;
    const token = await tokens.sign(claims);
    now = new Date(start.getTime() + (ACCESS_TOKEN_TTL_SECONDS - 1) * 1000);
    expect(await tokens.verify(token)).toEqual(claims);
    now = new Date(start.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000);
    expect(await tokens.verify(token)).toBeUndefined();
    now = start;

    const { exp: _exp, ...withoutExp } = standard;
    expect(await tokens.verify(await joseToken({ alg: 'HS256' }, withoutExp))).toBeUndefined();
    expect(await tokens.verify(await joseToken({ alg: 'HS256' }, { ...standard, nbf: seconds(start) + 60 }))).toBeUndefined();
    expect(await tokens.verify(await joseToken({ alg: 'HS256' }, { ...standard, nbf: seconds(start) }))).toEqual(claims);
    expect(await tokens.verify(handSigned({ alg: 'HS256' }, standard))).toEqual(claims);
    expect(await tokens.verify(handSigned({ alg: 'HS256', crit: ['x-ext'], 'x-ext': 1 }, standard))).toBeUndefined();
  });

  it('applies the time checks on every use of a token it has seen, and trusts no other key', async () => {
    now = start;
    const early = await joseToken({ alg: 'HS256' }, { ...standard, nbf: seconds(start) + 60 });
    expect(await tokens.verify(early)).toBeUndefined();
    now = new Date(start.getTime() + 60_000);
    expect(await tokens.verify(early)).toEqual(claims);
    expect(await tokens.verify(early)).toEqual(claims);
    now = new Date((standard.exp + 1) * 1000);
    expect(await tokens.verify(early)).toBeUndefined();
    now = start;

    const token = await tokens.sign(claims);
    expect(await tokens.verify(token)).toEqual(claims);
    // What one instance has verified says nothing to another with a different secret.
    expect(await new AccessTokens('another-secret-of-some-length-987654', () => now).verify(token)).toBeUndefined();
    // A caller changing the returned claims does not change what the token says next time.
    const returned = (await tokens.verify(token))!;
    returned.role = 'admin';
    expect(await tokens.verify(token)).toEqual(claims);
  });

  it('refuses claims of the wrong kind', async () => {
    for (const bad of [{ sub: 'admin' }, { sub: '07' }, { sub: 7 }, { ws: '3' }, { ver: 2.5 }, { role: 1 }]) {
      expect(await tokens.verify(await joseToken({ alg: 'HS256' }, { ...standard, ...bad })), JSON.stringify(bad)).toBeUndefined();
    }
  });
});
