import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { passwordHashes } from '../ops/metrics.js';

/** Recent scrypt durations (ms), so a login for an unknown username can take as long. */
let typicalMs = 100;

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => {
    passwordHashes.inc();
    const started = performance.now();
    scryptCb(password, salt, keylen, options, (err, key) => {
      typicalMs = 0.8 * typicalMs + 0.2 * (performance.now() - started);
      if (err) reject(err);
      else resolve(key);
    });
  });

// N=2^15, r=8: 32 MiB and 180 ms per hash on this class of machine (2 shared cores). OWASP's
// current minimum for scrypt is N=2^17 (128 MiB): 540 ms here, which would put a login behind
// a short line at seconds; see docs/decisions.md (issue 28). Stored hashes carry their
// parameters, and a login rehashes one made with others (needsRehash), so a change of PARAMS
// reaches every active account.
const PARAMS = { N: 1 << 15, r: 8, p: 1, keylen: 32 };
const maxmem = 64 * 1024 * 1024;

export function needsRehash(stored: string): boolean {
  const [scheme, n, r, p, , keyB64] = stored.split('$');
  return scheme !== 'scrypt' || Number(n) !== PARAMS.N || Number(r) !== PARAMS.r || Number(p) !== PARAMS.p || Buffer.from(keyB64 ?? '', 'base64').length !== PARAMS.keylen;
}

/**
 * What a login for an unknown username costs instead of a hash: the time one takes, without
 * the work, so a flood of made-up names neither occupies the hashing slots nor tells itself
 * apart by its answer time.
 */
export async function imitateVerification(signal?: AbortSignal): Promise<false> {
  await sleep(typicalMs, undefined, { signal });
  return false;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, PARAMS.keylen, { N: PARAMS.N, r: PARAMS.r, p: PARAMS.p, maxmem });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltB64, keyB64] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !saltB64 || !keyB64) return false;
  const expected = Buffer.from(keyB64, 'base64');
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem,
  });
  return timingSafeEqual(expected, actual);
}

export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
