import net from 'node:net';
import tls from 'node:tls';
import { exchange, parseRawResponse as parse } from './helpers/raw-http';
import { startTestApp, type TestApp } from './helpers/test-app';

// Requests too malformed for Express to see still get the envelope and an X-Request-Id (not Node's
// bare "400 Bad Request" or a silent close); on the plain side they are refused as plain HTTP.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const overTls = () => tls.connect({ host: '127.0.0.1', port: app.service.port, servername: 'localhost', rejectUnauthorized: false });
const inClear = () => net.connect(app.service.port, '127.0.0.1');

test('over TLS, bytes that are not HTTP: 400 VALIDATION_ERROR on field request, with a request id', async () => {
  const response = parse(await exchange(overTls, 'GARBAGE\r\n\r\n'));
  expect(response.status).toBe(400);
  expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body).toEqual({
    error: { code: 'VALIDATION_ERROR', message: expect.any(String), details: { errors: [{ field: 'request', message: expect.any(String) }] } },
  });
});

test('over TLS, headers over the size limit: 400 VALIDATION_ERROR on field headers', async () => {
  const response = parse(await exchange(overTls, `GET /v1/events HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`));
  expect(response.status).toBe(400);
  expect(response.headers['x-request-id']).toEqual(expect.any(String));
  expect(response.body.error.details).toEqual({ errors: [{ field: 'headers', message: expect.any(String) }] });
});

test('in clear, bytes that are not HTTP are refused as plain HTTP: 403 HTTPS_REQUIRED', async () => {
  const response = parse(await exchange(inClear, 'GARBAGE\r\n\r\n'));
  expect(response.status).toBe(403);
  expect(response.headers['x-request-id']).toEqual(expect.any(String));
  expect(response.body).toEqual({ error: { code: 'HTTPS_REQUIRED', message: expect.any(String) } });
});
