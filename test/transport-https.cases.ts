import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import selfsigned from 'selfsigned';
import { createTenant, eventInput } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';
import { useTestApp } from './helpers/use-test-app';

// D10: the server speaks TLS only. Plain HTTP on the TLS port, or a proxy saying the client used http,
// gets 403 HTTPS_REQUIRED in the envelope, never a 2xx or a redirect, and never reaches a handler.

interface PlainResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

function plainHttp(port: number, method: string, requestPath: string, headers: Record<string, string> = {}, body?: string): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path: requestPath, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text ? JSON.parse(text) : undefined });
      });
    });
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

/** The certificate the server presents, as a SHA-256 fingerprint. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, () => {
      const fingerprint = socket.getPeerX509Certificate()?.fingerprint256 ?? '';
      socket.end();
      resolve(fingerprint);
    });
    socket.on('error', reject);
  });
}

function expectHttpsRequired(response: { status: number; headers: Record<string, unknown>; body: any }): void {
  expect(response.status).toBe(403);
  expect(response.headers.location).toBeUndefined();
  expect(response.headers['x-request-id']).toEqual(expect.any(String));
  expect(response.body).toEqual({ error: { code: 'HTTPS_REQUIRED', message: expect.stringMatching(/https/i) } });
}

async function eventCount(app: TestApp): Promise<number> {
  const [row] = await app.orm.em.fork().getConnection().execute<Array<{ count: number }>>('select count(*)::int as count from events');
  return row.count;
}

describe('plain HTTP on the TLS port', () => {
  const ctx = useTestApp({}, { tenant: true });

  test.each([
    ['GET', '/v1/events'],
    ['GET', '/'],
    ['GET', '/nothing-here'],
    ['POST', '/graphql'],
    ['DELETE', '/v1/events/some-event'],
    ['OPTIONS', '/v1/events'],
  ])('%s %s gets 403 HTTPS_REQUIRED with a request id, never a 2xx or a redirect', async (method, requestPath) => {
    expectHttpsRequired(await plainHttp(ctx.app.service.port, method, requestPath, { authorization: `Bearer ${ctx.key}` }));
  });

  test('a plain-HTTP create with a valid key never reaches a handler: nothing is stored', async () => {
    const before = await eventCount(ctx.app);
    const input = eventInput();
    const headers = { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' };
    expectHttpsRequired(await plainHttp(ctx.app.service.port, 'POST', '/v1/events', headers, JSON.stringify(input)));
    const mutation = { query: 'mutation($input: CreateEventInput!) { createEvent(input: $input) { id } }', variables: { input } };
    expectHttpsRequired(await plainHttp(ctx.app.service.port, 'POST', '/graphql', headers, JSON.stringify(mutation)));
    expect(await eventCount(ctx.app)).toBe(before);
    // The very same request over TLS is served: the refusal was the transport's, not the data's.
    expect((await ctx.app.client.rest('POST', '/v1/events', ctx.key, input)).status).toBe(201);
    expect(await eventCount(ctx.app)).toBe(before + 1);
  });

  test('the caller\'s X-Request-Id is echoed when it is a sane token', async () => {
    const response = await plainHttp(ctx.app.service.port, 'GET', '/v1/events', { 'x-request-id': 'trace-0123456789' });
    expect(response.headers['x-request-id']).toBe('trace-0123456789');
  });

  test('the same port serves HTTPS', async () => {
    const response = await ctx.app.client.rest('GET', '/v1/events', ctx.key);
    expect(response.status).toBe(200);
  });
});

describe('behind a TLS-terminating proxy (TRUST_PROXY=true)', () => {
  const ctx = useTestApp({ TRUST_PROXY: 'true' }, { tenant: true });

  const withProto = (proto: string | undefined, method = 'GET', requestPath = '/v1/events', json?: unknown) =>
    ctx.app.client.request(method, requestPath, {
      headers: { authorization: `Bearer ${ctx.key}`, ...(proto === undefined ? {} : { 'x-forwarded-proto': proto }) },
      json,
    });

  test.each([['http'], ['HTTP'], ['ws'], [''], [undefined]])('X-Forwarded-Proto %p: 403 HTTPS_REQUIRED', async (proto) => {
    expectHttpsRequired(await withProto(proto));
  });

  test.each([['https'], ['HTTPS'], ['https, http']])('X-Forwarded-Proto %p: served', async (proto) => {
    const response = await withProto(proto);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ total: 0 });
  });

  test('a create forwarded as http stores nothing, in both doors', async () => {
    const input = eventInput();
    expectHttpsRequired(await withProto('http', 'POST', '/v1/events', input));
    const graphql = await withProto('http', 'POST', '/graphql', {
      query: 'mutation($input: CreateEventInput!) { createEvent(input: $input) { id } }',
      variables: { input },
    });
    // Refused before any door is chosen: the transport's envelope, as for plain HTTP.
    expectHttpsRequired(graphql);
    expect(await eventCount(ctx.app)).toBe(0);
  });
});

describe('certificates', () => {
  test('the self-signed certificate is made once per DATA_DIR and reused on restart', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-tls-'));
    const certFile = path.join(dataDir, 'tls', 'localhost.crt');
    const first = await startTestApp({ DATA_DIR: dataDir }).catch((error: unknown) => {
      rmSync(dataDir, { recursive: true, force: true });
      throw error;
    });
    const firstPem = readFileSync(certFile, 'utf8');
    const firstModified = statSync(certFile).mtimeMs;
    const firstServed = await servedFingerprint(first.service.port);
    expect(first.logs.join('\n')).toMatch(/self-signed/);
    await first.close();

    const second = await startTestApp({ DATA_DIR: dataDir }).catch((error: unknown) => {
      rmSync(dataDir, { recursive: true, force: true });
      throw error;
    });
    try {
      expect(readFileSync(certFile, 'utf8')).toBe(firstPem);
      expect(statSync(certFile).mtimeMs).toBe(firstModified);
      expect(await servedFingerprint(second.service.port)).toBe(firstServed);
      expect(firstServed).toBe(new X509Certificate(firstPem).fingerprint256);
      const certificate = new X509Certificate(firstPem);
      expect(certificate.subjectAltName).toContain('DNS:localhost');
      expect(certificate.checkHost('localhost')).toBe('localhost');
      expect((statSync(path.join(dataDir, 'tls', 'localhost.key')).mode & 0o077).toString(8)).toBe('0');
    } finally {
      await second.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('TLS_CERT_FILE and TLS_KEY_FILE are served instead, and no certificate is made', async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'event-service-own-cert-'));
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-no-tls-'));
    const removeDirectories = () => {
      rmSync(directory, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    };
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'own-certificate.test' }], {
      keyType: 'rsa',
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
    });
    const certFile = path.join(directory, 'server.crt');
    const keyFile = path.join(directory, 'server.key');
    writeFileSync(certFile, pems.cert);
    writeFileSync(keyFile, pems.private);

    const app = await startTestApp({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, DATA_DIR: dataDir }).catch((error: unknown) => {
      removeDirectories();
      throw error;
    });
    try {
      expect(await servedFingerprint(app.service.port)).toBe(new X509Certificate(pems.cert).fingerprint256);
      expect(existsSync(path.join(dataDir, 'tls'))).toBe(false);
      expect(app.logs.join('\n')).not.toMatch(/self-signed/);
      const { key } = await createTenant(app.orm);
      // The test client trusts exactly this certificate, so a 200 proves the handshake used it.
      expect((await app.client.rest('GET', '/v1/events', key)).status).toBe(200);
      expectHttpsRequired(await plainHttp(app.service.port, 'GET', '/v1/events'));
    } finally {
      await app.close();
      removeDirectories();
    }
  });
});
