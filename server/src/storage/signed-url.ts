import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';
import { isFileKey } from './types.js';

/** How long a link stays valid at least; see expiryFor. */
export const FILE_LINK_TTL_SECONDS = 3600;

const keyCache = new Map<string, Buffer>();

/** A signing key of its own, derived from SECRET_KEY, so a file link can never pass for anything else. */
function signingKey(secretKey: string): Buffer {
  let key = keyCache.get(secretKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secretKey, 'cps-file-links', 'file-link-hmac-v1', 32));
    keyCache.clear();
    keyCache.set(secretKey, key);
  }
  return key;
}

function signature(secretKey: string, key: string, exp: number): string {
  return createHmac('sha256', signingKey(secretKey)).update(`${key}\n${exp}`).digest('base64url');
}

/**
 * Expiry rounded up to the next full hour after now + TTL: links are valid one to two hours,
 * and every response within the same hour carries the same URL, so browsers can cache images.
 */
function expiryFor(now: Date): number {
  const earliest = Math.floor(now.getTime() / 1000) + FILE_LINK_TTL_SECONDS;
  return Math.ceil(earliest / 3600) * 3600;
}

/**
 * The short-lived, signed URL of a stored file (`url` fields of candidate and product images).
 * It carries no user credential: whoever holds the link may read that one file until it expires.
 */
export function fileUrl(ctx: Pick<AppContext, 'config' | 'clock'>, key: string): string {
  const exp = expiryFor(ctx.clock.now());
  return `/api/v1/files/${key}?exp=${exp}&sig=${signature(ctx.config.secretKey, key, exp)}`;
}

export type LinkCheck = 'ok' | 'invalid' | 'expired';

export function verifyFileLink(ctx: Pick<AppContext, 'config' | 'clock'>, key: string, exp: number, sig: string): LinkCheck {
  if (!isFileKey(key) || !Number.isSafeInteger(exp)) return 'invalid';
  const expected = Buffer.from(signature(ctx.config.secretKey, key, exp));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return exp * 1000 <= ctx.clock.now().getTime() ? 'expired' : 'ok';
}
