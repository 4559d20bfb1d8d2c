import type { MikroORM } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { ApiKeyEntity } from './api-key.entity';
import { hashApiKey, isWellFormedApiKey } from './api-key.format';
import type { AuthChange } from '../../platform/auth/auth-change';
import type { AuthContext, OrganizationSnapshot } from '../../platform/auth/auth-context';
import { MemberEntity } from '../member/member.entity';
import { isPermission, permissionsOfRole } from '../../platform/auth/permissions';

interface CachedKey {
  readonly auth: AuthContext;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
}

const BEARER = /^Bearer +(\S+) *$/i;
const MAX_CACHED_KEYS = 10_000;

/** How long a key stays cached while change notifications arrive (they evict it at once). */
export const LIVE_CACHE_TTL_MS = 60_000;
/** While they cannot arrive, a cached key is read again this often, so a revocation still lands within a second. */
export const FALLBACK_CACHE_TTL_MS = 400;

export interface AuthenticatorOptions {
  /** Told the key id after every successful authentication (lastUsedAt bookkeeping). */
  lastUsed?: { record(apiKeyId: string): void };
}

/**
 * Turns an Authorization header into the caller's organization and permissions. Keys are looked up
 * by their SHA-256 hash and cached briefly, so a busy key costs no database round-trip per request.
 */
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, { key: CachedKey; loadedAt: number }>();
  /** Bumped by every invalidation, so a lookup that raced with one does not cache what it read. */
  private generation = 0;
  /** What tells this process of credential changes, once it listens: while live, keys stay cached longer. */
  changes: { isLive(): boolean } | undefined = undefined;

  constructor(
    private readonly orm: MikroORM,
    private readonly options: AuthenticatorOptions,
  ) {}

  async authenticate(authorization: string | undefined): Promise<AuthContext> {
    if (authorization === undefined || authorization.trim() === '') {
      throw AppError.unauthorized();
    }
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined || !isWellFormedApiKey(token)) {
      throw AppError.invalidApiKey();
    }
    const hash = hashApiKey(token);
    const key = await this.lookup(hash);
    if (key === null || key.revokedAt !== null) {
      throw AppError.invalidApiKey();
    }
    if (key.expiresAt !== null && key.expiresAt.getTime() <= Date.now()) {
      throw AppError.apiKeyExpired();
    }
    this.options.lastUsed?.record(key.auth.apiKeyId);
    return key.auth;
  }

  /** Forget cached keys (all of them, or those whose id is given), e.g. after a revocation. */
  invalidate(apiKeyIds?: readonly string[]): void {
    this.generation += 1;
    if (apiKeyIds === undefined) {
      this.cache.clear();
      return;
    }
    const ids = new Set(apiKeyIds);
    for (const [hash, { key }] of this.cache) if (ids.has(key.auth.apiKeyId)) this.cache.delete(hash);
  }

  /** Forget every cached key of an organization (its allowlist, plan or limit changed). */
  invalidateOrganization(organizationId: string): void {
    this.generation += 1;
    for (const [hash, { key }] of this.cache) if (key.auth.organization.id === organizationId) this.cache.delete(hash);
  }

  /** Applies a change heard from another process; undefined means anything may have changed. */
  applyChange(change: AuthChange | undefined): void {
    if (change === undefined) this.invalidate();
    else if ('apiKeyIds' in change) this.invalidate(change.apiKeyIds);
    else this.invalidateOrganization(change.organizationId);
  }

  private async lookup(hash: string): Promise<CachedKey | null> {
    const cached = this.cache.get(hash);
    if (cached && Date.now() - cached.loadedAt < (this.changes?.isLive() ? LIVE_CACHE_TTL_MS : FALLBACK_CACHE_TTL_MS)) return cached.key;
    const generation = this.generation;
    // The TTL counts from before the read: what the row said is known to be true only from then.
    const readAt = Date.now();

    const em = this.orm.em.fork();
    const row = await em.findOne(ApiKeyEntity, { keyHash: hash }, { populate: ['organization'] });
    if (row === null) {
      this.cache.delete(hash);
      return null;
    }
    // D19: a dashboard-made key holds its scopes intersected with what its creator holds now; a
    // removed creator stops it (it answers as a revoked key).
    let creatorPermissions: readonly string[] | undefined;
    let creatorRemoved = false;
    if (row.createdByMemberId !== null) {
      const creator = await em.findOne(MemberEntity, { id: row.createdByMemberId, organization: row.organization.id }, { fields: ['role'] });
      creatorRemoved = creator === null;
      creatorPermissions = creator === null ? [] : permissionsOfRole(creator.role);
    }
    const organization = row.organization.getEntity();
    const snapshot: OrganizationSnapshot = {
      id: organization.id,
      timezone: organization.timezone,
      plan: organization.plan,
      allowedIps: [...organization.allowedIps],
      restrictionMode: organization.restrictionMode,
      rateLimitPerMinute: organization.rateLimitPerMinute,
      holdMinutes: organization.holdMinutes,
      waitlistOfferMinutes: organization.waitlistOfferMinutes,
    };
    const key: CachedKey = {
      auth: {
        apiKeyId: row.id,
        apiKeyPrefix: row.prefix,
        organization: snapshot,
        permissions: row.permissions.filter(isPermission).filter((permission) => creatorPermissions?.includes(permission) ?? true),
      },
      expiresAt: row.expiresAt,
      revokedAt: creatorRemoved ? (row.revokedAt ?? new Date(readAt)) : row.revokedAt,
    };
    if (generation !== this.generation) return key;
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(hash, { key, loadedAt: readAt });
    return key;
  }
}
