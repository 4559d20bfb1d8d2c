import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../../platform/crypto/secret-box';
import type { ResealBatch } from '../../platform/crypto/reseal';
import { executeOnOrm } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';

const sql = sqlStatements(__filename);

interface SealedSecrets {
  id: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
}

/** Endpoints after `after` with a secret not sealed under the `current` pattern (a LIKE pattern), locked. */
const SEALED_SECRETS = sql.statement<{ after: string; current: string; limit: number }, SealedSecrets>(
  'sealedSecrets',
  `select id, secret_ciphertext, previous_secret_ciphertext from webhook_endpoints
        where id > :after and (secret_ciphertext not like :current or previous_secret_ciphertext not like :current)
        order by id limit :limit for update skip locked`,
);
const WRITE_RESEALED = sql.statement<{ changed: string }>(
  'writeResealed',
  `update webhook_endpoints e set secret_ciphertext = v.secret_ciphertext, previous_secret_ciphertext = v.previous_secret_ciphertext
           from jsonb_to_recordset(:changed::jsonb) as v(id text, secret_ciphertext text, previous_secret_ciphertext text)
          where e.id = v.id`,
);

/**
 * One batch of `admin secret rotate` (D24) over the endpoints whose signing secret (or the previous
 * one, during its overlap) is sealed under another server secret: locked (skipping those a request
 * or a worker holds), re-sealed under the current secret, written back in one statement. Returns the
 * ids of endpoints whose secret opens under no secret (their secret must be rotated).
 */
export async function resealEndpointSecretsBatch(em: EntityManager, box: SecretBox, after: string | undefined, limit: number): Promise<ResealBatch<string>> {
  const current = box.sealedUnderCurrentPattern();
  return em.fork().transactional(async (tx) => {
    const rows = await executeOnOrm(tx, SEALED_SECRETS, { after: after ?? '', current, limit });
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
      await executeOnOrm(tx, WRITE_RESEALED, { changed: JSON.stringify(changed) });
    }
    return { resealed: changed.length, unreadable, last: rows.at(-1)?.id };
  });
}
