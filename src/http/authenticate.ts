import type { ApiKeyAuthenticator } from '../modules/api-key/api-key-authenticator';
import type { AuthContext } from '../platform/auth/auth-context';
import { AppError } from '../foundation/errors/app-error';
import type { AuthFailureLimiter } from '../platform/limits/auth-failure-limiter';
import { IpAllowlist } from '../modules/organization/ip-allowlist';

const KEY_SHAPED = /nk_(live|test)_/;
const KEY_PARAM = /^(api[_-]?key|key|token|access[_-]?token|authorization)$/i;
const AUTHENTICATION_FAILURES = new Set(['UNAUTHORIZED', 'INVALID_API_KEY', 'API_KEY_EXPIRED']);

function queryCarriesKey(query: Record<string, unknown>): boolean {
  return Object.entries(query).some(
    ([name, value]) => KEY_PARAM.test(name) || (typeof value === 'string' && KEY_SHAPED.test(value)),
  );
}

/** What key authentication reads of a request, (src/http/pipeline.ts). */
export interface KeyCredentials {
  /** The socket's address, or the forwarded client's (req.ip). */
  readonly ip: string | undefined;
  readonly authorization: string | undefined;
  /** The parsed query string (a key sent there is refused with a hint). */
  readonly query: Record<string, unknown>;
}

/** Canonical client addresses of recent peers (parsing one is a measurable part of a hot request). */
const canonical = new Map<string, string>();
const MAX_CANONICAL = 1024;

function clientAddressOf(ip: string | undefined): string {
  if (ip === undefined) return 'unknown';
  let address = canonical.get(ip);
  if (address === undefined) {
    address = IpAllowlist.clientAddress(ip) ?? 'unknown';
    if (canonical.size >= MAX_CANONICAL) canonical.clear();
    canonical.set(ip, address);
  }
  return address;
}

export type KeyAuthentication = (credentials: KeyCredentials) => Promise<AuthContext>;

/**
 * Resolves the Authorization header into the caller; a key anywhere else is never accepted. With a
 * failure limiter, every failed attempt counts against its address, and one past the address's budget
 * answers 429 instead of 401; a valid key is served whatever its address's failures (D12).
 */
export function keyAuthentication(authenticator: ApiKeyAuthenticator, failures?: AuthFailureLimiter): KeyAuthentication {
  return async ({ ip, authorization, query }) => {
    try {
      if ((authorization === undefined || authorization.trim() === '') && queryCarriesKey(query)) {
        throw AppError.unauthorized(
          'API keys are accepted only in the Authorization header ("Authorization: Bearer <API_KEY>"), never in the URL',
        );
      }
      return await authenticator.authenticate(authorization);
    } catch (error) {
      if (failures && error instanceof AppError && AUTHENTICATION_FAILURES.has(error.code)) {
        throw (await failures.recordFailure(clientAddressOf(ip))) ?? error;
      }
      throw error;
    }
  };
}
