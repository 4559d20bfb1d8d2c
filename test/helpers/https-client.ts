import https from 'node:https';

export interface HttpResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: T;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Sent as JSON (with Content-Type: application/json) unless `raw` is given. */
  json?: unknown;
  raw?: string | Buffer;
}

/** A real HTTPS client that trusts the test server's certificate (nothing is mocked). */
export class HttpsClient {
  private readonly agent: https.Agent;

  constructor(
    readonly baseUrl: string,
    ca: string,
  ) {
    this.agent = new https.Agent({ ca, keepAlive: true, maxSockets: 64 });
  }

  request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
    const payload = options.raw ?? (options.json === undefined ? undefined : JSON.stringify(options.json));
    const headers: Record<string, string> = { ...(options.json === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers };
    if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
    return new Promise((resolve, reject) => {
      const req = https.request(new URL(path, this.baseUrl), { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: any = undefined;
          try {
            body = text === '' ? undefined : JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** REST call with a key. */
  rest<T = any>(method: string, path: string, key: string | undefined, json?: unknown): Promise<HttpResponse<T>> {
    return this.request<T>(method, path, { headers: key ? { authorization: `Bearer ${key}` } : {}, json });
  }

  /** GraphQL call with a key. */
  graphql<T = any>(key: string | undefined, query: string, variables?: Record<string, unknown>): Promise<HttpResponse<T>> {
    return this.request<T>('POST', '/graphql', { headers: key ? { authorization: `Bearer ${key}` } : {}, json: { query, variables } });
  }

  close(): void {
    this.agent.destroy();
  }
}
