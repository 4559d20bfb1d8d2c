import https from 'node:https';
import tls from 'node:tls';
import net from 'node:net';
import fc from 'fast-check';
import { ERROR_CATALOGUE } from '../../src/doors/rest/openapi/error-catalogue';

/**
 * Arbitraries for the whole request surface (no input may get a 5xx, D13): paths, methods, query strings, headers,
 * bodies and GraphQL documents as an attacker or a broken client would send them, plus raw HTTP
 * that no well-behaved client library would write. And the check every answer must pass.
 */

/** What the generators need to aim at real data (so refused writes would have something to damage). */
export interface SurfaceTargets {
  readonly key: string;
  /** Slugs of events that exist. */
  readonly slugs: readonly string[];
  /** Ids of ticket types and bookings that exist. */
  readonly ticketTypeIds: readonly string[];
  readonly bookingIds: readonly string[];
}

export interface SurfaceRequest {
  readonly kind: 'http';
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export interface RawRequest {
  readonly kind: 'raw';
  readonly overTls: boolean;
  readonly text: string;
  readonly head: boolean;
}

export type SurfaceCase = SurfaceRequest | RawRequest;

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  '\u202egnp.exe',
  '\u200b',
  '\ufeff',
  '\u{1F4A5}',
  'e\u0301',
  'a\uFE0F'.repeat(120),
  '\u{1D54F}',
  '%00',
  '%',
  '%zz',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '1e400',
  '-0',
  'NaN',
  'Infinity',
  'null',
  '<script>alert(1)</script>',
  "' or 1=1 --",
  '${jndi:ldap://x}',
  '\\',
  '"',
  'x'.repeat(10_001),
  '\r\n',
  '\t',
  'Europe/Paris',
  'EUR',
  'eur',
  '2027-03-01T09:00:00Z',
  '2027-02-30T09:00:00Z',
  '2027-03-01T09:00:00',
  '+275760-09-13T00:00:00.000Z',
  'https://example.com/a.png',
  'javascript:alert(1)',
  'DRAFT',
  'PUBLISHED',
  'COMPLETED',
  'launch-2027',
];

const ODD_NUMBERS = [0, -0, 1, -1, 1e-7, -1e-7, 0.1 + 0.2, 19.999, 5e-324, 1e308, -1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 1e21, 1_000_001, 9_999_999.99];
const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype', '__defineGetter__', 'toJSON', 'valueOf'];

export const oddString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);
export const oddNumber = fc.oneof(fc.constantFrom(...ODD_NUMBERS), fc.integer(), fc.double());
const oddKey = fc.oneof(fc.constantFrom(...POLLUTION_KEYS, 'title', 'slug', 'price', 'input', 'query'), fc.string({ maxLength: 8 }));

