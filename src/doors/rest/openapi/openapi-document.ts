import {
  getNamedType,
  GraphQLNonNull,
  isInputObjectType,
  isNonNullType,
  Kind,
  OperationTypeNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { permissionOf } from '../../../platform/graphql/requires-permission';
import { MAX_BODY_BYTES } from '../../../platform/web/json-body';
import type { CompiledRoute } from '../rest-executor';
import { BODY_VARIABLES, REST_DOWNLOADS, type ParameterBounds, type RestDownload } from '../routes';
import { errorEnvelopeSchema, errorSchemaName } from './error-catalogue';
import {
  bodySelection,
  commonHeaders,
  errorCodesOf,
  existingResponse,
  errorResponses,
  HEADERS,
  headerRef,
  IDEMPOTENCY_KEY_PARAMETER,
  isWrite,
  rateLimitHeaders,
  replayedHeader,
  STATUS_TEXT,
} from './openapi-responses';
import { ref, SchemaConverter, withDescription, withPatterns, type JsonSchema } from './json-schema';

type Json = Record<string, unknown>;

/** Express `:name` segments as OpenAPI `{name}`. */
export const openApiPath = (expressPath: string): string => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const pathParameters = (expressPath: string): string[] => [...expressPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]);

const camelCase = (name: string): string => name[0].toLowerCase() + name.slice(1);

function rootFieldOf(schema: GraphQLSchema, route: CompiledRoute): { node: FieldNode; field: GraphQLField<unknown, unknown> } {
  const node = route.operationNode.selectionSet.selections.find((selection): selection is FieldNode => selection.kind === Kind.FIELD);
  const root = route.operationNode.operation === OperationTypeNode.MUTATION ? schema.getMutationType() : schema.getQueryType();
  const field = node && root?.getFields()[node.name.value];
  if (!node || !field) throw new Error(`Operation ${route.operation} selects no root field`);
  return { node, field };
}

/** The field argument a variable feeds, for its description and default. */
function argumentFor(node: FieldNode, field: GraphQLField<unknown, unknown>, variable: string) {
  const argument = node.arguments?.find((candidate) => candidate.value.kind === Kind.VARIABLE && candidate.value.name.value === variable);
  return argument ? field.args.find((definition) => definition.name === argument.name.value) : undefined;
}

/** A parameter's schema narrowed by the bounds the service checks it with (patterns add up). */
function bounded(schema: JsonSchema, bounds: ParameterBounds | undefined): JsonSchema {
  if (!bounds) return schema;
  const { pattern, ...rest } = bounds;
  return withPatterns({ ...schema, ...rest }, pattern === undefined ? [] : [pattern]);
}

function operationOf(schema: GraphQLSchema, route: CompiledRoute, converter: SchemaConverter, replaced: Set<string>): Json {
  const { node, field } = rootFieldOf(schema, route);
  const permission = permissionOf(schema, field);
  if (!permission) throw new Error(`Operation ${route.operation}: its root field declares no permission`);

  const parameters: Json[] = [];
  for (const name of pathParameters(route.path)) {
    // A variable of its name, or a field of the body's input that the path gives (bodyFromPath).
    const bodyField = Object.entries(route.bodyFromPath ?? {}).find(([, parameter]) => parameter === name)?.[0];
    const bodyType = route.body === undefined ? undefined : getNamedType(route.variableTypes.get(route.body));
    const inputField = bodyField !== undefined && isInputObjectType(bodyType) ? bodyType.getFields()[bodyField] : undefined;
    const type = route.variableTypes.get(name) ?? inputField?.type;
    if (!type) throw new Error(`Route ${route.path}: no variable $${name} in ${route.operation}`);
    const argument = argumentFor(node, field, name);
    parameters.push({
      name,
      in: 'path',
      required: true,
      description: argument?.description ?? inputField?.description ?? undefined,
      schema: bounded(converter.input(type), route.parameterBounds?.[name]),
    });
  }
  for (const name of route.query ?? []) {
    const type = route.variableTypes.get(name);
    if (!type) throw new Error(`Route ${route.path}: no variable $${name} in ${route.operation}`);
    const argument = argumentFor(node, field, name);
    // A query parameter is absent rather than null: describe its non-null form.
    const schema = converter.input(isNonNullType(type) ? type : new GraphQLNonNull(type));
    const narrowed = bounded(schema, route.parameterBounds?.[name]);
    const withDefault = argument?.defaultValue === undefined ? narrowed : { ...narrowed, default: argument.defaultValue };
    parameters.push({
      name,
      in: 'query',
      required: isNonNullType(type) && argument?.defaultValue === undefined,
      ...(argument?.description ? { description: argument.description } : {}),
      schema: withDefault,
    });
  }

  if (isWrite(route)) parameters.push(IDEMPOTENCY_KEY_PARAMETER);

  const success: Json =
    route.status === 204
      ? { description: STATUS_TEXT[204], headers: { ...commonHeaders(), ...rateLimitHeaders(), ...replayedHeader(route) } }
      : {
          description: `${STATUS_TEXT[route.status]}: ${field.description ?? route.operation}`,
          headers: {
            ...commonHeaders(),
            ...rateLimitHeaders(),
            ...(route.location ? { Location: { ...headerRef('Location') } } : {}),
            ...replayedHeader(route),
          },
          // Never null: a root field that answers null carries its error (404), and REST answers that instead.
          content: { 'application/json': { schema: converter.output(isNonNullType(field.type) ? field.type : new GraphQLNonNull(field.type), bodySelection(route, node)) } },
        };

  return {
    operationId: camelCase(route.operation),
    summary: field.description ?? route.operation,
    description: `Requires the \`${permission}\` permission. Runs the GraphQL operation \`${route.operation}\` (root field \`${field.name}\`).`,
    tags: [route.tag ?? tagOf(route.path)],
    'x-required-permission': permission,
    security: [{ bearerAuth: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: requestBodyOf(schema, route, converter, replaced) } : {}),
    responses: { [String(route.status)]: success, ...existingResponse(route, success), ...errorResponses(errorCodesOf(route)) },
  };
}

