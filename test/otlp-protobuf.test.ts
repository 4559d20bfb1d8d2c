import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { encodeTraceExport } from '../src/platform/observability/otlp-protobuf';

// D27 (issue 23, item 3): the service encodes its OTLP/protobuf exports itself (native Buffer writes
// instead of the stock serializer's loops over each string's characters), and must send exactly what
// the stock encoding of @opentelemetry/otlp-transformer sends: byte for byte, for every kind of span.

const stock = (spans: ReadableSpan[]) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
const ours = (spans: ReadableSpan[]) => Buffer.from(encodeTraceExport(spans));

function recorder(resourceAttributes: Attributes = { 'service.name': 'event-service' }) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes(resourceAttributes), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider };
}

const LONG = 'select e.id, e.slug, e.title from events e where e.organization_id = $1 and e.slug = $2 '.repeat(30);

test('the spans the service makes (request, operation, statement) encode as the stock serializer encodes them', () => {
  const { exporter, provider } = recorder();
  const tracer = provider.getTracer('event-service');
  const remote = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState('vendor=value,other=x'),
  });
  for (const parent of [ROOT_CONTEXT, remote]) {
    const request = tracer.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', 'url.path': '/v1/events/hot', 'user_agent.original': 'wrk' } }, parent);
    const withRequest = trace.setSpan(parent, request);
    const operation = tracer.startSpan('query EventBySlug', { attributes: { 'graphql.operation.type': 'query' } }, withRequest);
    const statement = tracer.startSpan('SELECT events', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'postgresql', 'db.query.text': LONG } }, trace.setSpan(withRequest, operation));
    statement.setAttribute('error.type', '23505');
    statement.setStatus({ code: SpanStatusCode.ERROR, message: '23505' });
    statement.end();
    operation.end();
    request.updateName('GET /v1/events/:slug');
    request.setAttribute('http.response.status_code', 200);
    request.end();
  }
  const spans = exporter.getFinishedSpans();
  expect(spans).toHaveLength(6);
  expect(ours(spans).equals(stock(spans))).toBe(true);
  expect(ours([]).equals(stock([]))).toBe(true);
});

test('events, links, every kind of attribute value, several resources and scopes, times far and near', () => {
  const first = recorder({ 'service.name': 'a', 'service.instance.id': 'é✓', count: 3 });
  const second = recorder({ 'service.name': 'b' });
  const link = { context: { traceId: '11111111111111111111111111111111', spanId: '2222222222222222', traceFlags: 0, isRemote: true, traceState: new TraceState('k=v') }, attributes: { n: 1 } };
  const values: Attributes = {
    ascii: 'plain',
    empty: '',
    unicode: 'événement ✓ 🎫',
    lone: 'a\ud800b',
    long127: 'x'.repeat(127),
    long128: 'x'.repeat(128),
    long20k: 'y'.repeat(20_000),
    unicodeLong: 'é'.repeat(100),
    zero: 0,
    int: 42,
    negative: -7,
    big: 2 ** 40,
    huge: 2 ** 62,
    minInt: -(2 ** 63),
    tooBig: 2 ** 64,
    float: 3.25,
    nan: Number.NaN,
    infinite: Number.POSITIVE_INFINITY,
    yes: true,
    no: false,
    strings: ['a', 'b', 'é'],
    numbers: [1, 2.5, -3],
    booleans: [true, false],
    emptyArray: [],
  };
  for (const [index, { provider }] of [first, second].entries()) {
    for (const scope of [provider.getTracer('one'), provider.getTracer('two', '1.2.3', { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' })]) {
      const span = scope.startSpan(`span ${index}`, { kind: SpanKind.PRODUCER, attributes: values, links: [link], startTime: [1_800_000_000, 999_999_999] }, ROOT_CONTEXT);
      span.addEvent('event', { at: 'now', n: 1 }, [1_700_000_000, 123]);
      span.addEvent('bare', undefined, 0);
      span.setStatus({ code: SpanStatusCode.OK });
      span.end([4_000_000_000, 1]);
    }
  }
  const spans = [...first.exporter.getFinishedSpans(), ...second.exporter.getFinishedSpans()];
  expect(spans).toHaveLength(4);
  // Interleaved, so the grouping by resource and scope is exercised.
  const mixed = [spans[0], spans[2], spans[1], spans[3], spans[0]];
  expect(ours(mixed).equals(stock(mixed))).toBe(true);
});

test('arbitrary attributes, names and times encode as the stock serializer encodes them', () => {
  const scalar = fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.integer(), fc.double(), fc.boolean(), fc.maxSafeInteger());
  const value = fc.oneof(scalar, fc.array(fc.string({ unit: 'grapheme', maxLength: 20 }), { maxLength: 5 }), fc.array(fc.double(), { maxLength: 5 }));
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ maxLength: 200 }), value, { maxKeys: 12 }),
      fc.string({ unit: 'binary', maxLength: 400 }),
      fc.integer({ min: 0, max: 2 ** 34 }),
      fc.integer({ min: 0, max: 999_999_999 }),
      (attributes, name, seconds, nanos) => {
        const { exporter, provider } = recorder();
        const span = provider.getTracer('t').startSpan(name, { attributes, startTime: [seconds, nanos] }, ROOT_CONTEXT);
        span.end([seconds + 1, nanos]);
        const spans = exporter.getFinishedSpans();
        expect(ours(spans).equals(stock(spans))).toBe(true);
      },
    ),
    { numRuns: 150 },
  );
});
