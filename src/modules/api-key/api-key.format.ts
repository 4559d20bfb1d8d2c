import { hash } from 'node:crypto';
import { randomAlphanumeric } from '../../foundation/ids';
import { KeyEnvironment } from './api-key.entity';

export const API_KEY_PATTERN = /^nk_(live|test)_[A-Za-z0-9]{32}$/;
/** Characters of a key kept in clear for display: the environment prefix and four more. */
const DISPLAY_PREFIX_LENGTH = 12;

/** `nk_live_` or `nk_test_` and 32 characters of [A-Za-z0-9] from a cryptographic source: 40 in all. */
export function generateApiKey(environment: KeyEnvironment): string {
  return `nk_${environment}_${randomAlphanumeric(32)}`;
}

/** The key as stored and looked up: SHA-256, hex (one-shot `hash`, cheaper than createHash, paid by every request: docs/performance.md). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

export function isWellFormedApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}
