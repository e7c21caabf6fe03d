import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface SealedSecret {
  ciphertext: string;
  iv: string;
  authTag: string;
  keyVersion: number;
}

/**
 * AES-256-GCM for provider API keys. The data key is derived from SECRET_KEY with HKDF and a
 * version label, so a rotation can add version 2 while rows sealed under version 1 stay readable.
 */
export class SecretBox {
  private readonly keys = new Map<number, Buffer>();
  readonly currentVersion = 1;

  constructor(secretKey: string) {
    this.keys.set(1, Buffer.from(hkdfSync('sha256', secretKey, 'cps-api-keys', 'api-key-encryption:v1', 32)));
  }

  seal(plaintext: string): SealedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key(this.currentVersion), iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      ciphertext: ciphertext.toString('base64'),
      iv: iv.toString('base64'),
      authTag: cipher.getAuthTag().toString('base64'),
      keyVersion: this.currentVersion,
    };
  }

  open(sealed: SealedSecret): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key(sealed.keyVersion), Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.authTag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  }

  private key(version: number): Buffer {
    const key = this.keys.get(version);
    if (!key) throw new Error(`no data key for key version ${version}`);
    return key;
  }
}
