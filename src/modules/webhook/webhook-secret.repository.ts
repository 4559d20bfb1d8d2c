import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../../platform/crypto/secret-box';
import type { ResealBatch } from '../../platform/crypto/reseal';

interface SealedSecrets {
  id: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
}

/**
 * One batch of `admin secret rotate` (D24) over the endpoints whose signing secret (or the previous
 * one, during its overlap) is sealed under another server secret: locked (skipping those a request
 * or a worker holds), re-sealed under the current secret, written back in one statement. Returns the
 * ids of endpoints whose secret opens under no secret (their secret must be rotated).
 */
export async function resealEndpointSecretsBatch(em: EntityManager, box: SecretBox, after: string | undefined, limit: number): Promise<ResealBatch<string>> {
  const current = box.sealedUnderCurrentPattern();
  return em.fork().transactional(async (tx) => {
    const rows = await tx.execute<SealedSecrets[]>(
      `select id, secret_ciphertext, previous_secret_ciphertext from webhook_endpoints
        where id > ? and (secret_ciphertext not like ? or previous_secret_ciphertext not like ?)
        order by id limit ? for update skip locked`,
      [after ?? '', current, current, limit],
    );
    const unreadable: string[] = [];
    const changed: SealedSecrets[] = [];
    for (const row of rows) {
      const secret = box.reseal(row.secret_ciphertext);
      const previous = row.previous_secret_ciphertext === null ? null : box.reseal(row.previous_secret_ciphertext);
      if (secret === undefined || previous === undefined) unreadable.push(row.id);
      const resealed = { id: row.id, secret_ciphertext: secret ?? row.secret_ciphertext, previous_secret_ciphertext: previous ?? row.previous_secret_ciphertext };
      if (resealed.secret_ciphertext !== row.secret_ciphertext || resealed.previous_secret_ciphertext !== row.previous_secret_ciphertext) changed.push(resealed);
    }
    if (changed.length > 0) {
      await tx.execute(
        `update webhook_endpoints e set secret_ciphertext = v.secret_ciphertext, previous_secret_ciphertext = v.previous_secret_ciphertext
           from jsonb_to_recordset(?::jsonb) as v(id text, secret_ciphertext text, previous_secret_ciphertext text)
          where e.id = v.id`,
        [JSON.stringify(changed)],
      );
    }
    return { resealed: changed.length, unreadable, last: rows.at(-1)?.id };
  });
}