/** Any JSON-ish value, with prototype-pollution keys and odd leaves. */
export const oddValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    oddString,
    oddNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(oddKey, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A placeholder replaced by raw JSON text (nesting too deep to build as a value, numbers JSON cannot hold). */
const RAW = '__RAW_JSON__';
const rawJsonFragment = fc.oneof(
  fc.constantFrom(1, 31, 32, 33, 100, 1_000, 5_000, 20_000).map((depth) => `${'['.repeat(depth)}1${']'.repeat(depth)}`),
  fc.constantFrom(2, 33, 3_000).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.constantFrom('1e400', '-1e400', '1E-400', '-0.0e0', '1e-7', '12345678901234567890123456789', '0.000000000000000000000001', '1.5e+3'),
);

function withRaw(value: unknown, fragment: string | undefined): string {
  const text = JSON.stringify(value) ?? 'null';
  return fragment === undefined ? text : text.replace(`"${RAW}"`, fragment);
}

const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** A plausible create/update input with some fields dropped or replaced by odd values. */
const eventRecord = fc.record({
    title: fc.oneof(fc.constant('Launch party'), oddValue),
    slug: fc.oneof(fc.stringMatching(/^[a-z0-9]{6,10}$/).map((text) => `fz-${text}`), oddValue),
    description: fc.oneof(fc.constant('**md**'), oddValue),
    startDate: fc.oneof(fc.constant(future(30)), oddValue),
    endDate: fc.oneof(fc.constant(future(31)), oddValue),
    timezone: fc.oneof(fc.constant('Europe/Paris'), oddValue),
    venue: oddValue,
    venueAddress: oddValue,
    coverImage: oddValue,
    capacity: fc.oneof(fc.constant(100), oddValue),
    status: oddValue,
    ticketTypes: fc.oneof(
      fc.array(
        fc.record(
          { name: fc.oneof(fc.constant('Standard'), oddValue), price: fc.oneof(oddNumber, oddValue), currency: fc.oneof(fc.constant('EUR'), oddValue), quantity: fc.oneof(fc.constant(10), oddValue) },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
      oddValue,
    ),
    ['__proto__']: oddValue,
    constructor: oddValue,
  }, { requiredKeys: [] });

/** The same as JSON text, sometimes with one field holding raw JSON (deep nesting, out-of-range numbers). */
const eventBody = eventRecord
  .chain((body) =>
    fc.record({
      body: fc.constant(body),
      rawField: fc.option(fc.constantFrom('title', 'capacity', 'ticketTypes', 'venue', 'extra'), { nil: undefined }),
      raw: rawJsonFragment,
    }),
  )
  .map(({ body, rawField, raw }) => (rawField === undefined ? JSON.stringify(body) : withRaw({ ...body, [rawField]: RAW }, raw)));

const malformedJson = fc.oneof(
  fc.constantFrom('', '{', '{"title":', '{"a":1,}', '\ufeff{}', "{'a':1}", 'null', '[]', '"string"', '42', 'true', '{"a":1}{"b":2}', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}'),
  fc.string({ unit: 'binary', maxLength: 60 }),
  eventBody.chain((text) => fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => text.slice(0, cut))),
);

export const bodyText = fc.oneof({ weight: 4, arbitrary: eventBody }, { weight: 2, arbitrary: malformedJson }, { weight: 1, arbitrary: oddValue.map((value) => JSON.stringify(value) ?? '') });

/** GraphQL literal values, deep lists and odd scalars included. */
const graphqlLiteral = fc.oneof(
  fc.constantFrom('1', '-1', '1e3', '1.5e-7', '1e400', '99999999999', '-2147483649', '0.1', 'null', 'true', 'DRAFT', 'PUBLISHED', 'NOPE', '"x"', '""', '"\\u0000"', '"\\uD800"', '"""block\nstring"""', '$undeclared', '{}', '{ title: "x" }', '[1, 2]'),
  fc.constantFrom(33, 65, 200, 5_000).map((depth) => `${'['.repeat(depth)}1${']'.repeat(depth)}`),
  fc.constantFrom(10, 70, 3_000).map((depth) => `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`),
  oddString.map((text) => JSON.stringify(text)),
);

function graphqlDocuments(targets: SurfaceTargets): fc.Arbitrary<string> {
  const slug = fc.oneof(fc.constantFrom(...targets.slugs), oddString).map((text) => JSON.stringify(text));
  const id = fc.oneof(fc.constantFrom(...targets.ticketTypeIds, ...targets.bookingIds), oddString).map((text) => JSON.stringify(text));
  const literal = graphqlLiteral;
  return fc.oneof(
    fc.tuple(literal, literal, literal).map(([page, limit, status]) => `query L { events(page: ${page}, limit: ${limit}, status: ${status}) { total events { slug title ticketTypes { price } } } }`),
    slug.map((value) => `query G { event(slug: ${value}) { id title status registrationCount ticketTypes { id price sold } } }`),
    fc.constant('query V($slug: String!) { event(slug: $slug) { id } }'),
    fc.constant('mutation C($input: CreateEventInput!) { createEvent(input: $input) { id slug } }'),
    fc.constant('mutation U($slug: String!, $input: UpdateEventInput!) { updateEvent(slug: $slug, input: $input) { id status } }'),
    slug.map((value) => `mutation D { deleteEvent(slug: ${value}) { id } }`),
    fc.tuple(literal, literal, literal).map(([title, capacity, price]) => `mutation { createEvent(input: { title: ${title}, slug: "fz-lit", startDate: "${future(30)}", capacity: ${capacity}, ticketTypes: [{ name: "A", price: ${price}, currency: "EUR", quantity: 1 }] }) { id } }`),
    fc.tuple(slug, literal).map(([value, title]) => `mutation { updateEvent(slug: ${value}, input: { title: ${title} }) { id } }`),
    fc.tuple(id, literal).map(([value, price]) => `mutation { updateTicketType(id: ${value}, input: { price: ${price} }) { id } }`),
    fc.tuple(slug, literal).map(([value, price]) => `mutation { addTicketType(eventSlug: ${value}, input: { name: "B", price: ${price}, currency: "EUR", quantity: 1 }) { id } }`),
    id.map((value) => `mutation { removeTicketType(id: ${value}) { id } }`),
    fc.tuple(slug, literal).map(([value, quantity]) => `mutation { createBooking(input: { eventSlug: ${value}, quantity: ${quantity}, attendeeEmail: "a@example.com", attendeeName: "A" }) { id } }`),
    id.map((value) => `mutation { cancelBooking(id: ${value}) { id } }`),
    fc.constant('{ members { id email } }'),
    fc.constant('{ __schema { types { name fields { name } } } }'),
    fc.constant('subscription { events { total } }'),
    fc.constant('query A { events { total } } query B { events { total } }'),
    fc.constant('fragment F on Query { ...F } { ...F }'),
    fc.constant('{ events { total @skip(if: "yes") @unknown } }'),
    fc.constantFrom(10, 500, 1_200, 3_000).map((count) => `{ ${Array.from({ length: count }, (_, index) => `a${index}: events(limit: 100) { events { ticketTypes { id } } }`).join(' ')} }`),
    fc.constantFrom(11, 65, 3_000).map((depth) => `{ ${'events { events { '.repeat(depth)} id ${'} } '.repeat(depth)} }`),
    fc.constantFrom(100, 5_000, 50_000).map((depth) => '{'.repeat(depth)),
    fc.string({ unit: 'binary', maxLength: 80 }),
  );
}

const validKey = (targets: SurfaceTargets) => targets.key;

function authorization(targets: SurfaceTargets): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${validKey(targets)}`) },
    { weight: 1, arbitrary: fc.constant(`bearer ${validKey(targets)}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', `Bearer ${validKey(targets)}x`, 'Bearer nk_live_' + 'A'.repeat(32), `Bearer ${validKey(targets)}, Bearer x`) },
  );
}

