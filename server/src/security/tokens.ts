import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Role } from '../db/schema.js';

export interface AccessClaims {
  sub: number;
  ws: number;
  role: Role;
  ver: number;
}

export const ACCESS_TOKEN_TTL_SECONDS = 12 * 60 * 60;

export class AccessTokens {
  private readonly key: Uint8Array;

  constructor(secret: string, private readonly now: () => Date) {
    this.key = new TextEncoder().encode(secret);
  }

  async sign(claims: AccessClaims): Promise<string> {
    const iat = Math.floor(this.now().getTime() / 1000);
    return new SignJWT({ ws: claims.ws, role: claims.role, ver: claims.ver })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(claims.sub))
      .setIssuedAt(iat)
      .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
      .sign(this.key);
  }

  /** Returns the claims, or undefined for any token that is malformed, forged or expired. */
  async verify(token: string): Promise<AccessClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], currentDate: this.now() });
      const sub = Number(payload.sub);
      const { ws, role, ver } = payload as Record<string, unknown>;
      if (!Number.isInteger(sub) || typeof ws !== 'number' || typeof ver !== 'number' || typeof role !== 'string') {
        return undefined;
      }
      return { sub, ws, role: role as Role, ver };
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) return undefined;
      throw err;
    }
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
