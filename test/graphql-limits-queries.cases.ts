import { createTenant, eventInput } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

const FULL_PAGE = `events(limit: 100) {
  events { id slug title description startDate endDate timezone venue venueAddress coverImage status capacity
           registrationCount organizationId createdAt updatedAt ticketTypes { id name price currency quantity sold } }
  total page limit
}`;

describe('default limits', () => {
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    app = await startTestApp();
    ({ key } = await createTenant(app.orm));
    expect((await app.client.rest('POST', '/v1/events', key, eventInput())).status).toBe(201);
  });
  afterAll(() => app.close());

  test('a full page (limit 100, every field, ticket types) is within the default cost', async () => {
    const response = await app.client.graphql(key, `query FullPage { ${FULL_PAGE} }`);
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.events.total).toBe(1);
  });

  test('aliased pages that add up past GRAPHQL_MAX_COST are refused before anything runs', async () => {
    app.sql.reset();
    const response = await app.client.graphql(key, `query Greedy { a: ${FULL_PAGE} b: ${FULL_PAGE} c: ${FULL_PAGE} }`);
    expect(response.status).toBe(400);
    expect(response.body.data).toBeUndefined();
    const [error] = response.body.errors;
    expect(error.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(error.extensions.details).toMatchObject({ limit: 'cost', maximum: 5000 });
    expect(error.extensions.details.cost).toBeGreaterThan(5000);
    expect(error.message).toMatch(/more than the maximum of 5000 \(GRAPHQL_MAX_COST\)/);
    expect(app.sql.statements.filter((statement) => /from "event"/.test(statement))).toEqual([]);
  });

  test('a GET query (no body) runs, with the CSRF-prevention header', async () => {
    const response = await app.client.request('GET', `/graphql?query=${encodeURIComponent('query Count { events { total } }')}`, {
      headers: { authorization: `Bearer ${key}`, 'apollo-require-preflight': 'true' },
    });
    expect(response.status).toBe(200);
    expect(response.body.data.events.total).toBe(1);
  });

  test('introspection is on outside production', async () => {
    const response = await app.client.graphql(key, '{ __schema { queryType { name } } }');
    expect(response.status).toBe(200);
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });

  test('GET /graphql from a browser shows GraphiQL, served by this server, without a key', async () => {
    const response = await app.client.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('<script src="/graphql/explorer/graphiql.js"></script>');
    expect(response.text).not.toMatch(/<script[^>]+src="https?:/);
    for (const asset of ['react.js', 'react-dom.js', 'graphiql.js', 'graphiql.css', 'start.js']) {
      expect((await app.client.request('GET', `/graphql/explorer/${asset}`)).status).toBe(200);
    }
    // Without a key, queries are still refused.
    const query = await app.client.graphql(undefined, '{ events { total } }');
    expect(query.status).toBe(401);
  });
});

test('GRAPHQL_EXPLORER=sandbox serves Apollo Sandbox instead (loaded from Apollo\'s CDN), and no GraphiQL assets', async () => {
  const app = await startTestApp({ GRAPHQL_EXPLORER: 'sandbox' });
  try {
    const response = await app.client.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.text).toMatch(/embeddable-sandbox/);
    expect((await app.client.request('GET', '/graphql/explorer/graphiql.js')).status).not.toBe(200);
  } finally {
    await app.close();
  }
});

describe('configured limits', () => {
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    app = await startTestApp({ GRAPHQL_MAX_DEPTH: '2', GRAPHQL_MAX_COST: '50' });
    ({ key } = await createTenant(app.orm));
  });
  afterAll(() => app.close());

  test('a query nested deeper than GRAPHQL_MAX_DEPTH gets 400 QUERY_TOO_COMPLEX', async () => {
    const response = await app.client.graphql(key, 'query Deep { events { events { ticketTypes { id } } } }');
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', details: { limit: 'depth', maximum: 2 } });
    expect(response.body.errors[0].message).toMatch(/more than 2 levels deep \(GRAPHQL_MAX_DEPTH\)/);
  });

  test('a query within both limits runs', async () => {
    const response = await app.client.graphql(key, 'query Shallow { events(limit: 5) { total events { id slug } } }');
    expect(response.status).toBe(200);
    expect(response.body.data.events).toEqual({ total: 0, events: [] });
  });

  test('the cost follows the requested page size', async () => {
    const small = await app.client.graphql(key, 'query { events(limit: 10) { events { id slug title } } }');
    expect(small.status).toBe(200);
    const large = await app.client.graphql(key, 'query { events(limit: 100) { events { id slug title } } }');
    expect(large.status).toBe(400);
    expect(large.body.errors[0].extensions.details).toMatchObject({ limit: 'cost', maximum: 50 });
  });

  test('the limits apply to variables too', async () => {
    const query = 'query Page($limit: Int) { events(limit: $limit) { events { id slug title } } }';
    expect((await app.client.graphql(key, query, { limit: 10 })).status).toBe(200);
    const response = await app.client.graphql(key, query, { limit: 100 });
    expect(response.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  test('REST routes are not affected (their operations are fixed)', async () => {
    const response = await app.client.rest('GET', '/v1/events?limit=100', key);
    expect(response.status).toBe(200);
  });
});

describe('production', () => {
  test('introspection is off, and the Sandbox page is not served', async () => {
    const app = await startTestApp({ NODE_ENV: 'production' });
    try {
      const { key } = await createTenant(app.orm);
      const response = await app.client.graphql(key, '{ __schema { queryType { name } } }');
      expect(response.status).toBe(400);
      expect(response.body.errors[0].message).toMatch(/introspection/i);
      const page = await app.client.request('GET', '/graphql', { headers: { accept: 'text/html' } });
      expect(page.text).not.toMatch(/sandbox|graphiql/i);
      expect(page.status).not.toBe(200);
    } finally {
      await app.close();
    }
  });

  test('GRAPHQL_INTROSPECTION=true turns introspection on', async () => {
    const app = await startTestApp({ NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' });
    try {
      const { key } = await createTenant(app.orm);
      const response = await app.client.graphql(key, '{ __schema { queryType { name } } }');
      expect(response.status).toBe(200);
      expect(response.body.data.__schema.queryType.name).toBe('Query');
    } finally {
      await app.close();
    }
  });
});
