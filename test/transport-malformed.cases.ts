import net from 'node:net';
import tls from 'node:tls';
import { malformedRequestError } from '../src/http/client-error';
import { exchange, parseRawResponse as parse, parseRawResponses } from './helpers/raw-http';
import { useTestApp } from './helpers/use-test-app';

// Requests too malformed for Express to see still get the envelope and an X-Request-Id (not Node's
// bare "400 Bad Request" or a silent close); on the plain side they are refused as plain HTTP.

const ctx = useTestApp();

const overTls = () => tls.connect({ host: '127.0.0.1', port: ctx.app.service.port, servername: 'localhost', rejectUnauthorized: false });
const inClear = () => net.connect(ctx.app.service.port, '127.0.0.1');

test('over TLS, bytes that are not HTTP: 400 VALIDATION_ERROR on field request, with a request id', async () => {
  const response = parse(await exchange(overTls, 'GARBAGE\r\n\r\n'));
  expect(response.status).toBe(400);
  expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body).toEqual({
    error: { code: 'VALIDATION_ERROR', message: expect.any(String), details: { errors: [{ field: 'request', message: expect.any(String) }] } },
  });
});

test('over TLS, headers over the size limit: 431 HEADERS_TOO_LARGE', async () => {
  const response = parse(await exchange(overTls, `GET /v1/events HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`));
  expect(response.status).toBe(431);
  expect(response.headers['x-request-id']).toEqual(expect.any(String));
  expect(response.body).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String), details: { limitBytes: 16_384 } } });
});

// D13 (414 URI_TOO_LONG): an OPTIONS request with a very long path once got its connection closed unanswered.
test.each(['OPTIONS', 'GET', 'POST', 'DELETE'])('over TLS, %s with a path or query over the 16 KiB head: 414 URI_TOO_LONG', async (method) => {
  for (const target of [`/v1/events/${'a'.repeat(20_000)}`, `/graphql?query=${'b'.repeat(100_000)}`, `/${'c'.repeat(1_000_000)}`]) {
    const response = parse(await exchange(overTls, `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
    expect(response.status).toBe(414);
    expect(response.headers['x-request-id']).toEqual(expect.any(String));
    expect(response.body).toEqual({ error: { code: 'URI_TOO_LONG', message: expect.any(String), details: { limitBytes: 16_384 } } });
  }
});

test('over TLS, a client that half-closes after a long request line still reads its 414', async () => {
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = overTls();
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    socket.on('secureConnect', () => socket.end(`OPTIONS /${'d'.repeat(50_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`));
  });
  expect(parse(raw).status).toBe(414);
});

test('over TLS, a long path within the head limit goes through the pipeline: OPTIONS 204 with Allow, GET 404 in the envelope', async () => {
  const options = parse(await exchange(overTls, `OPTIONS /v1/events/${'a'.repeat(12_000)} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
  expect(options.status).toBe(204);
  expect(options.headers.allow).toBe('GET, PUT, DELETE, HEAD, OPTIONS');
  expect(options.headers['x-request-id']).toEqual(expect.any(String));
  const get = parse(await exchange(overTls, `GET /v2/${'a'.repeat(12_000)} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
  expect(get.status).toBe(404);
  expect(get.body.error.code).toBe('NOT_FOUND');
});

test("a request that did not arrive whole in time (the server's headersTimeout or requestTimeout) is 408 REQUEST_TIMEOUT", () => {
  for (const code of ['ERR_HTTP_REQUEST_TIMEOUT', 'ERR_HTTP_HEADERS_TIMEOUT']) {
    expect(malformedRequestError(Object.assign(new Error('timeout'), { code })).code).toBe('REQUEST_TIMEOUT');
  }
  expect(malformedRequestError(Object.assign(new Error('overflow'), { code: 'HPE_HEADER_OVERFLOW' }), { requestLineEnded: false }).code).toBe('URI_TOO_LONG');
});

test('in clear, bytes that are not HTTP are refused as plain HTTP: 403 HTTPS_REQUIRED', async () => {
  const response = parse(await exchange(inClear, 'GARBAGE\r\n\r\n'));
  expect(response.status).toBe(403);
  expect(response.headers['x-request-id']).toEqual(expect.any(String));
  expect(response.body).toEqual({ error: { code: 'HTTPS_REQUIRED', message: expect.any(String) } });
});

describe('one kept-alive connection, several requests written at once', () => {
  const get = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: localhost\r\n${extra}\r\n`;

  test('paths with dot segments, empty segments or encoded dots are each answered 404 in the envelope, and the connection stays usable', async () => {
    const targets = ['/v1/./events', '/v1/../events', '/v1//events', '/v1/%2e/events', '/v1/%2E%2E/events', '/./v1/events', '/v1/events/../events'];
    const raw = await exchange(overTls, [...targets.map((target) => get(target)), get('/v1/./events', 'Connection: close\r\n')].join(''));
    const answers = parseRawResponses(raw);
    expect(answers.map((answer) => answer.status)).toEqual([...targets.map(() => 404), 404]);
    for (const answer of answers) {
      expect(answer.headers['x-request-id']).toEqual(expect.any(String));
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
    expect(answers.slice(0, -1).map((answer) => answer.headers.connection)).toEqual(targets.map(() => 'keep-alive'));
  });

  test('a request asking to switch protocols is answered with Connection: close, so the request behind it (which Node drops) is not left waiting', async () => {
    // Node's parser reads what follows `Connection: upgrade` in the same read as the other protocol's
    // and drops it: kept alive, the connection would only close at the idle timeout, the GET unanswered.
    for (const upgrade of ['Upgrade: websocket\r\nConnection: Upgrade\r\n', 'Upgrade: h2c\r\nConnection: keep-alive, upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n']) {
      const started = Date.now();
      const raw = await exchange(overTls, get('/v1/events', upgrade) + get('/v1/./events', 'Connection: close\r\n'));
      const answers = parseRawResponses(raw);
      expect(answers[0].status).toBe(401);
      expect(answers[0].headers.connection).toBe('close');
      expect(answers[0].headers['x-request-id']).toEqual(expect.any(String));
      expect(JSON.parse(answers[0].text).error.code).toBe('UNAUTHORIZED');
      expect(answers).toHaveLength(1);
      // Closed right after the answer, not by the 5 s keep-alive timeout.
      expect(Date.now() - started).toBeLessThan(4_000);
    }
  });

  test('an Upgrade without Connection: upgrade is an ordinary header: the connection stays open for the next request', async () => {
    const raw = await exchange(overTls, get('/v1/./events', 'Upgrade: websocket\r\n') + get('/v1/./events', 'Connection: close\r\n'));
    expect(parseRawResponses(raw).map((answer) => [answer.status, answer.headers.connection])).toEqual([
      [404, 'keep-alive'],
      [404, 'close'],
    ]);
  });
});
