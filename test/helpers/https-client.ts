import https from 'node:https';
import { GraphQLClient } from 'graphql-request';

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
    // A kept-alive socket idle for 3 s is closed here, before the server closes it (after 5 s).
    this.agent = new https.Agent({ ca, keepAlive: true, maxSockets: 64, timeout: 3_000 });
  }

  /**
   * A request sent on a kept-alive socket that the server had just closed as idle (the close and the
   * request crossed: on a loaded machine this client's timers run late) was never read by the server:
   * it is sent again once, on a new socket, as Node's documentation advises (`request.reusedSocket`).
   * Any other failure, or one on a new socket, is the test's to see.
   */
  request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
    return this.send<T>(method, path, options).catch((error: NodeJS.ErrnoException & { reusedSocket?: boolean }) => {
      if (error.reusedSocket && error.code === 'ECONNRESET') return this.send<T>(method, path, options);
      throw error;
    });
  }

  private send<T>(method: string, path: string, options: RequestOptions): Promise<HttpResponse<T>> {
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
      req.on('error', (error) => reject(Object.assign(error, { reusedSocket: req.reusedSocket })));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** REST call with a key. */
  rest<T = any>(method: string, path: string, key: string | undefined, json?: unknown): Promise<HttpResponse<T>> {
    return this.request<T>(method, path, { headers: key ? { authorization: `Bearer ${key}` } : {}, json });
  }

  /** A `fetch` over this client (for graphql-request and other fetch-based clients); `seen` gets each raw response. */
  fetchFor(seen: (response: HttpResponse) => void = () => undefined): typeof globalThis.fetch {
    return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers = Object.fromEntries(new Headers(init?.headers).entries());
      const raw = await this.request(init?.method ?? 'GET', url.pathname + url.search, { headers, raw: init?.body as string | undefined });
      seen(raw);
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(raw.headers)) {
        for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, item);
      }
      return new Response(raw.text, { status: raw.status, headers: responseHeaders });
    };
  }

  /**
   * GraphQL call with a key, sent by graphql-request as a frontend sends it. graphql-request's fetch is
   * this client (it trusts the test server's certificate), which also keeps the raw HTTP response:
   * tests assert on statuses, headers and error bodies that graphql-request turns into exceptions.
   */
  async graphql<T = any>(key: string | undefined, query: string, variables?: Record<string, unknown>): Promise<HttpResponse<T>> {
    let raw: HttpResponse<T> | undefined;
    const fetch = this.fetchFor((response) => (raw = response as HttpResponse<T>));
    const client = new GraphQLClient(new URL('/graphql', this.baseUrl).toString(), {
      fetch,
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
    try {
      await client.rawRequest(query, variables);
    } catch (error) {
      if (!raw) throw error; // nothing reached the server: a client-side failure
    }
    return raw!;
  }

  close(): void {
    this.agent.destroy();
  }
}
