import type { PreparedStatements } from '../../platform/db/prepared-statements';
import type { Logger } from 'pino';
import type { WebhookSettings } from '../../foundation/config';
import type { WebhookMetrics, AttemptResult } from './webhook-metrics';
import type { SecretBox } from '../../platform/crypto/secret-box';
import { WebhookSender, type AttemptOutcome } from './webhook-sender';
import { WebhookListener } from './webhook-listener';
import type { Resolve } from '../../platform/outbox/webhook-destination';
import { signingCiphertexts } from './webhook.policy';
import { claimDueDeliveries, recordAttempt, recordInterruptedAttempt, type ClaimedRow } from './webhook-delivery.repository';
import { tracing, type WebhookAttemptSpan } from '../../platform/observability/tracing';

const JITTER = 0.2;

/** A message whose secret this server cannot decrypt is not sent: the attempt says why, and it is retried. */
const UNSIGNABLE: AttemptOutcome = {
  ok: false,
  statusCode: null,
  durationMs: 0,
  error: "not sent: the signing secret cannot be decrypted with this server's SECRET_KEY",
  responseBody: null,
};


export interface WorkerOptions {
  /** Where the worker's statements run (webhook-delivery.repository.ts): prepared, on the service's pool of one-statement writes. */
  readonly statements: PreparedStatements;
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
 * Delivers the outbox. Any number of processes run one: each claims due deliveries, skipping those
 * another holds, and leases them (next_attempt_at moves past the attempt's timeout), so no
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
      const claimed = await claimDueDeliveries(this.options.statements, capacity, this.options.settings.leaseMs);
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


  /** One attempt; with tracing on (D27), inside its span, whose `traceparent` the receiver gets and whose trace id is stored. */
  private attempt(row: ClaimedRow): Promise<void> {
    const span = tracing.runtime?.webhookAttempt({ parent: row.trace_parent, url: row.url, messageId: row.message_id, attempt: row.attempt_count });
    return this.attemptOnce(row, span);
  }

  private async attemptOnce(row: ClaimedRow, span: WebhookAttemptSpan | undefined): Promise<void> {
    if (row.interrupted) await recordInterruptedAttempt(this.options.statements, row);
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
    const result = await recordAttempt(this.options.statements, row, { attemptedAt, outcome, traceId, status, retryIn });
    if (!result.updated) return;
    const disabled = result.disabled;
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
