import { createHash, createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Role } from '../db/schema.js';

export interface AccessClaims {
  sub: number;
  ws: number;
  role: Role;
  /** The user's token version: a password change or deactivation ends every session. */
  ver: number;
  /**
   * The session version of the membership in `ws` the token was issued for: removal or a role
   * change there ends the sessions of that workspace only. Absent in tokens issued before it
   * existed, which stand for version 0.
   */
  mv?: number;
}

export const ACCESS_TOKEN_TTL_SECONDS = 12 * 60 * 60;

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
const SEGMENT = /^[A-Za-z0-9_-]+$/;

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

function decodeJson(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

interface VerifiedToken {
  claims: AccessClaims;
  exp: number;
  nbf: number | undefined;
}

/** Tokens in use at once on one process: a client sends the same token with every request. */
const VERIFIED_CACHE_SIZE = 10_000;

/**
 * HS256 access tokens (RFC 7519) with node:crypto directly: every API request verifies one, and
 * a synchronous HMAC costs a fraction of WebCrypto's promise round trip. Only HS256 is
 * accepted, the signature is compared in its canonical encoding in constant time, and `exp`
 * is required.
 *
 * A token that verified once is remembered by its exact text: the same text under the same
 * key always verifies the same way, so only the time checks (exp, nbf) run again. A forged or
 * altered token is different text and goes through the full check. This is the token alone;
 * whether its user may still act (token version, active, membership) is read from the
 * database on every request all the same.
 */
export class AccessTokens {
  private readonly key: KeyObject;
  private readonly verified = new LRUCache<string, VerifiedToken>({ max: VERIFIED_CACHE_SIZE });

  constructor(secret: string, private readonly now: () => Date) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  private mac(signingInput: string): string {
    return createHmac('sha256', this.key).update(signingInput).digest('base64url');
  }

  async sign(claims: AccessClaims): Promise<string> {
    const iat = Math.floor(this.now().getTime() / 1000);
    const payload = base64url(
      JSON.stringify({ ws: claims.ws, role: claims.role, ver: claims.ver, mv: claims.mv, sub: String(claims.sub), iat, exp: iat + ACCESS_TOKEN_TTL_SECONDS }),
    );
    const input = `${HEADER}.${payload}`;
    return `${input}.${this.mac(input)}`;
  }

  /** Returns the claims, or undefined for any token that is malformed, forged or expired. */
  async verify(token: string): Promise<AccessClaims | undefined> {
    const known = this.verified.get(token) ?? this.checkSignedToken(token);
    if (!known) return undefined;
    const now = Math.floor(this.now().getTime() / 1000);
    if (known.exp <= now || (known.nbf !== undefined && known.nbf > now)) return undefined;
    return { ...known.claims };
  }

  /** Signature, header and claim types: everything about a token that does not depend on the time. */
  private checkSignedToken(token: string): VerifiedToken | undefined {
    const parts = token.split('.');
    if (parts.length !== 3 || !parts.every((part) => SEGMENT.test(part))) return undefined;
    const [header, payload, signature] = parts as [string, string, string];
    const expected = Buffer.from(this.mac(`${header}.${payload}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;

    if (header !== HEADER) {
      // Not the header this class writes: still fine if it says HS256 and nothing more binding.
      const head = decodeJson(header);
      // `crit` names extensions the verifier must understand; we understand none.
      if (!head || head.alg !== 'HS256' || 'crit' in head) return undefined;
    }
    const body = decodeJson(payload);
    if (!body) return undefined;
    const { exp, nbf, ws, role, ver, mv } = body;
    if (typeof exp !== 'number' || (nbf !== undefined && typeof nbf !== 'number')) return undefined;
    const sub = typeof body.sub === 'string' && /^[1-9][0-9]*$/.test(body.sub) ? Number(body.sub) : NaN;
    if (!Number.isSafeInteger(sub) || !Number.isInteger(ws) || !Number.isInteger(ver) || typeof role !== 'string') return undefined;
    if (mv !== undefined && !Number.isInteger(mv)) return undefined;
    const claims: AccessClaims = { sub, ws: ws as number, role: role as Role, ver: ver as number, ...(mv !== undefined ? { mv: mv as number } : {}) };
    const verified = { claims, exp, nbf: nbf as number | undefined };
    this.verified.set(token, verified);
    return verified;
  }
}

/** Random one-time secret (SSE tickets, download tokens) and the hash under which it is stored. */
export function newOneTimeToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
