import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface SealedSecret {
  ciphertext: string;
  iv: string;
  authTag: string;
  keyVersion: number;
}

/**
 * AES-256-GCM for provider API keys and webhook secrets. The data key is derived from SECRET_KEY
 * with HKDF and a version label, so a rotation adds a version while older rows stay readable.
 *
 * `boundTo` is authenticated with the ciphertext (GCM's additional data): a secret sealed for
 * one context opens only for that same context. Provider keys are bound to the endpoint they
 * were entered for (issue 28, finding 1), so a row whose base_url changed without its key
 * fails to open instead of sending the key elsewhere, whatever code path forgot the rule.
 * Version 1 predates binding and ignores it (rows sealed before it stay readable).
 */
export class SecretBox {
  private readonly keys = new Map<number, Buffer>();
  readonly currentVersion = 2;

  constructor(secretKey: string) {
    this.keys.set(1, Buffer.from(hkdfSync('sha256', secretKey, 'cps-api-keys', 'api-key-encryption:v1', 32)));
    this.keys.set(2, Buffer.from(hkdfSync('sha256', secretKey, 'cps-api-keys', 'api-key-encryption:v2', 32)));
  }

  seal(plaintext: string, boundTo = ''): SealedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key(this.currentVersion), iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      ciphertext: ciphertext.toString('base64'),
      iv: iv.toString('base64'),
      authTag: cipher.getAuthTag().toString('base64'),
      keyVersion: this.currentVersion,
    };
  }

  open(sealed: SealedSecret, boundTo = ''): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key(sealed.keyVersion), Buffer.from(sealed.iv, 'base64'));
    if (sealed.keyVersion >= 2) decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.authTag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  }

  private key(version: number): Buffer {
    const key = this.keys.get(version);
    if (!key) throw new Error(`no data key for key version ${version}`);
    return key;
  }
}
