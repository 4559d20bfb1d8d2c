import type { EntityManager } from '@mikro-orm/postgresql';
import type { WebhookEndpointEntity } from '../webhook-endpoint.entity';
import type { WebhookRuntime } from '../../../platform/outbox/webhook-runtime';
import { newSigningSecret } from '../../../platform/crypto/secret-box';
import { rotatedSecrets } from '../webhook.policy';
import { lockEndpoint } from '../webhook.repository';

/**
 * Mutation.rotateWebhookSecret (D18): the endpoint locked (two rotations at once go one after the
 * other, so the secret each caller got is the current or the previous one), then a new secret; the
 * one it replaces keeps signing beside it for 24 hours (policy `rotatedSecrets`). The returned `secret`
 * is shown this once.
 */
export async function rotateWebhookSecret(
  em: EntityManager,
  organizationId: string,
  endpointId: string,
  runtime: WebhookRuntime,
): Promise<{ endpoint: WebhookEndpointEntity; secret: string }> {
  const secret = newSigningSecret();
  const endpoint = await em.transactional(async (tx) => {
    const locked = await lockEndpoint(tx, organizationId, endpointId);
    Object.assign(locked, rotatedSecrets(locked, runtime.secrets.seal(secret), Date.now()));
    return locked;
  });
  return { endpoint, secret };
}
