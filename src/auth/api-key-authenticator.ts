import type { MikroORM } from '@mikro-orm/postgresql';
import { AppError } from '../errors/app-error';
import { ApiKeyEntity } from '../modules/api-key/api-key.entity';
import { hashApiKey, isWellFormedApiKey } from '../modules/api-key/api-key.format';
import type { AuthContext, OrganizationSnapshot } from './auth-context';
import { isPermission } from './permissions';

interface CachedKey {
  readonly auth: AuthContext;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
}

const BEARER = /^Bearer +(\S+) *$/i;
const MAX_CACHED_KEYS = 10_000;

export interface AuthenticatorOptions {
  /** How long a looked-up key is trusted before it is read again. */
  cacheTtlMs: number;
}

/**
 * Turns an Authorization header into the caller's organization and permissions. Keys are looked up
 * by their SHA-256 hash and cached briefly, so a busy key costs no database round-trip per request.
 */
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, { key: CachedKey; loadedAt: number }>();

  constructor(
    private readonly orm: MikroORM,
    private readonly options: AuthenticatorOptions,
  ) {}

  async authenticate(authorization: string | undefined): Promise<AuthContext> {
    if (authorization === undefined || authorization.trim() === '') {
      throw new AppError('UNAUTHORIZED', 'Missing API key: send it in the Authorization header as "Bearer <API_KEY>"');
    }
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined || !isWellFormedApiKey(token)) {
      throw new AppError('INVALID_API_KEY', 'The API key is invalid or has been revoked');
    }
    const hash = hashApiKey(token);
    const key = await this.lookup(hash);
    if (key === null || key.revokedAt !== null) {
      throw new AppError('INVALID_API_KEY', 'The API key is invalid or has been revoked');
    }
    if (key.expiresAt !== null && key.expiresAt.getTime() <= Date.now()) {
      throw new AppError('API_KEY_EXPIRED', 'The API key has expired; create a new one');
    }
    return key.auth;
  }

  /** Forget cached keys (all of them, or those whose id is given), e.g. after a revocation. */
  invalidate(apiKeyIds?: readonly string[]): void {
    if (apiKeyIds === undefined) {
      this.cache.clear();
      return;
    }
    const ids = new Set(apiKeyIds);
    for (const [hash, { key }] of this.cache) if (ids.has(key.auth.apiKeyId)) this.cache.delete(hash);
  }

  private async lookup(hash: string): Promise<CachedKey | null> {
    const cached = this.cache.get(hash);
    if (cached && Date.now() - cached.loadedAt < this.options.cacheTtlMs) return cached.key;

    const row = await this.orm.em.fork().findOne(ApiKeyEntity, { keyHash: hash }, { populate: ['organization'] });
    if (row === null) {
      this.cache.delete(hash);
      return null;
    }
    const organization = row.organization.getEntity();
    const snapshot: OrganizationSnapshot = {
      id: organization.id,
      timezone: organization.timezone,
      plan: organization.plan,
      allowedIps: [...organization.allowedIps],
      restrictionMode: organization.restrictionMode,
      rateLimitPerMinute: organization.rateLimitPerMinute,
    };
    const key: CachedKey = {
      auth: { apiKeyId: row.id, organization: snapshot, permissions: row.permissions.filter(isPermission) },
      expiresAt: row.expiresAt,
      revokedAt: row.revokedAt,
    };
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(hash, { key, loadedAt: Date.now() });
    return key;
  }
}