/** Header values a client library accepts (no control characters, nothing above U+00FF). */
const headerText = fc.oneof(
  fc.constantFrom('', '*', 'W/"x"', '"abc"', 'foo', '100-continue', 'gzip', 'br', 'identity', 'x'.repeat(8_000), 'caf\u00e9', '\u00ff\u00fe'),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((text) => [...text].filter((character) => character === '\t' || (character >= ' ' && character !== '\u007f')).join('')),
);

function headers(targets: SurfaceTargets): fc.Arbitrary<Record<string, string>> {
  return fc
    .record(
      {
        authorization: authorization(targets),
        'content-type': fc.constantFrom(
          'application/json',
          'application/json',
          'application/json; charset=utf-8',
          'application/json; charset=utf-16',
          'application/json; charset=latin1',
          'application/merge-patch+json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/graphql',
          '',
        ),
        accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/graphql-response+json', 'multipart/mixed; deferSpec=20220824', 'image/png', ''),
        'x-request-id': headerText,
        'idempotency-key': headerText,
        'if-none-match': headerText,
        'if-modified-since': fc.constantFrom('Sat, 01 Jan 2000 00:00:00 GMT', 'garbage'),
        expect: headerText,
        'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'compress', 'x'),
        'x-forwarded-for': fc.constantFrom('1.2.3.4', '::1', 'garbage, 999.1.1.1', ''),
        'x-forwarded-proto': fc.constantFrom('http', 'https', ''),
        origin: fc.constantFrom('https://evil.example', 'null'),
        'apollo-require-preflight': fc.constant('true'),
        range: fc.constantFrom('bytes=0-1', 'bytes=-1'),
        'x-http-method-override': fc.constantFrom('DELETE', 'PUT'),
      },
      { requiredKeys: [] },
    )
    .map((record) => Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === 'string')));
}

function paths(targets: SurfaceTargets): fc.Arbitrary<string> {
  const existing = fc.constantFrom(...targets.slugs);
  const segment = fc.oneof(existing, oddString.map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, ''))), fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '.', '%2e%2e%2f', '%00', 'a'.repeat(3_000), '%F0%9F%92%A5', '%C0%AF'));
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant('/v1/events') },
    { weight: 4, arbitrary: segment.map((value) => `/v1/events/${value}`) },
    { weight: 4, arbitrary: fc.constant('/graphql') },
    { weight: 1, arbitrary: fc.constantFrom('/', '/v1', '/v1/', '/v1/events/', '/V1/EVENTS', '/v1//events', '/v1/events/a/b', '/graphql/x', '/healthz', '/readyz', '/metrics', '/docs/', '/docs/assets/..%2f..%2fpackage.json', '/v1/openapi.json', '/favicon.ico', '/v2/events') },
  );
}