/**
 * The body of a write: the input type of its variable, less the fields the path gives (bodyFromPath,
 * a component of its own named after the operation: CreateBookingBody).
 */
function requestBodyOf(graphqlSchema: GraphQLSchema, route: CompiledRoute, converter: SchemaConverter, replaced: Set<string>): Json {
  if (route.body === BODY_VARIABLES) return variablesBodyOf(graphqlSchema, route, converter);
  const input = converter.input(route.variableTypes.get(route.body!)!);
  const fromPath = Object.entries(route.bodyFromPath ?? {});
  let schema = input;
  if (fromPath.length > 0) {
    const typeName = String(input.$ref).split('/').pop()!;
    const full = converter.components[typeName] as { properties: Record<string, JsonSchema>; required?: string[] };
    const taken = new Set(fromPath.map(([field]) => field));
    const properties = Object.fromEntries(Object.entries(full.properties).filter(([field]) => !taken.has(field)));
    const required = (full.required ?? []).filter((field) => !taken.has(field));
    replaced.add(typeName);
    const name = `${route.operation}Body`;
    const { required: _required, ...rest } = full;
    converter.components[name] = {
      ...rest,
      description: `${typeName} without ${fromPath.map(([field, parameter]) => `\`${field}\` (the path's \`{${parameter}}\`)`).join(', ')}.`,
      properties,
      ...(required.length > 0 ? { required } : {}),
    };
    schema = ref(name);
  }
  const givenByPath =
    fromPath.length === 0 ? '' : ` ${fromPath.map(([field, parameter]) => `\`${field}\` is the path's \`{${parameter}}\`: a value in the body is ignored.`).join(' ')}`;
  return {
    required: true,
    description:
      'JSON object. Fields the operation does not accept are ignored, at every depth (D4). Besides the rules stated in the schema, ' +
      'the server checks those that compare fields or need the clock or stored data (a start in the future, an end after the start, ' +
      'a slug not taken, a capacity not below the registrations, a status change allowed from the current status, a time zone the ' +
      "runtime knows; a hold's holdMinutes up to the organization's setting, holdMinutes only with hold): 400 VALIDATION_ERROR naming each failing field." +
      givenByPath,
    content: { 'application/json': { schema } },
  };
}

/**
 * The body of a route whose body's fields are its operation's variables (BODY_VARIABLES): an object
 * with a property per variable that the path and the query do not give, of the variable's type and
 * bounds, required where the variable is (a component of its own: CheckInByCodeBody).
 */
function variablesBodyOf(schema: GraphQLSchema, route: CompiledRoute, converter: SchemaConverter): Json {
  const { node, field } = rootFieldOf(schema, route);
  const fromRequest = new Set([...pathParameters(route.path), ...(route.query ?? [])]);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, type] of route.variableTypes) {
    if (fromRequest.has(name)) continue;
    properties[name] = withDescription(bounded(converter.input(type), route.parameterBounds?.[name]), argumentFor(node, field, name)?.description);
    if (isNonNullType(type)) required.push(name);
  }
  const name = `${route.operation}Body`;
  converter.components[name] = { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: true };
  const description = 'JSON object: each field is an argument of the operation. Fields the operation does not accept are ignored, at every depth (D4); a failing field answers 400 VALIDATION_ERROR naming it.';
  return { required: true, description, content: { 'application/json': { schema: ref(name) } } };
}

/** A download route (not a GraphQL operation) as the document shows it: from its declaration. */
function downloadOperationOf(download: RestDownload): Json {
  const parameters = Object.entries(download.parameters).map(([name, { description, ...bounds }]) => ({
    name,
    in: 'path',
    required: true,
    description,
    schema: bounded({ type: 'string' }, bounds),
  }));
  return {
    operationId: camelCase(download.name),
    summary: download.summary,
    description: `Requires the \`${download.permission}\` permission. ${download.description}`,
    tags: [download.tag ?? tagOf(download.path)],
    'x-required-permission': download.permission,
    security: [{ bearerAuth: [] }],
    parameters,
    responses: {
      '200': {
        description: `${STATUS_TEXT[200]}: ${download.summary}`,
        headers: { ...commonHeaders(), ...rateLimitHeaders(), 'Content-Disposition': headerRef('Content-Disposition') },
        content: { [download.mediaType]: { schema: { type: 'string' } } },
      },
      ...errorResponses(errorCodesOf(download)),
    },
  };
}

