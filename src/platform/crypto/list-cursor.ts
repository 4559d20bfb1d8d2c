import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveFromSecret } from './secret-box';
import type { ServerSecrets } from './server-secrets';

/** Bytes of HMAC-SHA256 kept in a cursor: enough that a forged cursor is never accepted. */
const TAG_BYTES = 16;
/** Cursors are short: a position is two values. Anything longer is not one of ours. */
export const MAX_CURSOR_LENGTH = 512;
/** What a cursor looks like (base64url of a tag and at least an empty position), as the OpenAPI document states it. */
export const CURSOR_PATTERN = `^[A-Za-z0-9_-]{24,${MAX_CURSOR_LENGTH}}$`;
const CURSOR_SHAPE = new RegExp(CURSOR_PATTERN);

/**
 * List cursors (D25): opaque base64url strings `tag ‖ position`, where the position is the sort key and
 * id of a page's last row (a seek, so rows inserted meanwhile never shift the next page) and the tag an
 * HMAC under a key derived from the server secret for this purpose only. The tag covers the
 * organization and the list (its order and filters) as well as the position: a cursor altered, made
 * for another organization or another filter does not open. During a secret rotation, cursors made
 * under the previous secret still open.
 */
export class ListCursors {
  private readonly keys: readonly Buffer[];

  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('ListCursors needs a secret');
    this.keys = secrets.map((secret) => deriveFromSecret(secret, 'list-cursor'));
  }

  static of(secrets: ServerSecrets): ListCursors {
    return new ListCursors(secrets.previous ? [secrets.current.secret, secrets.previous.secret] : [secrets.current.secret]);
  }

  private tag(key: Buffer, organizationId: string, list: string, position: Buffer): Buffer {
    return createHmac('sha256', key)
      .update(`${organizationId}\u0000${list}\u0000`)
      .update(position)
      .digest()
      .subarray(0, TAG_BYTES);
  }

  /** The cursor of a position in one organization's list (`list` names its order and filters). */
  seal(organizationId: string, list: string, position: readonly string[]): string {
    const body = Buffer.from(JSON.stringify(position), 'utf8');
    return Buffer.concat([this.tag(this.keys[0], organizationId, list, body), body]).toString('base64url');
  }

  /** The position a cursor names, or undefined when it is not a cursor of this organization's list. */
  open(organizationId: string, list: string, cursor: string): string[] | undefined {
    if (!CURSOR_SHAPE.test(cursor)) return undefined;
    const raw = Buffer.from(cursor, 'base64url');
    if (raw.length <= TAG_BYTES) return undefined;
    const [tag, body] = [raw.subarray(0, TAG_BYTES), raw.subarray(TAG_BYTES)];
    if (!this.keys.some((key) => timingSafeEqual(tag, this.tag(key, organizationId, list, body)))) return undefined;
    try {
      const position: unknown = JSON.parse(body.toString('utf8'));
      return Array.isArray(position) && position.every((value) => typeof value === 'string') ? position : undefined;
    } catch {
      return undefined;
    }
  }
}
