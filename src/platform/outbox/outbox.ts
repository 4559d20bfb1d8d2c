import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../foundation/ids';
import type { SqlPart } from '../../foundation/sql-part';
import { boundTrace, tracing, traceparentOf, TRACEPARENT_PLACEHOLDER } from '../observability/tracing';

/** A message's `data`: the JSON object the module that causes the message presents (D18). */
export type WebhookData = object;

/**
 * Workers LISTEN here. Nothing NOTIFYs inside a change's transaction (a NOTIFY takes a lock that
 * serializes every commit of the database): the unit of work tells the process after the commit
 * (`outboxWritten` of its scope), and the process wakes its own worker and NOTIFYs the others once per
 * burst of commits (src/modules/webhook/webhook-wake.ts).
 */
export const WEBHOOK_CHANNEL = 'event_service_webhooks';

/** The transactions (entity managers) that wrote outbox messages; the unit of work reads it after COMMIT. */
const wroteOutbox = new WeakSet<EntityManager>();

/** Marks `em`'s transaction as one that wrote outbox messages (for a statement that writes them itself). */
export function noteOutboxWrite(em: EntityManager): void {
  wroteOutbox.add(em);
}

/** Whether `em`'s transaction wrote outbox messages (and forgets it: asked once, after its commit). */
export function takeOutboxWrite(em: EntityManager): boolean {
  return wroteOutbox.delete(em);
}

/**
 * The transactional outbox (D18). Called by a module's command inside the transaction of its change,
 * with that transaction's EntityManager: writes the message and one delivery per enabled endpoint of
 * the organization that wants the type, which exist only if that transaction commits (the workers
 * are woken after the commit, see WEBHOOK_CHANNEL). Costs one statement when no endpoint wants the message. `data` may be a
 * function, called (in the same transaction) only when one does. The outbox knows nothing of what a
 * message is about: the type and the data are the caller's.
 */
export async function enqueueWebhook(
  em: EntityManager,
  organizationId: string,
  type: string,
  data: WebhookData | (() => WebhookData | Promise<WebhookData>),
): Promise<void> {
  const wanted = await em.execute<Array<{ id: string }>>(
    `select id from webhook_endpoints where organization_id = ? and enabled and (cardinality(event_types) = 0 or ? = any(event_types))`,
    [organizationId, type],
  );
  if (wanted.length === 0) return;
  const payload: WebhookData = typeof data === 'function' ? await (data as () => WebhookData | Promise<WebhookData>)() : data;
  await insertMessage(em, organizationId, type, payload, wanted.map((row) => row.id));
}

/** Writes one message for the given endpoints (the workers are woken after the commit). Returns its id. */
export async function insertMessage(
  em: EntityManager,
  organizationId: string,
  type: string,
  data: WebhookData,
  endpointIds: readonly string[],
): Promise<string> {
  const id = newId('msg');
  const createdAt = new Date();
  const body = JSON.stringify({ type, timestamp: createdAt.toISOString(), data });
  // trace_parent: the change's span when tracing is on (D27), continued by the message's attempts.
  await em.execute(`insert into webhook_messages (id, organization_id, type, body, created_at, trace_parent) values (?, ?, ?, ?, ?, ?)`, [
    id,
    organizationId,
    type,
    body,
    createdAt,
    traceparentOf(boundTrace(em)),
  ]);
  await em.execute(
    `insert into webhook_deliveries (organization_id, message_id, endpoint_id, next_attempt_at, created_at)
     select organization_id, ?, id, now(), now() from webhook_endpoints where id = any(?::text[])`,
    [id, `{${endpointIds.join(',')}}`],
  );
  noteOutboxWrite(em);
  return id;
}

// ---- The outbox inside a change's own statement -------------------------------------------------

export type { SqlPart } from '../../foundation/sql-part';

const HOLE = '\u0001hole\u0001';
const QUOTED_HOLE = JSON.stringify(HOLE);

/**
 * JSON text with values only the statement knows (an id the database assigns, a row read under its
 * lock): `value` with `hole(expression)` values becomes a format() call that fills each with the JSON of
 * its SQL expression (`to_json(e.id)::text`), keys in the order given, the same text JSON.stringify
 * makes, then `suffix`. The SQL depends on `holes` only (a statement's text stays the same whether this
 * value shows its holes or not): without holes the text is bound as it is; with them, a value that
 * shows none goes through format() unchanged. Returns the SQL expression and its binding.
 */
export function jsonWithHoles(value: object, holes: readonly string[], suffix = ''): SqlPart {
  const text = `${JSON.stringify(value)}${suffix}`;
  if (holes.length === 0) {
    if (text.includes(QUOTED_HOLE)) throw new Error('jsonWithHoles: a hole in the value, no expression');
    return { sql: '?::text', bindings: [text] };
  }
  const parts = text.replaceAll('%', '%%').split(QUOTED_HOLE);
  const count = parts.length - 1;
  if (count !== 0 && count !== holes.length) throw new Error(`jsonWithHoles: ${count} holes in the value, ${holes.length} expressions`);
  return { sql: `format(?::text, ${holes.join(', ')})`, bindings: [parts.join('%s')] };
}

/** A value of `data` that the statement fills in (see jsonWithHoles). */
export const hole = (): string => HOLE;

/**
 * The transactional outbox as CTEs of the change's own statement (D18: no round trip of its own):
 * when the change's `gate` CTE has a row and an enabled endpoint of the organization wants `type`, the
 * message with `body` and one delivery per such endpoint are inserted with the change. Adds the CTEs
 * `outbox_wanted`, `outbox_message` and `outbox_deliveries` (a statement selects
 * `exists (select 1 from outbox_message) as outbox_written` and calls noteOutboxWrite when true).
 * `data` is the message's data with `hole()` for each value the statement fills in, from `holes`
 * (SQL expressions giving JSON text, which may name the gate's columns as `g.column`).
 */
export function outboxCtes(organizationId: string, type: string, gate: string, data: object, holes: readonly string[] = []): SqlPart {
  const createdAt = new Date();
  // The message body; its `data` has values only the statement knows.
  const body = jsonWithHoles({ type, timestamp: createdAt.toISOString(), data }, holes);
  return {
    sql: `outbox_wanted as (
       select id, organization_id from webhook_endpoints
        where organization_id = ?::text and enabled and (cardinality(event_types) = 0 or ?::text = any(event_types))),
     outbox_message as (
       insert into webhook_messages (id, organization_id, type, body, created_at, trace_parent)
       select ?::text, ?::text, ?::text, ${body.sql}, ?::timestamptz, nullif(?::text, '${TRACEPARENT_PLACEHOLDER}') from ${gate} g
        where exists (select 1 from outbox_wanted)
       returning id),
     outbox_deliveries as (
       insert into webhook_deliveries (organization_id, message_id, endpoint_id, next_attempt_at, created_at)
       select w.organization_id, m.id, w.id, now(), now() from outbox_message m cross join outbox_wanted w)`,
    // trace_parent (D27): the request's, filled in by executePrepared, which knows the request.
    bindings: [organizationId, type, newId('msg'), organizationId, type, ...body.bindings, createdAt, tracing.runtime ? TRACEPARENT_PLACEHOLDER : null],
  };
}
