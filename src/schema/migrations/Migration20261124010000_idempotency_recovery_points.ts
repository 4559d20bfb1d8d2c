import { Migration } from '@mikro-orm/migrations';

/**
 * Recovery points on Idempotency-Key records (D17). The unit of work of a request that holds
 * a key writes, in the transaction of its change, what it committed (`recovery_points`: step number →
 * the result's reference, sealed) and who acted (`actor`). `claim_token` names the request holding the
 * key: only it may write a recovery point or the answer, so a request that outlived its lease cannot
 * commit beside the one that took the key over.
 */
export class Migration20261124010000_idempotency_recovery_points extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "idempotency_keys"
  add column "claim_token" uuid null,
  add column "recovery_points" jsonb null,
  add column "actor" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table "idempotency_keys" drop column "claim_token", drop column "recovery_points", drop column "actor";');
  }
}
