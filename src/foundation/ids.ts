import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// 62 * 4 = 248: bytes at or above it are dropped so every character is equally likely.
const UNBIASED_LIMIT = 248;

/** `length` characters of [A-Za-z0-9] from the operating system's cryptographic source. */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix = 'evt' | 'tt' | 'org' | 'bk' | 'mem' | 'key' | 'whe' | 'msg';

/** Server-assigned identifiers: a type prefix and an opaque random part, e.g. `evt_4fK2…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomAlphanumeric(20)}`;
}
