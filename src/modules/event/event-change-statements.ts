import type { EntityManager } from '@mikro-orm/postgresql';
import { auditCtes } from '../../platform/audit/audit-log';
import { hole, noteOutboxWrite, outboxCtes, type SqlPart } from '../../platform/outbox/outbox';

/*
 * What the statements of an event's changes share (event.repository.ts, event-update.repository.ts):
 * the outbox (and audit) CTEs each one carries, and how it tells that it wrote a message.
 */

/** The webhook rows a change's statement writes (event.webhooks.ts): CTEs gated on the CTE `gate`. */
export type OutboxOf = (gate: string) => SqlPart;

/** The last select of a statement with outbox CTEs tells whether it wrote a message. */
export const OUTBOX_WRITTEN = 'exists (select 1 from outbox_message) as outbox_written';

export function noteOutbox(em: EntityManager, row: { outbox_written?: boolean } | undefined): void {
  if (row?.outbox_written) noteOutboxWrite(em);
}

/** A statement whose text includes the outbox (and audit) CTEs of a change: one variant per text of those CTEs. */
export interface WithMessages {
  /** The CTEs' SQL (OutboxOf), with knex's `?` placeholders; their bindings are the parameter `messages`. */
  readonly messages: string;
}

export const byMessages = { key: (variant: WithMessages) => variant.messages };

/** What the snapshots show for the outbox CTEs: a message of `type` gated on `gate`, with `holes` filled by the statement. */
export const exampleOutbox = (type: string, gate: string, holes: readonly string[] = []): string =>
  outboxCtes('org_example', type, gate, Object.fromEntries(holes.map((_, at) => [`filled${at}`, hole()])), holes).sql;
export const exampleAudit = (gate: string, action: 'event.published' | 'event.deleted'): string =>
  auditCtes({ actor: { kind: 'api-key', apiKeyId: 'key_example', prefix: 'nk_test_example' } }, { organizationId: 'org_example', action }, gate).sql;

