import { getIntrospectionQuery, Kind, parse, type OperationDefinitionNode } from 'graphql';
import { MAX_EXPANDED_SELECTIONS, measureOperation } from '../src/doors/graphql/query-limits';
import { buildAppSchema } from '../src/schema/graphql-schema';
import { createTenant, eventInput } from './helpers/factories';
import { startTestApp } from './helpers/test-app';
import { useTestApp } from './helpers/use-test-app';

const FULL_PAGE = `events(limit: 100) {
  events { id slug title description startDate endDate timezone venue venueAddress coverImage status capacity
           registrationCount organizationId createdAt updatedAt ticketTypes { id name price currency quantity sold } }
  total page limit
}`;

describe('default limits', () => {
  const ctx = useTestApp({}, { tenant: true });
  beforeAll(async () => {
    expect((await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput())).status).toBe(201);
  });

  test('a full page (limit 100, every field, ticket types) is within the default cost', async () => {
    const response = await ctx.app.client.graphql(ctx.key, `query FullPage { ${FULL_PAGE} }`);
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.events.total).toBe(1);
  });

  test('aliased pages that add up past GRAPHQL_MAX_COST are refused before anything runs', async () => {
    ctx.app.sql.reset();
    const response = await ctx.app.client.graphql(ctx.key, `query Greedy { a: ${FULL_PAGE} b: ${FULL_PAGE} c: ${FULL_PAGE} }`);
    expect(response.status).toBe(400);
    expect(response.body.data).toBeUndefined();
    const [error] = response.body.errors;
    expect(error.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(error.extensions.details).toMatchObject({ limit: 'cost', maximum: 5000 });
    expect(error.extensions.details.cost).toBeGreaterThan(5000);
    expect(error.message).toMatch(/more than the maximum of 5000 \(GRAPHQL_MAX_COST\)/);
    expect(ctx.app.sql.statements.filter((statement) => /from "event"/.test(statement))).toEqual([]);
  });

  test('a GET query (no body) runs, with the CSRF-prevention header', async () => {
    const response = await ctx.app.client.request('GET', `/graphql?query=${encodeURIComponent('query Count { events { total } }')}`, {
      headers: { authorization: `Bearer ${ctx.key}`, 'apollo-require-preflight': 'true' },
    });
    expect(response.status).toBe(200);
    expect(response.body.data.events.total).toBe(1);
  });

  test('introspection is on outside production', async () => {
    const response = await ctx.app.client.graphql(ctx.key, '{ __schema { queryType { name } } }');
    expect(response.status).toBe(200);
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });

  test('GET /graphql from a browser shows GraphiQL, served by this server, without a key', async () => {
    const response = await ctx.app.client.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('<script src="/graphql/explorer/graphiql.js"></script>');
    expect(response.text).not.toMatch(/<script[^>]+src="https?:/);
    for (const asset of ['react.js', 'react-dom.js', 'graphiql.js', 'graphiql.css', 'start.js']) {
      expect((await ctx.app.client.request('GET', `/graphql/explorer/${asset}`)).status).toBe(200);
    }
    // Without a key, queries are still refused.
    const query = await ctx.app.client.graphql(undefined, '{ events { total } }');
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
  const ctx = useTestApp({ GRAPHQL_MAX_DEPTH: '2', GRAPHQL_MAX_COST: '50' }, { tenant: true });

  test('a query nested deeper than GRAPHQL_MAX_DEPTH gets 400 QUERY_TOO_COMPLEX', async () => {
    const response = await ctx.app.client.graphql(ctx.key, 'query Deep { events { events { ticketTypes { id } } } }');
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', details: { limit: 'depth', maximum: 2 } });
    expect(response.body.errors[0].message).toMatch(/more than 2 levels deep \(GRAPHQL_MAX_DEPTH\)/);
  });

  test('a query within both limits runs', async () => {
    const response = await ctx.app.client.graphql(ctx.key, 'query Shallow { events(limit: 5) { total events { id slug } } }');
    expect(response.status).toBe(200);
    expect(response.body.data.events).toEqual({ total: 0, events: [] });
  });

  test('the cost follows the requested page size', async () => {
    const small = await ctx.app.client.graphql(ctx.key, 'query { events(limit: 10) { events { id slug title } } }');
    expect(small.status).toBe(200);
    const large = await ctx.app.client.graphql(ctx.key, 'query { events(limit: 100) { events { id slug title } } }');
    expect(large.status).toBe(400);
    expect(large.body.errors[0].extensions.details).toMatchObject({ limit: 'cost', maximum: 50 });
  });

  test('the limits apply to variables too', async () => {
    const query = 'query Page($limit: Int) { events(limit: $limit) { events { id slug title } } }';
    expect((await ctx.app.client.graphql(ctx.key, query, { limit: 10 })).status).toBe(200);
    const response = await ctx.app.client.graphql(ctx.key, query, { limit: 100 });
    expect(response.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  test('REST routes are not affected (their operations are fixed)', async () => {
    const response = await ctx.app.client.rest('GET', '/v1/events?limit=100', ctx.key);
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

// Introspection is bounded like every other operation (depth, cost: the answer it
// would make), before it runs; the explorers' own introspection query still runs.
describe('introspection on (GRAPHQL_INTROSPECTION=true)', () => {
  const ctx = useTestApp({ NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' }, { tenant: true });

  test.each([
    ['GraphiQL and codegen (getIntrospectionQuery())', getIntrospectionQuery()],
    [
      'every option (Apollo Sandbox asks for as much)',
      getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true }),
    ],
  ])('the standard full introspection query runs: %s', async (_name, query) => {
    const response = await ctx.app.client.graphql(ctx.key, query);
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.__schema.types.map((type: { name: string }) => type.name)).toEqual(expect.arrayContaining(['Query', 'Event', '__Schema']));
  });

  test('1,380 aliases of __schema through one fragment are refused (400 QUERY_TOO_COMPLEX), with a short answer', async () => {
    const aliases = Array.from({ length: 1380 }, (_, index) => `s${index}: __schema { ...S }`).join(' ');
    const query = `query { ${aliases} } fragment S on __Schema { types { name kind fields { name type { name kind ofType { name kind } } } } }`;
    const response = await ctx.app.client.graphql(ctx.key, query);
    expect(response.status).toBe(400);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', details: { limit: 'cost' } });
    expect(response.text.length).toBeLessThan(1000);
  });

  test('two copies of the schema are allowed, many are not', async () => {
    const fragment = 'fragment S on __Schema { types { name kind fields { name args { name } type { name kind ofType { name kind } } } } }';
    const copies = (count: number) => `query { ${Array.from({ length: count }, (_, index) => `s${index}: __schema { ...S }`).join(' ')} } ${fragment}`;
    expect((await ctx.app.client.graphql(ctx.key, copies(2))).status).toBe(200);
    const many = await ctx.app.client.graphql(ctx.key, copies(40));
    expect(many.status).toBe(400);
    expect(many.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  test('introspection counts for depth (GRAPHQL_MAX_DEPTH; ofType chains aside)', async () => {
    const nested = '__type(name: "Query") { fields { type { fields { type { fields { type { fields { type { fields { type { name } } } } } } } } } } }';
    const response = await ctx.app.client.graphql(ctx.key, `{ ${nested} }`);
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', details: { limit: 'depth', maximum: 10 } });
  });

  test('__typename and a small __type question are cheap', async () => {
    const response = await ctx.app.client.graphql(ctx.key, '{ __typename __type(name: "Event") { name fields { name } } events { total } }');
    expect(response.status).toBe(200);
    expect(response.body.data.__type.name).toBe('Event');
  });
});

// Refusing is cheap because the limits are one walk that stops at the first limit
// crossed, before validation and before Apollo (behaviour, not time: what the walk visited).
describe('the limits walk stops at the limit', () => {
  const schema = buildAppSchema();
  const limits = { maxDepth: 10, maxCost: 5000 };
  const operationOf = (document: ReturnType<typeof parse>) =>
    document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;

  test('650 aliased lists (27 kB): refused after a few dozen of them', () => {
    const query = `{ ${Array.from({ length: 650 }, (_, index) => `a${index}: events(limit: 100) { events { id } }`).join(' ')} }`;
    expect(query.length).toBeGreaterThan(25_000);
    const document = parse(query);
    const walked = measureOperation(schema, document, operationOf(document), undefined, limits);
    expect(walked.verdict).toMatchObject({ limit: 'cost', maximum: 5000 });
    // Each alias costs 1 + 100 × 2, and the walk goes depth first: it stopped inside the 25th of the
    // 650 aliases (3 selections each), long before the document's 1,950 selections.
    expect(walked.visited).toBeLessThanOrEqual(25 * 3);
    expect(walked.cost).toBeGreaterThan(5000);
    expect(walked.cost).toBeLessThan(5000 + 201);
  });

  test('fragments that double at each level (2^20 fields in 1.3 kB): the walk stops at its selection cap', () => {
    const levels = 20;
    const fragments = Array.from({ length: levels }, (_, level) =>
      level === levels - 1
        ? `fragment F${level} on EventList { total }`
        : `fragment F${level} on EventList { a: events { ...F${level + 1} } b: events { ...F${level + 1} } }`,
    ).join(' ');
    const document = parse(`{ events { ...F0 } } ${fragments}`);
    // Even with no cost limit to speak of, the walk ends: at MAX_EXPANDED_SELECTIONS, refused.
    const walked = measureOperation(schema, document, operationOf(document), undefined, { maxDepth: 1000, maxCost: Number.MAX_SAFE_INTEGER });
    expect(walked.verdict).toMatchObject({ limit: 'cost' });
    expect(walked.verdict?.message).toMatch(/more than 10000 selections/);
    expect(walked.visited).toBe(MAX_EXPANDED_SELECTIONS + 1);
  });

  test('a fragment spread three times is counted three times (fan-outs of fragments are refused, never walked to the end)', () => {
    const document = parse('{ ...F ...F ...F } fragment F on Query { events(limit: 100) { events { id } } }');
    expect(measureOperation(schema, document, operationOf(document), undefined, limits).cost).toBe(3 * (1 + 100 * 2));
  });

  test('a cycle of fragments is not followed (validation refuses it)', () => {
    const document = parse('{ ...A } fragment A on Query { ...B } fragment B on Query { ...A events { total } }');
    const walked = measureOperation(schema, document, operationOf(document), undefined, limits);
    expect(walked.verdict).toBeUndefined();
    expect(walked.visited).toBeLessThan(10);
  });

  test('@skip and @include are followed, with variables', () => {
    const document = parse('query ($big: Boolean!) { events(limit: 100) { events { id } } all: events(limit: 100) @include(if: $big) { events { id slug title ticketTypes { id name } } } }');
    const operation = operationOf(document);
    expect(measureOperation(schema, document, operation, { big: false }, { maxDepth: 10, maxCost: 250 }).verdict).toBeUndefined();
    expect(measureOperation(schema, document, operation, { big: true }, { maxDepth: 10, maxCost: 250 }).verdict).toMatchObject({ limit: 'cost' });
  });

  test('a page size from a variable, or the argument\'s default, counts', () => {
    const document = parse('query ($n: Int) { events(limit: $n) { events { id slug } } bookings { bookings { id } } }');
    const operation = operationOf(document);
    // events: 1 + n × 3; bookings (default 20): 1 + 20 × 2.
    expect(measureOperation(schema, document, operation, { n: 10 }, limits).cost).toBe(1 + 10 * 3 + 1 + 20 * 2);
    expect(measureOperation(schema, document, operation, {}, limits).cost).toBe(1 + 20 * 3 + 1 + 20 * 2);
  });

  test('over HTTP: distinct over-cost documents are refused before Apollo or the database sees them', async () => {
    const app = await startTestApp();
    try {
      const { key } = await createTenant(app.orm);
      app.sql.reset();
      for (const tag of ['x', 'y', 'z']) {
        const query = `{ ${Array.from({ length: 650 }, (_, index) => `${tag}${index}: events(limit: 100) { events { id } }`).join(' ')} }`;
        const response = await app.client.graphql(key, query);
        expect(response.status).toBe(400);
        expect(response.body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', details: { limit: 'cost', maximum: 5000 } });
      }
      expect(app.sql.statements.filter((statement) => /from "event/.test(statement))).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
