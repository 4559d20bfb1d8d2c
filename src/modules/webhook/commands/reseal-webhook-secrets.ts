import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../../../platform/crypto/secret-box';
import { resealInBatches, type ResealTotals } from '../../../platform/crypto/reseal';
import { resealEndpointSecretsBatch } from '../webhook-secret.repository';

/**
 * `admin secret rotate` (D24): every endpoint's signing secrets sealed under the current server secret,
 * in batches of `batchSize` rows while the service serves. Endpoints whose secret opens under neither
 * SECRET_KEY nor SECRET_KEY_PREVIOUS are listed, left as they are (their secret must be rotated).
 */
export function resealWebhookSecrets(em: EntityManager, box: SecretBox, batchSize: number, progress: (line: string) => void): Promise<ResealTotals> {
  return resealInBatches('webhook endpoint secrets', (after: string | undefined) => resealEndpointSecretsBatch(em, box, after, batchSize), progress);
}
