import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { checkedLookup, DestinationRefused, resolvePublic, systemResolve, type Resolve } from '../../platform/outbox/webhook-destination';

/** How much of a response body is kept with the attempt, for whoever debugs the receiver. */
export const RESPONSE_BODY_LIMIT = 1024;

export interface OutgoingMessage {
  readonly id: string;
  readonly body: string;
  readonly url: string;
  /** Every secret that signs now: the current one, and during a rotation the previous one. */
  readonly secrets: readonly string[];
  /** Headers sent besides the signed ones: the attempt's `traceparent` when tracing is on (D27). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface AttemptOutcome {
  readonly ok: boolean;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly responseBody: string | null;
}

export interface SenderOptions {
  readonly timeoutMs: number;
  readonly allowPrivateNetworks: boolean;
  readonly resolve?: Resolve;
}

/** The Standard Webhooks headers: one `v1,` signature per secret, space-separated. */
export function signedHeaders(message: Pick<OutgoingMessage, 'id' | 'body' | 'secrets'>, at: Date): Record<string, string> {
  const signatures = message.secrets.map((secret) => new Webhook(secret).sign(message.id, at, message.body));
  return {
    'content-type': 'application/json',
    'user-agent': 'event-service-webhooks/1',
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

/**
 * One attempt: resolve and check the destination, connect to a checked address, POST, and wait at most
 * `timeoutMs` for the status and the first bytes of the body. Redirects are not followed (a 3xx is a
 * failure). Connections are kept alive between attempts; a POST that a kept-alive connection lost
 * unread is sent again on a new one (below). Never throws: every outcome is an attempt to record.
 */
export class WebhookSender {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };
  private readonly lookup;

  constructor(private readonly options: SenderOptions) {
    this.lookup = checkedLookup(options.allowPrivateNetworks, options.resolve ?? systemResolve);
  }

  async send(message: OutgoingMessage): Promise<AttemptOutcome> {
    const started = performance.now();
    const outcome = (fields: Omit<AttemptOutcome, 'durationMs'>): AttemptOutcome => ({
      ...fields,
      durationMs: Math.round(performance.now() - started),
    });
    const url = new URL(message.url);
    const agent = url.protocol === 'https:' ? this.agents['https:'] : url.protocol === 'http:' ? this.agents['http:'] : undefined;
    if (!agent || (url.protocol === 'http:' && !this.options.allowPrivateNetworks)) {
      return outcome({ ok: false, statusCode: null, error: 'refused: the url must use https', responseBody: null });
    }
    try {
      // Literal addresses never reach `lookup`: check them here.
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (/^[\d.]+$|:/.test(host)) await resolvePublic(host, this.options.allowPrivateNetworks, this.options.resolve);
    } catch (error) {
      return outcome({ ok: false, statusCode: null, error: `refused: ${(error as Error).message}`, responseBody: null });
    }
    const body = Buffer.from(message.body, 'utf8');
    const headers = { ...message.headers, ...signedHeaders(message, new Date()), 'content-length': String(body.length) };
    const transport = url.protocol === 'https:' ? https : http;

    return new Promise<AttemptOutcome>((resolve) => {
      let settled = false;
      let request: http.ClientRequest;
      // A response read to its end leaves the connection to the keep-alive pool; anything else closes it.
      const finish = (result: Omit<AttemptOutcome, 'durationMs'>, complete = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!complete) request.destroy();
        resolve(outcome(result));
      };
      const timer = setTimeout(
        () => finish({ ok: false, statusCode: null, error: `timeout: no response within ${this.options.timeoutMs} ms`, responseBody: null }),
        this.options.timeoutMs,
      );
      const post = (pooled: boolean) => {
        const sent = transport.request(url, { method: 'POST', headers, agent: pooled ? agent : false, lookup: this.lookup }, (response) => {
          const statusCode = response.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let size = 0;
          const done = (complete: boolean) => {
            const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
            const ok = statusCode >= 200 && statusCode < 300;
            finish({ ok, statusCode, error: ok ? null : `HTTP ${statusCode}`, responseBody: text === '' ? null : text }, complete);
          };
          response.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            size += chunk.length;
            if (size >= RESPONSE_BODY_LIMIT) done(false);
          });
          response.on('end', () => done(true));
          response.on('error', () => done(false));
        });
        request = sent;
        sent.on('error', (error: NodeJS.ErrnoException) => {
          if (settled) return;
          // A kept-alive connection the receiver closed as idle just as this request went out on it
          // (its FIN and our request crossed, or it reset the unread request): the receiver never
          // read the request. Sent once more on a new connection, within the same attempt and
          // timeout, as Node's documentation advises for `reusedSocket`; recorded as a failed attempt,
          // it was retried later as a second attempt of a message the receiver had not seen (D18).
          if (pooled && sent.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
            post(false);
            return;
          }
          const refused = error instanceof DestinationRefused;
          const reason = refused ? `refused: ${error.message}` : `${error.code ?? 'error'}: ${error.message}`;
          finish({ ok: false, statusCode: null, error: reason, responseBody: null });
        });
        sent.end(body);
      };
      post(true);
    });
  }

  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}
