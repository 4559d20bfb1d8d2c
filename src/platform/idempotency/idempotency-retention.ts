import { singleTableRule } from '../retention/retention-job';
import { deleteExpiredIdempotencyKeys } from './idempotency-key.repository';

/** The retention job's rule for Idempotency-Key records past their lifetime (deleteExpiredIdempotencyKeys). */
export const idempotencyKeysRetention = singleTableRule('idempotency_keys', deleteExpiredIdempotencyKeys);
