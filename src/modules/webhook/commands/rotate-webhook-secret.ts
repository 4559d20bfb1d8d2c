import type { WebhookEndpointEntity } from '../webhook-endpoint.entity';
import type { WebhookRuntime } from '../../../platform/outbox/webhook-runtime';
import { newSigningSecret } from '../../../platform/crypto/secret-box';
import { rotatedSecrets } from '../webhook.policy';
import { lockEndpoint } from '../webhook.repository';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit } from '../../../platform/audit/audit-log';

/**
 * Mutation.rotateWebhookSecret (D18): the endpoint locked (two rotations at once go one after the
 * other, so the secret each caller got is the current or the previous one), then a new secret; the
 * one it replaces keeps signing beside it for 24 hours (policy `rotatedSecrets`). The returned `secret`
 * is shown this once.
 */
export async function rotateWebhookSecret(
  scope: UnitOfWorkScope,
  organizationId: string,
  endpointId: string,
  runtime: WebhookRuntime,
): Promise<{ endpoint: WebhookEndpointEntity; secret: string }> {
  // The secret is part of the unit's result: a retry after a crash gets the one that committed.
  return inUnitOfWork(scope, async (tx, unit) => {
    const secret = newSigningSecret();
    const endpoint = await lockEndpoint(tx, organizationId, endpointId);
    Object.assign(endpoint, rotatedSecrets(endpoint, runtime.secrets.seal(secret), Date.now()));
    // Neither secret enters the entry: only that it was rotated, and until when the old one still signs.
    await recordAudit(tx, unit, {
      organizationId,
      action: 'webhook_endpoint.secret_rotated',
      targetId: endpoint.id,
      summary: { url: endpoint.url, previousSignsUntil: endpoint.previousSecretExpiresAt?.toISOString() ?? null },
    });
    return { endpoint, secret };
  });
}
