import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedMessage {
  readonly id: string;
  /** The request path and query (tests tell endpoints apart by a query parameter). */
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly json: { type: string; timestamp: string; data: any };
  readonly receivedAt: number;
}

/** What the receiver answers: a status, or 'hang' (never answers). */
export type Behaviour = number | 'hang';

/**
 * A real HTTP receiver on loopback (the server under test runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true).
 * Records every request; answers 200 unless told otherwise.
 */
export class WebhookReceiver {
  readonly received: ReceivedMessage[] = [];
  behaviour: Behaviour | ((message: ReceivedMessage) => Behaviour) = 200;
  private readonly server: http.Server;
  private readonly waiters = new Set<() => void>();
  private readonly hanging = new Set<http.ServerResponse>();
  port = 0;

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const message: ReceivedMessage = {
          id: String(req.headers['webhook-id']),
          path: req.url ?? '',
          headers: req.headers,
          body,
          json: JSON.parse(body),
          receivedAt: Date.now(),
        };
        this.received.push(message);
        const behaviour = typeof this.behaviour === 'function' ? this.behaviour(message) : this.behaviour;
        if (behaviour === 'hang') {
          this.hanging.add(res);
        } else {
          res.writeHead(behaviour, { 'content-type': 'text/plain' }).end(behaviour < 300 ? 'ok' : `failing with ${behaviour}`);
        }
        for (const waiter of this.waiters) waiter();
      });
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async listen(port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Resolves once `done(received)` holds; rejects after `timeoutMs` with what arrived. */
  waitFor(done: (received: ReceivedMessage[]) => boolean, timeoutMs = 15_000): Promise<ReceivedMessage[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done(this.received)) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(this.received);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`receiver: condition not met within ${timeoutMs} ms; received ${JSON.stringify(this.received.map((m) => [m.id, m.json.type]))}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  ofType(type: string): ReceivedMessage[] {
    return this.received.filter((message) => message.json.type === type);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Verifies a received message as a receiver would, with the standardwebhooks package; throws when invalid. */
export function verify(secret: string, message: ReceivedMessage): unknown {
  return new Webhook(secret).verify(message.body, {
    'webhook-id': String(message.headers['webhook-id']),
    'webhook-timestamp': String(message.headers['webhook-timestamp']),
    'webhook-signature': String(message.headers['webhook-signature']),
  });
}

export const ENDPOINT_FIELDS = 'id url description eventTypes enabled createdAt updatedAt disabledReason previousSecretExpiresAt';
export const CREATE_ENDPOINT = `mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { secret endpoint { ${ENDPOINT_FIELDS} } }
}`;
export const MESSAGES = `query($endpointId: ID!, $status: WebhookMessageStatus) {
  webhookMessages(endpointId: $endpointId, status: $status) {
    total messages { id type payload status createdAt nextAttemptAt
      attempts { attemptNumber attemptedAt statusCode durationMs error responseBody } }
  }
}`;

/** Env of a server that may deliver to the loopback receiver, with short retries. */
export const WEBHOOK_TEST_ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_POLL_INTERVAL_MS: '100',
};
