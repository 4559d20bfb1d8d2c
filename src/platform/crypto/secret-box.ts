import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format (D18). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const VERSION = 'v1';
const KEY_FILE = 'webhook-secret.key';

/**
 * Signing secrets must be usable to sign, so they cannot be hashed: they are encrypted at rest with
 * AES-256-GCM under a server key (WEBHOOK_SECRET_KEY, or a key file kept in DATA_DIR for development).
 * A database dump alone reveals no secret.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(material: string) {
    this.key = createHash('sha256').update(material, 'utf8').digest();
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
  }

  open(sealed: string): string {
    const [version, data] = sealed.split(':');
    if (version !== VERSION || !data) throw new Error('unknown webhook secret format');
    const raw = Buffer.from(data, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/**
 * The server key: WEBHOOK_SECRET_KEY when set (every instance and the CLI must share it), else a
 * random key created once in DATA_DIR (fine for one machine; a copy of the database without it is useless).
 */
export function webhookSecretBox(settings: { secretKey: string | undefined; dataDir: string }): SecretBox {
  if (settings.secretKey) return new SecretBox(settings.secretKey);
  const file = path.join(settings.dataDir, KEY_FILE);
  let material: string;
  try {
    material = readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(settings.dataDir, { recursive: true });
    material = randomBytes(32).toString('base64');
    try {
      writeFileSync(file, `${material}\n`, { mode: 0o600, flag: 'wx' });
    } catch {
      // Another process created it first: use theirs.
      material = readFileSync(file, 'utf8').trim();
    }
    chmodSync(file, 0o600);
  }
  return new SecretBox(material);
}
