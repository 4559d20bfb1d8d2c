import { AppError, type AppErrorArguments } from '../src/foundation/errors/app-error';
import { ERROR_CODES, ERROR_TABLE, httpStatusOf, type ErrorCode, type ErrorCodeEntry } from '../src/foundation/errors/error-codes';
import { PERMISSIONS } from '../src/platform/auth/permissions';
import { graphqlExtensionsOf, toGraphQLError } from '../src/platform/graphql/graphql-errors';
import { envelopeSchema, ERROR_CATALOGUE, errorCatalogueOf, errorEnvelopeSchema, errorSchemaName } from '../src/doors/rest/openapi/error-catalogue';
import { buildOpenApiDocument } from '../src/doors/rest/openapi/openapi-document';
import { compileRoutes } from '../src/doors/rest/rest-executor';
import { errorEnvelope } from '../src/http/error-handler';
import { buildAppSchema } from '../src/schema/graphql-schema';

// The one table of error codes (src/foundation/errors/error-codes.ts) and what is derived from it: the
// HTTP status of both doors, the GraphQL extensions.code, the OpenAPI catalogue. No database.

const anError = (code: ErrorCode): AppError => new AppError(...([code, `a ${code}`, { id: 'x' }] as unknown as AppErrorArguments));

test('the OpenAPI catalogue has exactly the codes of the table, each with its status and description', () => {
  expect(Object.keys(ERROR_CATALOGUE)).toEqual(ERROR_CODES);
  for (const code of ERROR_CODES) {
    const { status, when } = ERROR_TABLE[code] as ErrorCodeEntry;
    expect(ERROR_CATALOGUE[code].when).toBe(when);
    expect(errorEnvelopeSchema(code).description).toBe(`${status} ${code}: ${when}`);
    expect(errorEnvelopeSchema(code).properties).toEqual({ error: expect.objectContaining({ properties: expect.objectContaining({ code: { type: 'string', const: code } }) }) });
  }
});

test('every error code of the OpenAPI document is a code of the table, answered with its status', () => {
  const schema = buildAppSchema();
  const document = buildOpenApiDocument(schema, compileRoutes(schema), '0') as any;
  const documented = Object.values<any>(document.components.schemas)
    .map((component) => component.properties?.error?.properties?.code?.const as string | undefined)
    .filter((code): code is string => code !== undefined);
  expect(documented.length).toBeGreaterThan(10);
  for (const code of documented) expect(ERROR_CODES).toContain(code);
  for (const operations of Object.values<any>(document.paths)) {
    for (const operation of Object.values<any>(operations)) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (!/^[45]/.test(status)) continue;
        const refs: string[] = (response.content['application/json'].schema.anyOf ?? [response.content['application/json'].schema]).map((item: any) => item.$ref);
        for (const ref of refs) {
          const code = document.components.schemas[ref.split('/').pop()!].properties.error.properties.code.const as ErrorCode;
          expect([code, httpStatusOf(code)]).toEqual([code, Number(status)]);
        }
      }
    }
  }
});

test('both doors take the status and the code of an error from the table', () => {
  for (const code of ERROR_CODES) {
    const error = anError(code);
    expect(errorEnvelope(error).error.code).toBe(code);
    expect(graphqlExtensionsOf(error).code).toBe(code);
    expect(toGraphQLError(error).extensions.http).toEqual({ status: (ERROR_TABLE[code] as ErrorCodeEntry).status });
  }
  expect(httpStatusOf('VALIDATION_ERROR')).toBe(400);
  expect(httpStatusOf('IDEMPOTENCY_KEY_REUSED')).toBe(422);
  expect(httpStatusOf('SERVICE_UNAVAILABLE')).toBe(503);
});

test("a details schema's enumOf is rendered as the enum of the list it names", () => {
  expect((ERROR_TABLE.FORBIDDEN.details as any).properties.requiredPermission).toEqual({ type: 'string', enumOf: 'permission' });
  expect((ERROR_CATALOGUE.FORBIDDEN.details as any).properties.requiredPermission).toEqual({ type: 'string', enum: [...PERMISSIONS] });
});

test('a new code needs only a table entry: its catalogue entry, schema and status follow', () => {
  const table = {
    ...ERROR_TABLE,
    TEAPOT_REFUSED: {
      status: 418,
      when: 'The server is a teapot.',
      details: { type: 'object', properties: { brewedBy: { type: 'string', enumOf: 'permission' } }, required: ['brewedBy'] },
    },
  } satisfies Record<string, ErrorCodeEntry>;
  const catalogue = errorCatalogueOf(table);
  expect(Object.keys(catalogue)).toEqual([...ERROR_CODES, 'TEAPOT_REFUSED']);
  expect(catalogue.VALIDATION_ERROR).toEqual(ERROR_CATALOGUE.VALIDATION_ERROR);
  expect(errorSchemaName('TEAPOT_REFUSED')).toBe('TeapotRefusedError');
  expect(envelopeSchema('TEAPOT_REFUSED', table.TEAPOT_REFUSED.status, catalogue.TEAPOT_REFUSED)).toEqual({
    type: 'object',
    description: '418 TEAPOT_REFUSED: The server is a teapot.',
    properties: {
      error: {
        type: 'object',
        properties: {
          code: { type: 'string', const: 'TEAPOT_REFUSED' },
          message: { type: 'string', description: 'Readable and safe to show; do not parse it.' },
          details: { type: 'object', properties: { brewedBy: { type: 'string', enum: [...PERMISSIONS] } }, required: ['brewedBy'] },
        },
        required: ['code', 'message', 'details'],
      },
    },
    required: ['error'],
  });
});
