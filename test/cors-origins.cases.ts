import { useTestApp } from './helpers/use-test-app';

const ALLOWED = 'https://app.example.com';
const OTHER = 'https://evil.example.net';

describe('with CORS_ORIGINS', () => {
  const ctx = useTestApp({ CORS_ORIGINS: `${ALLOWED}, https://admin.example.com` }, { tenant: true });

  test('an allowed origin gets the CORS headers, never credentials', async () => {
    const response = await ctx.app.client.request('GET', '/v1/events', { headers: { origin: ALLOWED, authorization: `Bearer ${ctx.key}` } });
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    const exposed = String(response.headers['access-control-expose-headers']).split(',');
    expect(exposed).toEqual(expect.arrayContaining(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Location']));
    expect(response.headers.vary).toMatch(/Origin/);
  });

  test('another origin gets no CORS headers (the browser then blocks the response)', async () => {
    const response = await ctx.app.client.request('GET', '/v1/events', { headers: { origin: OTHER, authorization: `Bearer ${ctx.key}` } });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(response.headers['access-control-expose-headers']).toBeUndefined();
    expect(response.headers.vary).toMatch(/Origin/);
  });

  test.each(['/v1/events', '/v1/events/some-slug', '/graphql'])('a preflight to %s is answered without a key', async (path) => {
    const response = await ctx.app.client.request('OPTIONS', path, {
      headers: { origin: ALLOWED, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
    const headers = String(response.headers['access-control-allow-headers']).toLowerCase().split(',');
    expect(headers).toEqual(expect.arrayContaining(['authorization', 'content-type']));
    expect(String(response.headers['access-control-allow-methods'])).toMatch(/POST/);
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  test.each([
    ['a long path', `/v1/events/${'a'.repeat(12_000)}`],
    ['a long query', `/v1/events?page=${'9'.repeat(12_000)}`],
    ['a long GraphQL path', `/graphql?query=${'x'.repeat(12_000)}`],
  ])('a preflight with %s (12 kB, within the 16 KiB head) is answered like any other', async (_name, path) => {
    const response = await ctx.app.client.request('OPTIONS', path, {
      headers: { origin: ALLOWED, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(response.headers['x-request-id']).toEqual(expect.any(String));
  });

  test('a preflight whose path is over the 16 KiB head: 414 URI_TOO_LONG in the envelope, not a closed connection', async () => {
    const response = await ctx.app.client.request('OPTIONS', `/v1/events/${'a'.repeat(100_000)}`, {
      headers: { origin: ALLOWED, 'access-control-request-method': 'GET' },
    });
    expect(response.status).toBe(414);
    expect(response.body).toEqual({ error: { code: 'URI_TOO_LONG', message: expect.any(String), details: { limitBytes: 16_384 } } });
    expect(response.headers['x-request-id']).toEqual(expect.any(String));
  });

  test('a preflight from another origin gets no CORS headers', async () => {
    const response = await ctx.app.client.request('OPTIONS', '/graphql', {
      headers: { origin: OTHER, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(response.headers['access-control-allow-headers']).toBeUndefined();
  });

  test('GraphQL from an allowed origin gets the headers too', async () => {
    const response = await ctx.app.client.request('POST', '/graphql', {
      headers: { origin: ALLOWED, authorization: `Bearer ${ctx.key}` },
      json: { query: '{ events { total } }' },
    });
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
  });
});

describe('without CORS_ORIGINS (the default)', () => {
  const ctx = useTestApp({}, { tenant: true });

  test('no response carries CORS headers', async () => {
    const response = await ctx.app.client.request('GET', '/v1/events', { headers: { origin: ALLOWED, authorization: `Bearer ${ctx.key}` } });
    expect(response.status).toBe(200);
    expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const preflight = await ctx.app.client.request('OPTIONS', '/graphql', {
      headers: { origin: ALLOWED, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});
