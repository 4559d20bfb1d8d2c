import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// 62 * 4 = 248: bytes at or above it are dropped so every character is equally likely.
const UNBIASED_LIMIT = 248;

/**
 * Random bytes are drawn from the cryptographic source a few kilobytes at a time and handed out once
 * each: an id per booking made a call into OpenSSL per id (a visible share of a booking's CPU,
 * docs/performance.md).
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/**
 * `length` bytes from the same cryptographic source and pool, each handed out once (a pool is never
 * written again), for values that need fresh random bytes on a hot path, such as the IV of every sealed
 * answer (an OpenSSL call of its own was a large part of a seal's cost).
 */
export function pooledRandomBytes(length: number): Buffer {
  if (length > POOL_SIZE) return randomBytes(length);
  if (offset + length > pool.length) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + length);
  offset += length;
  return bytes;
}

/** `length` characters of [A-Za-z0-9] from the operating system's cryptographic source. */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    if (offset >= pool.length) {
      pool = randomBytes(POOL_SIZE);
      offset = 0;
    }
    const byte = pool[offset++];
    if (byte < UNBIASED_LIMIT) out += ALPHABET[byte % 62];
  }
  return out;
}

export type IdPrefix = 'evt' | 'tt' | 'org' | 'bk' | 'mem' | 'key' | 'whe' | 'msg' | 'wl' | 'aud' | 'ser' | 'qe';

/** Server-assigned identifiers: a type prefix and an opaque random part, e.g. `evt_4fK2…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomAlphanumeric(20)}`;
}
