import 'reflect-metadata';
import { buildAppSchema } from '../src/schema/graphql-schema';
import { compileRoutes } from '../src/doors/rest/rest-executor';
import { REST_OPERATIONS } from '../src/doors/rest/operations';
import { REST_ROUTES } from '../src/doors/rest/routes';

// The REST operations are parsed and validated against the schema once, at start-up; a route whose
// operation does not validate stops the start instead of failing per request.

const schema = buildAppSchema();

test('every route compiles against the schema, sharing one parsed document', () => {
  const routes = compileRoutes(schema);
  expect(routes.map((route) => `${route.method} ${route.path} ${route.operation}`)).toEqual(
    REST_ROUTES.map((route) => `${route.method} ${route.path} ${route.operation}`),
  );
  expect(new Set(routes.map((route) => route.document)).size).toBe(1);
  for (const route of routes) {
    expect(route.operationNode.name?.value).toBe(route.operation);
    expect(route.permissions.length).toBeGreaterThan(0);
  }
});

test('an operation that selects a field the schema does not have throws', () => {
  const broken = REST_OPERATIONS.replace('query GetEvent($slug: String!) {', 'query GetEvent($slug: String!) { nonexistent');
  expect(broken).not.toBe(REST_OPERATIONS);
  expect(() => compileRoutes(schema, REST_ROUTES, broken)).toThrow(/REST operations do not match the schema: .*nonexistent/);
});

test('an operation with a variable of the wrong type throws', () => {
  const broken = REST_OPERATIONS.replace('query GetEvent($slug: String!)', 'query GetEvent($slug: Int!)');
  expect(() => compileRoutes(schema, REST_ROUTES, broken)).toThrow(/REST operations do not match the schema/);
});

test('a document that does not parse throws', () => {
  expect(() => compileRoutes(schema, REST_ROUTES, `${REST_OPERATIONS} query {`)).toThrow(/Syntax Error/);
});

test('a route naming an operation that does not exist throws', () => {
  const routes = [...REST_ROUTES, { method: 'GET' as const, path: '/v1/missing', operation: 'NoSuchOperation', status: 200 as const }];
  expect(() => compileRoutes(schema, routes)).toThrow('Route GET /v1/missing: no operation named NoSuchOperation');
});