function queryString(targets: SurfaceTargets): fc.Arbitrary<string> {
  const name = fc.constantFrom('page', 'limit', 'status', 'query', 'variables', 'operationName', 'extensions', '__proto__', 'constructor[prototype][x]', 'api_key', 'page[]', 'limit[a]', 'x');
  const value = fc.oneof(
    fc.constantFrom('1', '0', '-1', '1e3', '1e400', '99999999999999999999', '2.5', '0x10', ' 1', '', 'DRAFT', 'COMPLETED', 'nope', targets.key, '{"slug":"x"}', '{ events { total } }', 'query($s: String!) { event(slug: $s) { id } }', '{"persistedQuery":{"version":2,"sha256Hash":"x"}}'),
    rawJsonFragment,
    oddString,
  );
  return fc
    .array(fc.tuple(name, value), { maxLength: 4 })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([key, text]) => `${key}=${encodeURIComponent(text.replace(/[\ud800-\udfff]/g, ''))}`).join('&')}`));
}

function graphqlBody(targets: SurfaceTargets): fc.Arbitrary<string> {
  return fc
    .record(
      {
        query: fc.oneof({ weight: 6, arbitrary: graphqlDocuments(targets) }, { weight: 1, arbitrary: oddValue }),
        variables: fc.oneof(
          fc.record({ input: fc.oneof(eventRecord, oddValue), slug: fc.oneof(fc.constantFrom(...targets.slugs), oddValue) }, { requiredKeys: [] }),
          oddValue,
        ),
        operationName: fc.oneof(fc.constantFrom('L', 'G', 'C', 'U', 'A', 'B', 'nope'), oddValue),
        extensions: fc.oneof(fc.record({ persistedQuery: fc.record({ version: fc.oneof(fc.constantFrom(1, 2), oddValue), sha256Hash: oddValue }, { requiredKeys: [] }) }), oddValue),
      },
      { requiredKeys: ['query'] },
    )
    .chain((body) => fc.option(rawJsonFragment, { nil: undefined, freq: 5 }).map((raw) => (raw === undefined ? JSON.stringify(body) : withRaw({ ...body, variables: { input: { title: RAW } } }, raw))));
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'PURGE', 'LOCK', 'QUERY'];

function httpRequests(targets: SurfaceTargets): fc.Arbitrary<SurfaceRequest> {
  return fc
    .record({
      method: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE') }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
      path: paths(targets),
      query: queryString(targets),
      headers: headers(targets),
      restBody: fc.option(bodyText, { nil: undefined, freq: 6 }),
      graphqlBody: graphqlBody(targets),
    })
    .map(({ method, path, query, headers: requestHeaders, restBody, graphqlBody: graphql }): SurfaceRequest => {
      const body = method === 'GET' || method === 'HEAD' ? undefined : path.startsWith('/graphql') ? graphql : restBody;
      return { kind: 'http', method, path: `${path}${query}`, headers: requestHeaders, ...(body === undefined ? {} : { body }) };
    });
}

/** Raw HTTP a client library would refuse to write: odd methods and versions, missing Host, CONNECT, bad framing. */
function rawRequests(targets: SurfaceTargets): fc.Arbitrary<RawRequest> {
  return fc
    .record({
      overTls: fc.integer({ min: 0, max: 9 }).map((draw) => draw < 8),
      method: fc.constantFrom('GET', 'POST', 'HEAD', 'CONNECT', 'FOO', 'get', 'G\tET', '', 'PRI', 'M-SEARCH', 'OPTIONS'),
      target: fc.constantFrom('/v1/events', '/graphql', '*', 'https://localhost/v1/events', '//v1/events', 'example.com:443', '/v1/events/\u00ff', '/v1/events?x=%', ''),
      version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/1.1x', ''),
      host: fc.constantFrom('Host: localhost\r\n', 'Host: localhost\r\n', '', 'Host: a\r\nHost: b\r\n', 'Host: \r\n'),
      extra: fc.subarray([
        `Authorization: Bearer ${targets.key}\r\n`,
        'Expect: foo\r\n',
        'Expect: 100-continue\r\n',
        'Content-Length: 1\r\nContent-Length: 2\r\n',
        'Transfer-Encoding: chunked\r\nContent-Length: 3\r\n',
        'Transfer-Encoding: gzip, chunked\r\n',
        'X-Request-Id: \u0000bad\r\n',
        'Bad Header\r\n',
        ' folded: header\r\n',
        'Content-Type: application/json\r\n',
        'Upgrade: websocket\r\nConnection: Upgrade\r\n',
        'Upgrade: h2c\r\n',
        'If-None-Match: *\r\n',
      ]),
      body: fc.constantFrom('', '{}', '{"title":'),
      chunked: fc.boolean(),
    })
    .map(({ overTls, method, target, version, host, extra, body, chunked }) => {
      const framing = chunked ? `Transfer-Encoding: chunked\r\n` : `Content-Length: ${Buffer.byteLength(body)}\r\n`;
      const payload = !chunked ? body : body === '' ? '0\r\n\r\n' : `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
      const text = `${method} ${target} ${version}\r\n${host}${extra.join('')}${framing}Connection: close\r\n\r\n${payload}`;
      return { kind: 'raw' as const, overTls, text, head: method === 'HEAD' };
    });
}

