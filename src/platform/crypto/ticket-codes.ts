import { createHmac } from 'node:crypto';
import { randomAlphanumeric } from '../../foundation/ids';
import { deriveFromSecret, type SecretBox } from './secret-box';
import type { ServerSecrets } from './server-secrets';

/*
 * Ticket codes (D29): what a CONFIRMED booking shows at the door (a QR code on the storefront). A code
 * is `tk_` and 24 characters of [A-Za-z0-9] drawn from the cryptographic source (24 × log2 62 ≈ 142.9
 * random bits), URL-safe as it is. The database never holds one in clear, so a copy of it alone opens
 * no door (D24):
 *   - `lookupHash`: HMAC-SHA256 of the code under a key derived from the server secret for this use
 *     only (base64url): what a scan finds the booking by (a unique index);
 *   - `sealed`: the code sealed with the server secret's `ticket-code` key (secret-box.ts), so that
 *     the API can show it again.
 * During a rotation (SECRET_KEY_PREVIOUS set) a scan looks a code up under both secrets' keys, and
 * `admin secret rotate` re-seals every code and recomputes its hash under the new one (`reissued`).
 */

export const TICKET_CODE_PREFIX = 'tk_';
const RANDOM_CHARACTERS = 24;

/**
 * What a scan may send as a code: URL-safe characters, at most 128 of them (400 VALIDATION_ERROR
 * otherwise). Wider than the codes issued today, so that a later format still scans; anything of
 * this shape that is no code of the organization is TICKET_NOT_FOUND.
 */
export const MAX_TICKET_CODE_LENGTH = 128;
export const TICKET_CODE_SHAPE = /^[A-Za-z0-9_-]+$/;

/** A new code, its look-up hash and its sealed form: the two stored values bound by the statement that issues it. */
export interface IssuedTicketCode {
  readonly code: string;
  readonly lookupHash: string;
  readonly sealed: string;
}

/** What a command that confirms a booking meets in a scope without the keys (it confirms nothing without a code). */
export function noTicketCodes(): never {
  throw new Error('no ticket code keys in this scope: a booking is never confirmed without its code (D29)');
}

const hashUnder = (key: Buffer, code: string): string => createHmac('sha256', key).update(code).digest('base64url');

/** The ticket codes' keys, derived from the server secret (the current value, and the previous one during a rotation). */
export class TicketCodes {
  /** The look-up keys: the current secret's first. */
  private readonly lookupKeys: readonly Buffer[];

  constructor(
    private readonly box: SecretBox,
    secrets: readonly string[],
  ) {
    if (secrets.length === 0) throw new Error('TicketCodes needs a secret');
    this.lookupKeys = secrets.map((secret) => deriveFromSecret(secret, 'lookup:ticket-code'));
  }

  static of(secrets: ServerSecrets): TicketCodes {
    return new TicketCodes(secrets.box('ticket-code'), secrets.previous ? [secrets.current.secret, secrets.previous.secret] : [secrets.current.secret]);
  }

  /** A new code: made in the request, before the statement that stores it (one HMAC and one seal, no round trip). */
  issue(): IssuedTicketCode {
    const code = `${TICKET_CODE_PREFIX}${randomAlphanumeric(RANDOM_CHARACTERS)}`;
    return { code, lookupHash: createHmac('sha256', this.lookupKeys[0]).update(code).digest('base64url'), sealed: this.box.seal(code) };
  }

  /**
   * The hashes a scanned code is looked up by, always two values (the statement binds both): under the
   * current secret's key, then under the previous one's during a rotation (else the first again).
   */
  lookupHashes(code: string): readonly [current: string, previous: string] {
    const current = hashUnder(this.lookupKeys[0], code);
    return [current, this.lookupKeys.length > 1 ? hashUnder(this.lookupKeys[1], code) : current];
  }

  /** The code in clear, from its sealed form (SealedValueUnreadable when sealed under neither secret). */
  open(sealed: string): string {
    return this.box.open(sealed);
  }

  /**
   * For `admin secret rotate`: the code sealed and hashed under the current secret; the same values
   * when it is already; undefined when it opens under neither secret.
   */
  reissued(sealed: string): { readonly lookupHash: string; readonly sealed: string } | undefined {
    const resealed = this.box.reseal(sealed);
    if (resealed === undefined) return undefined;
    return { lookupHash: hashUnder(this.lookupKeys[0], this.box.open(resealed)), sealed: resealed };
  }

  /** A LIKE pattern of the codes sealed (and so hashed) under the current secret: a rotation has nothing to do for them. */
  sealedUnderCurrentPattern(): string {
    return this.box.sealedUnderCurrentPattern();
  }
}
