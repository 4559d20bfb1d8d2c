import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { pooledRandomBytes } from '../../foundation/ids';

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format (D18). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * What a key seals (D24): each purpose has its own key derived from the server secret, so a value sealed
 * for one purpose never opens as another (a stored answer is not a signing secret; D29's ticket codes).
 */
export type SecretPurpose = 'webhook-signing-secret' | 'idempotent-answer' | 'ticket-code';

/** Public and fixed: HKDF's salt only separates this service's keys from other uses of the same secret. */
const SALT = Buffer.from('event-service/server-secret', 'utf8');

/** HKDF-SHA256 of the secret under a label: a key, or a fingerprint, that reveals nothing of the secret. */
export function deriveFromSecret(secret: string, label: string, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), SALT, Buffer.from(label, 'utf8'), length));
}

/** The fingerprint recorded in the database (D24): its own label, never the secret or a key. */
export function secretFingerprint(secret: string): string {
  return deriveFromSecret(secret, 'fingerprint').toString('hex');
}

/** Names the secret a `v2` value was sealed with: the fingerprint's first 12 hex digits. */
export const keyIdOf = (fingerprint: string): string => fingerprint.slice(0, 12);

/** One value of the server secret (the current one, or the previous one during a rotation). */
export interface SecretValue {
  readonly secret: string;
  readonly fingerprint: string;
}

export function secretValue(secret: string): SecretValue {
  return { secret, fingerprint: secretFingerprint(secret) };
}

/** A sealed value this server cannot open: sealed under another server secret, or damaged. */
export class SealedValueUnreadable extends Error {
  constructor(reason: string) {
    super(`sealed value unreadable: ${reason}`);
  }
}

interface PurposeKey {
  readonly keyId: string;
  readonly key: Buffer;
  /** The key of the `v1` format (before D24): sha256 of the raw secret, the same for every purpose. */
  readonly legacyKey: Buffer;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

function gcmSeal(key: Buffer, plain: string): string {
  // A random 96-bit IV per value (never reused: pooled bytes are handed out once).
  const iv = pooledRandomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

function gcmOpen(key: Buffer, data: string): string {
  const raw = Buffer.from(data, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/**
 * Seals what must be decrypted later (AES-256-GCM) under the key of one purpose. Sealed values read
 * `v2:<key id>:<base64 of iv, tag, ciphertext>`: the key id says which secret sealed it, so a rotation
 * finds what is left to re-seal with one SQL pattern (`sealedUnderCurrentPattern`). Values of the
 * format before D24, `v1:<base64>` (key = sha256 of the raw secret), still open.
 *
 * Seals with the current secret; opens with the current one, then the previous one (a rotation).
 */
export class SecretBox {
  private readonly keys: readonly PurposeKey[];

  constructor(
    readonly purpose: SecretPurpose,
    values: readonly SecretValue[],
  ) {
    if (values.length === 0) throw new Error('a secret box needs a secret');
    this.keys = values.map(({ secret, fingerprint }) => ({
      keyId: keyIdOf(fingerprint),
      key: deriveFromSecret(secret, `key:${purpose}`),
      legacyKey: createHash('sha256').update(secret, 'utf8').digest(),
    }));
  }

  seal(plain: string): string {
    const [current] = this.keys;
    return `v2:${current.keyId}:${gcmSeal(current.key, plain)}`;
  }

  open(sealed: string): string {
    const parts = sealed.split(':');
    if (parts[0] === 'v2' && parts.length === 3) {
      const key = this.keys.find((candidate) => candidate.keyId === parts[1]);
      if (!key) throw new SealedValueUnreadable(`sealed under another server secret (key id ${parts[1]})`);
      try {
        return gcmOpen(key.key, parts[2]);
      } catch {
        throw new SealedValueUnreadable(`not sealed for ${this.purpose}, or damaged`);
      }
    }
    if (parts[0] === 'v1' && parts.length === 2) {
      for (const { legacyKey } of this.keys) {
        try {
          return gcmOpen(legacyKey, parts[1]);
        } catch {
          // the next secret, if any
        }
      }
      throw new SealedValueUnreadable('sealed (v1) under another server secret, or damaged');
    }
    throw new SealedValueUnreadable('unknown format');
  }

  /** Whether a sealed value is already under the current secret's key (nothing for a rotation to do). */
  isCurrent(sealed: string): boolean {
    return sealed.startsWith(this.currentPrefix());
  }

  /**
   * A SQL LIKE pattern matching the values sealed under the current secret (the key id is hex: no
   * wildcard in it). A rotation re-seals the rows whose values do not match it.
   */
  sealedUnderCurrentPattern(): string {
    return `${this.currentPrefix()}%`;
  }

  /** The value sealed under the current secret: the same when it already is; undefined when unreadable. */
  reseal(sealed: string): string | undefined {
    if (this.isCurrent(sealed)) return sealed;
    try {
      return this.seal(this.open(sealed));
    } catch (error) {
      if (error instanceof SealedValueUnreadable) return undefined;
      throw error;
    }
  }

  private currentPrefix(): string {
    return `v2:${this.keys[0].keyId}:`;
  }
}
