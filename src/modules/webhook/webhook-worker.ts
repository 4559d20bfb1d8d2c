import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { WebhookSettings } from '../../foundation/config';
import type { WebhookMetrics, AttemptResult } from './webhook-metrics';
import type { SecretBox } from '../../platform/crypto/secret-box';
import { WebhookSender, type AttemptOutcome } from './webhook-sender';
import { WebhookListener } from './webhook-listener';
import type { Resolve } from '../../platform/outbox/webhook-destination';
import { signingCiphertexts } from './webhook.policy';
import { auditCtes } from '../../platform/audit/audit-log';
import type { UnitOfWork } from '../../platform/db/unit-of-work-scope';
import { tracing, type WebhookAttemptSpan } from '../../platform/observability/tracing';

/** An endpoint whose every attempt has failed for this long is disabled (D18). */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
const JITTER = 0.2;
/** Who disables an endpoint that failed for 5 days, in the audit log (D26): the delivery worker. */
const DELIVERY_UNIT: UnitOfWork = { actor: { kind: 'system', task: 'webhook-delivery' } };

/** A message whose secret this server cannot decrypt is not sent: the attempt says why, and it is retried. */
const UNSIGNABLE: AttemptOutcome = {
  ok: false,
  statusCode: null,
  durationMs: 0,
  error: "not sent: the signing secret cannot be decrypted with this server's SECRET_KEY",
  responseBody: null,
};

interface ClaimedRow {
  organization_id: string;
  delivery_id: string;
  attempt_count: number;
  retry_index: number;
  interrupted: Date | null;
  message_id: string;
  body: string;
  /** The traceparent of the change that wrote the message (D27), or null. */
  trace_parent: string | null;
  endpoint_id: string;
  url: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
}

export interface WorkerOptions {
  readonly orm: MikroORM;
  readonly settings: WebhookSettings;
  /** The box of signing secrets (webhook-runtime.ts). */
  readonly secrets: SecretBox;
  readonly metrics: WebhookMetrics;
  readonly logger: Logger;
  /** A connection string for LISTEN; undefined on the single-connection embedded database (it polls). */
  readonly listenUrl: string | undefined;
  readonly resolve?: Resolve;
}

/** The delay before retry `index` (0 = the first retry), with ±20 % jitter so retries do not bunch up. */
export function retryDelayMs(schedule: readonly number[], index: number): number | undefined {
  const base = schedule[index];
  if (base === undefined) return undefined;
  return Math.round(base * (1 - JITTER + Math.random() * 2 * JITTER));
}

/**
 * Delivers the outbox. Any number of processes run one: each claims due deliveries with
 * FOR UPDATE SKIP LOCKED and leases them (next_attempt_at moves past the attempt's timeout), so no
 * two send the same attempt; a process that dies mid-attempt leaves the lease to expire and another
 * retries. Woken by NOTIFY on commit (or an in-process nudge), and polls for retries that fall due.
 */
export class WebhookWorker {
  private readonly sender: WebhookSender;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly listener: WebhookListener | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private ticking = false;
  private again = false;
  private stopped = false;

  constructor(private readonly options: WorkerOptions) {
    this.sender = new WebhookSender({
      timeoutMs: options.settings.timeoutMs,
      allowPrivateNetworks: options.settings.allowPrivateNetworks,
      resolve: options.resolve,
    });
    if (options.listenUrl) this.listener = new WebhookListener(options.listenUrl, () => this.wake(), options.logger);
  }

  async start(): Promise<void> {
    await this.listener?.start();
    const interval = this.options.listenUrl ? this.options.settings.pollIntervalMs : Math.min(this.options.settings.pollIntervalMs, 250);
    this.pollTimer = setInterval(() => this.wake(), interval);
    this.pollTimer.unref();
    this.wake();
  }

