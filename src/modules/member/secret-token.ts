import { hash, randomBytes } from 'node:crypto';

/** 32 random bytes, base64url: session ids and invitation tokens (stored only as their SHA-256). */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecretToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export const SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
