import { createHash, randomBytes } from 'node:crypto';

/**
 * Personal access tokens (contract-decisions §13): `cps_pat_` and 256 random bits. The prefix
 * tells them from session JWTs (which never start so) and lets secret scanners spot a leaked one.
 * Only the SHA-256 is stored: a token is a random key, not a password, so a fast hash is enough.
 */
export const PERSONAL_TOKEN_PREFIX = 'cps_pat_';

export function isPersonalToken(token: string): boolean {
  return token.startsWith(PERSONAL_TOKEN_PREFIX);
}

export function newPersonalToken(): { token: string; hash: string; hint: string } {
  const token = `${PERSONAL_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashPersonalToken(token), hint: token.slice(0, PERSONAL_TOKEN_PREFIX.length + 4) };
}

export function hashPersonalToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