  /** Look for due deliveries now (coalesced: one claim loop at a time). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    void this.tick()
      .catch((error: unknown) => this.options.logger.warn({ err: errorText(error) }, 'webhook worker: claiming deliveries failed'))
      .finally(() => {
        this.ticking = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Stops claiming, and waits for the attempts under way (each ends within its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    await this.listener?.stop();
    await Promise.all([...this.inFlight]);
    this.sender.close();
  }

  private async tick(): Promise<void> {
    for (;;) {
      const capacity = this.options.settings.concurrency - this.inFlight.size;
      if (this.stopped || capacity <= 0) return;
      const claimed = await this.claim(capacity);
      for (const row of claimed) {
        const attempt: Promise<void> = this.attempt(row)
          .catch((error: unknown) => this.options.logger.error({ err: errorText(error), messageId: row.message_id }, 'webhook attempt could not be recorded'))
          .finally(() => {
            this.inFlight.delete(attempt);
            this.wake();
          });
        this.inFlight.add(attempt);
      }
      if (claimed.length < capacity) return;
    }
  }

  private claim(limit: number): Promise<ClaimedRow[]> {
    const { leaseMs } = this.options.settings;
    return this.options.orm.em.fork().execute<ClaimedRow[]>(
      `with due as (
         select d.id, d.locked_until from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
         where d.status = 'PENDING' and d.next_attempt_at <= now() and e.enabled
         order by d.next_attempt_at limit ? for update of d skip locked)
       update webhook_deliveries d
       set attempt_count = d.attempt_count + 1, locked_until = now() + ? * interval '1 millisecond',
           next_attempt_at = now() + ? * interval '1 millisecond'
       from due, webhook_messages m, webhook_endpoints e
       where d.id = due.id and m.id = d.message_id and e.id = d.endpoint_id
       returning d.organization_id, d.id as delivery_id, d.attempt_count, d.retry_index, due.locked_until as interrupted, m.id as message_id, m.body, m.trace_parent,
         e.id as endpoint_id, e.url, e.secret_ciphertext, e.previous_secret_ciphertext, e.previous_secret_expires_at`,
      [limit, leaseMs, leaseMs],
    );
  }

  /** One attempt; with tracing on (D27), inside its span, whose `traceparent` the receiver gets and whose trace id is stored. */
  private attempt(row: ClaimedRow): Promise<void> {
    const span = tracing.runtime?.webhookAttempt({ parent: row.trace_parent, url: row.url, messageId: row.message_id, attempt: row.attempt_count });
    return this.attemptOnce(row, span);
  }

  private async attemptOnce(row: ClaimedRow, span: WebhookAttemptSpan | undefined): Promise<void> {
    if (row.interrupted) await this.recordInterrupted(row);
    const attemptedAt = new Date();
    const signing = this.signingSecrets(row);
    const outcome = signing
      ? await this.sender.send({ id: row.message_id, body: row.body, url: row.url, secrets: signing, headers: span?.headers })
      : UNSIGNABLE;
    span?.end(outcome);
    this.options.metrics.attempts.inc({ result: resultOf(outcome) });
    this.options.metrics.duration.observe(outcome.durationMs / 1000);
    await this.record(row, attemptedAt, outcome, span?.traceId ?? null);
  }

