import type { ApiKeyEntity } from '../api-key.entity';
import { assertRotatable, graceHoursErrors, ROTATION_GRACE_HOURS, rotationDates } from '../api-key.policy';
import { lockKey } from '../api-key.repository';
import { newKeyInUnit } from './create-api-key';
import { recordAudit } from '../../../platform/audit/audit-log';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';

/**
 * `key rotate` and Mutation.rotateApiKey (D9): a replacement with the same name, permissions,
 * environment and creator (and, if the old key had a lifetime, the same lifetime from now). The old
 * key keeps working for `graceHours`, then expires; a revoked or expired key cannot be rotated.
 */
export async function rotateApiKey(
  scope: UnitOfWorkScope,
  organizationId: string,
  keyId: string,
  graceHours = ROTATION_GRACE_HOURS,
): Promise<{ previous: ApiKeyEntity; entity: ApiKeyEntity; key: string }> {
  assertValidInput(graceHoursErrors(graceHours));
  return inUnitOfWork(scope, async (tx, unit) => {
    const previous = await lockKey(tx, organizationId, keyId);
    const now = Date.now();
    assertRotatable(previous, now);
    const { replacementExpiresAt, previousExpiresAt } = rotationDates(previous, now, graceHours);
    const { entity, key } = newKeyInUnit(tx, organizationId, {
      name: previous.name,
      permissions: previous.permissions,
      environment: previous.environment,
      expiresAt: replacementExpiresAt,
      createdByMemberId: previous.createdByMemberId,
    });
    previous.expiresAt = previousExpiresAt;
    await recordAudit(tx, unit, {
      organizationId,
      action: 'api_key.rotated',
      targetId: previous.id,
      summary: {
        name: previous.name,
        prefix: previous.prefix,
        replacementId: entity.id,
        replacementPrefix: entity.prefix,
        previousExpiresAt: previousExpiresAt.toISOString(),
        replacementExpiresAt: entity.expiresAt?.toISOString() ?? null,
      },
    });
    await tx.flush();
    return { previous, entity, key };
  });
}