export function surfaceCases(targets: SurfaceTargets): fc.Arbitrary<SurfaceCase> {
  return fc.oneof({ weight: 9, arbitrary: httpRequests(targets) }, { weight: 1, arbitrary: rawRequests(targets) });
}

const ANSWER_TIMEOUT_MS = 15_000;

export function sendHttp(port: number, ca: string, agent: https.Agent, request: SurfaceRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headersToSend: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) headersToSend['content-length'] = String(Buffer.byteLength(request.body));
    const outgoing = https.request(
      { host: 'localhost', port, ca, agent, method: request.method, path: request.path, headers: headersToSend, timeout: ANSWER_TIMEOUT_MS },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)));
    outgoing.on('error', reject);
    if (request.body !== undefined) outgoing.write(request.body);
    outgoing.end();
  });
}

export function sendRaw(port: number, request: RawRequest): Promise<Answer | undefined> {
  return new Promise((resolve, reject) => {
    const socket = request.overTls
      ? tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false })
      : net.connect(port, '127.0.0.1');
    let received = '';
    socket.setTimeout(ANSWER_TIMEOUT_MS, () => socket.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' && received ? undefined : reject(error)));
    socket.on('close', () => resolve(parseRawAnswer(received)));
    socket.write(request.text, 'latin1');
  });
}

/** The first final response in raw bytes (interim 1xx answers skipped), or undefined when none came. */
function parseRawAnswer(raw: string): Answer | undefined {
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    rest = rest.slice(end + 4);
    if (status >= 100 && status < 200 && status !== 101) continue;
    const length = headers['content-length'] === undefined ? rest.length : Number(headers['content-length']);
    return { status, headers, text: Buffer.from(rest.slice(0, length), 'latin1').toString('utf8') };
  }
}

/** Codes a client may see: the service's catalogue and GraphQL's own request and document errors. */
const KNOWN_CODES = new Set<string>([
  ...Object.keys(ERROR_CATALOGUE),
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'BAD_USER_INPUT',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
]);

/** Why an answer breaks the contract (a 5xx, no X-Request-Id, no envelope, an unknown code), or undefined. */
export function contractViolation(answer: Answer, head: boolean): string | undefined {
  if (answer.status >= 500) return `server error ${answer.status}`;
  if (answer.status < 100) return `no valid status (${answer.status})`;
  if (!answer.headers['x-request-id']) return 'no X-Request-Id';
  if (answer.status === 304) return '304 to a client that holds no copy';
  let body: any;
  try {
    body = answer.text === '' ? undefined : JSON.parse(answer.text);
  } catch {
    body = undefined;
  }
  const codes: unknown[] = [];
  if (body?.error) codes.push(body.error.code);
  if (Array.isArray(body?.errors)) codes.push(...body.errors.map((error: any) => error?.extensions?.code));
  if (answer.status >= 400 && !head) {
    const envelope = (body?.error && typeof body.error.code === 'string' && typeof body.error.message === 'string') || (Array.isArray(body?.errors) && body.errors.length > 0 && body.errors.every((error: any) => typeof error?.message === 'string'));
    if (!envelope) return `status ${answer.status} without the envelope: ${answer.text.slice(0, 200)}`;
  }
  const unknown = codes.filter((code) => typeof code !== 'string' || !KNOWN_CODES.has(code));
  if (unknown.length > 0) return `unknown error code(s) ${JSON.stringify(unknown)}: ${answer.text.slice(0, 200)}`;
  return undefined;
}
