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

// N=2^cost with cost 15 (config PASSWORD_HASH_COST), r=8: 32 MiB and 180 ms per hash on this
// class of machine (2 shared cores). OWASP's current minimum for scrypt is N=2^17 (128 MiB):
// 540 ms here, which would put a login behind a short line at seconds; see docs/decisions.md
// (issue 28). Stored hashes carry their parameters, and a login rehashes one made with others
// (needsRehash), so a change of the cost reaches every active account.
const PARAMS = { r: 8, p: 1, keylen: 32 };

/** Twice what scrypt needs (128·N·r bytes), so the highest allowed cost still fits. */
const maxmemFor = (n: number, r: number) => 2 * 128 * n * r;

export function needsRehash(stored: string, cost: number): boolean {
  const [scheme, n, r, p, , keyB64] = stored.split('$');
  return scheme !== 'scrypt' || Number(n) !== 2 ** cost || Number(r) !== PARAMS.r || Number(p) !== PARAMS.p || Buffer.from(keyB64 ?? '', 'base64').length !== PARAMS.keylen;
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

/** `cost`: log2 of scrypt's N, the config's passwordHashCost. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** cost;
  const key = await scrypt(password, salt, PARAMS.keylen, { N, r: PARAMS.r, p: PARAMS.p, maxmem: maxmemFor(N, PARAMS.r) });
  return ['scrypt', N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltB64, keyB64] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !saltB64 || !keyB64) return false;
  const expected = Buffer.from(keyB64, 'base64');
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: maxmemFor(Number(n), Number(r)),
  });
  return timingSafeEqual(expected, actual);
}

export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
