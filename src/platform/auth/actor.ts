import type { AuthContext } from './auth-context';

/**
 * Who makes a change, as one typed value: the request context carries it and the unit of work
 * (src/platform/db/unit-of-work.ts) receives it, so an audit entry or the idempotency record can say
 * who acted without guessing from `apiKeyId` strings. Each kind carries only what it really has: no
 * made-up key id for a member, an operator or the system.
 */
export type Actor =
  /** An API key of the organization (its id; its prefix, `nk_live_ab12…`, when the authenticator knew it). */
  | { readonly kind: 'api-key'; readonly apiKeyId: string; readonly prefix?: string }
  /** A dashboard member signed in (a session stands in for a key on /graphql, D19). */
  | { readonly kind: 'member'; readonly memberId: string }
  /** The operator at the admin CLI (whoever runs `npm run admin` on the server's database). */
  | { readonly kind: 'operator' }
  /** The service itself: start-up work, background jobs. */
  | { readonly kind: 'system'; readonly task: string };

export const OPERATOR: Actor = Object.freeze({ kind: 'operator' });

/** The actor behind an authenticated request. */
export function actorOf(auth: AuthContext): Actor {
  if (auth.session) return { kind: 'member', memberId: auth.session.memberId };
  return auth.apiKeyPrefix === undefined ? { kind: 'api-key', apiKeyId: auth.apiKeyId } : { kind: 'api-key', apiKeyId: auth.apiKeyId, prefix: auth.apiKeyPrefix };
}