const tagOf = (path: string): string => {
  const resource = path.split('/')[2] ?? 'api';
  return resource[0].toUpperCase() + resource.slice(1);
};

/**
 * The OpenAPI 3.1 document of /v1, derived from the route table and the GraphQL schema it executes
 * against: parameters and bodies from the operations' variable types, responses from their
 * selection sets, permissions from the @requiresPermission directive. Built once at start.
 */
export function buildOpenApiDocument(
  schema: GraphQLSchema,
  routes: readonly CompiledRoute[],
  version: string,
  downloads: readonly RestDownload[] = REST_DOWNLOADS,
): Json {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of routes[0]?.document.definitions ?? []) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const converter = new SchemaConverter(schema, fragments);
  const paths: Record<string, Record<string, Json>> = {};
  // Input types a route's body replaced by a narrower component (bodyFromPath): dropped unless used elsewhere.
  const replaced = new Set<string>();
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationOf(schema, route, converter, replaced) };
  }
  for (const name of replaced) {
    const others = Object.entries(converter.components).filter(([other]) => other !== name);
    if (!JSON.stringify([paths, others]).includes(`"#/components/schemas/${name}"`)) delete converter.components[name];
  }
  for (const download of downloads) {
    const path = openApiPath(download.path);
    paths[path] = { ...paths[path], [download.method.toLowerCase()]: downloadOperationOf(download) };
  }
  const every = [...routes, ...downloads];
  // Only the codes some route answers: the others (NOT_FOUND, METHOD_NOT_ALLOWED) belong to no operation.
  const usedCodes = [...new Set(every.flatMap(errorCodesOf))].sort();
  const errorSchemas = Object.fromEntries(usedCodes.map((code) => [errorSchemaName(code), errorEnvelopeSchema(code)]));
  const tags = [...new Set(every.map((route) => route.tag ?? tagOf(route.path)))]
    .sort()
    .map((name) => ({ name, description: `The ${name.toLowerCase()} of the key's organization.` }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Event Service API',
      version,
      description: [
        'Events and bookings of the organization that owns the API key. Every request carries `Authorization: Bearer <API_KEY>`, over HTTPS only.',
        'Errors use one envelope, `{"error": {"code", "message", "details"}}`; the components `*Error` describe each code and its details.',
        'Any path not listed answers `404 NOT_FOUND` (no details); a listed path with another method answers `405 METHOD_NOT_ALLOWED`',
        'with an `Allow` header and `details.allowed` (the methods it has);',
        `a body over ${MAX_BODY_BYTES} bytes answers \`413 PAYLOAD_TOO_LARGE\`. Every response carries \`X-Request-Id\`.`,
        'The same operations exist in GraphQL at `/graphql`.',
      ].join(' '),
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [{ url: '/', description: 'This server' }],
    tags,
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An organization API key, `nk_live_…` or `nk_test_…` (40 characters). Never in the URL.',
        },
      },
      headers: HEADERS,
      schemas: { ...sortKeys(converter.components), ...errorSchemas },
    },
  };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