  /** The current secret, and the previous one while its rotation overlap lasts; undefined when the key cannot open them. */
  private signingSecrets(row: ClaimedRow): string[] | undefined {
    try {
      const ciphertexts = signingCiphertexts(
        {
          secretCiphertext: row.secret_ciphertext,
          previousSecretCiphertext: row.previous_secret_ciphertext,
          previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at),
        },
        Date.now(),
      );
      return ciphertexts.map((ciphertext) => this.options.secrets.open(ciphertext));
    } catch {
      return undefined;
    }
  }

  /** The previous holder's lease ran out without a result: it died (or hung) during that attempt. */
  private recordInterrupted(row: ClaimedRow): Promise<unknown> {
    return this.options.orm.em.fork().execute(
      `insert into webhook_attempts (organization_id, delivery_id, attempt_number, attempted_at, status_code, duration_ms, error, response_body)
       values (?, ?, ?, ?, null, 0, 'interrupted: the delivering process stopped before recording a result', null)
       on conflict (organization_id, delivery_id, attempt_number) do nothing`,
      [row.organization_id, row.delivery_id, row.attempt_count - 1, new Date(row.interrupted as Date)],
    );
  }

  private async record(row: ClaimedRow, attemptedAt: Date, outcome: AttemptOutcome, traceId: string | null): Promise<void> {
    const { settings, metrics, logger } = this.options;
    const retryIn = outcome.ok ? undefined : retryDelayMs(settings.retryScheduleMs, row.retry_index);
    const status = outcome.ok ? 'SUCCEEDED' : retryIn === undefined ? 'FAILED' : 'PENDING';
    if (!outcome.ok) {
      // Never the secret, the signature or the body: where, which message, and why.
      logger.warn(
        {
          webhookEndpointId: row.endpoint_id,
          messageId: row.message_id,
          attempt: row.attempt_count,
          // Without the query string, which may hold the receiver's own token.
          destination: destinationOf(row.url),
          error: outcome.error,
          nextRetryInMs: retryIn ?? null,
        },
        `webhook attempt failed: ${outcome.error}`,
      );
    }
    // One statement (atomic, one round trip): the attempt; the delivery, only while the lease is still
    // ours (same attempt number, else another worker owns it now); the endpoint's failure clock; and,
    // when this attempt disables the endpoint, its audit entry by the system (D26).
    const disabledAudit = auditCtes(
      DELIVERY_UNIT,
      { action: 'webhook_endpoint.updated', summary: { enabled: { from: true, to: false }, disabledReason: 'every message failed for 5 days' } },
      'endpoint',
      'g.was_enabled and not g.enabled',
    );
    const [result] = await this.options.orm.em.fork().execute<Array<{ updated: number; disabled: boolean | null }>>(
      `with attempt as (
         insert into webhook_attempts (organization_id, delivery_id, attempt_number, attempted_at, status_code, duration_ms, error, response_body, trace_id)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning delivery_id),
       delivery as (
         update webhook_deliveries set status = ?, retry_index = retry_index + ?, locked_until = null, last_attempt_at = ?,
           next_attempt_at = case when ?::int is null then next_attempt_at else now() + ?::int * interval '1 millisecond' end
         where id = ? and attempt_count = ? returning endpoint_id),
       endpoint as (
         update webhook_endpoints e set
           failing_since = case when ?::boolean then null else coalesce(e.failing_since, now()) end,
           enabled = case when not ?::boolean and e.failing_since <= now() - ? * interval '1 millisecond' then false else e.enabled end,
           disabled_reason = case when not ?::boolean and e.failing_since <= now() - ? * interval '1 millisecond'
             then 'every message failed for 5 days' else e.disabled_reason end
         from delivery, webhook_endpoints was
         where e.id = delivery.endpoint_id and was.id = e.id and (not ?::boolean or e.failing_since is not null)
         returning e.id, e.organization_id, e.enabled, was.enabled as was_enabled),
       ${disabledAudit.sql}
       select (select count(*) from delivery)::int as updated, (select not enabled from endpoint) as disabled`,
      [
        row.organization_id,
        row.delivery_id,
        row.attempt_count,
        attemptedAt,
        outcome.statusCode,
        outcome.durationMs,
        outcome.error,
        outcome.responseBody,
        traceId,
        status,
        outcome.ok ? 0 : 1,
        attemptedAt,
        retryIn ?? null,
        retryIn ?? null,
        row.delivery_id,
        row.attempt_count,
        outcome.ok,
        outcome.ok,
        DISABLE_AFTER_MS,
        outcome.ok,
        DISABLE_AFTER_MS,
        outcome.ok,
        ...disabledAudit.bindings,
      ],
    );
    if (result.updated === 0) return;
    const disabled = result.disabled === true;
    if (status !== 'PENDING') metrics.deliveries.inc({ outcome: status === 'SUCCEEDED' ? 'succeeded' : 'failed' });
    if (disabled) logger.warn({ webhookEndpointId: row.endpoint_id }, 'webhook endpoint disabled: every message failed for 5 days');
  }
}

function resultOf(outcome: AttemptOutcome): AttemptResult {
  if (outcome.ok) return 'success';
  if (outcome.statusCode !== null) return 'http_error';
  if (outcome.error?.startsWith('timeout')) return 'timeout';
  if (outcome.error?.startsWith('refused')) return 'refused';
  return 'network_error';
}

function destinationOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'invalid url';
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
