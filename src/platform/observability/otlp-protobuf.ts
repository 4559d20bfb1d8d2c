import type { SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Writer } from './protobuf-writer';

/**
 * The OTLP/protobuf encoding of an export (ExportTraceServiceRequest, opentelemetry-proto v1), byte for
 * byte what @opentelemetry/otlp-transformer's ProtobufTraceSerializer writes (test/otlp-protobuf.test.ts
 * compares them), with the strings and ids written by Node's native Buffer methods instead of loops over
 * their characters in JavaScript: a CPU profile of the traced server put the stock
 * encoding first among tracing's costs, most of it in those loops (each string's characters are walked
 * three times: to estimate the size, to test for ASCII, to copy them), and a SQL span's statement text
 * is about a kilobyte. Only this function is ours: the exporter (HTTP, retries, timeouts, compression,
 * the OTEL_EXPORTER_OTLP_* settings) and the decoding of the collector's answer stay the stock ones
 * (tracing-sdk.ts). The figure, and when this can go: docs/performance.md.
 */
export function encodeTraceExport(spans: readonly ReadableSpan[]): Uint8Array {
  const writer = new Writer(Math.max(4096, spans.length * bytesPerSpanHint + 1024));
  // Grouped by resource, then instrumentation scope (by identity), in order of first appearance.
  const resources = new Map<ReadableSpan['resource'], Map<ReadableSpan['instrumentationScope'], ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = resources.get(span.resource);
    if (!scopes) {
      scopes = new Map<ReadableSpan['instrumentationScope'], ReadableSpan[]>();
      resources.set(span.resource, scopes);
    }
    const group = scopes.get(span.instrumentationScope);
    if (group) group.push(span);
    else scopes.set(span.instrumentationScope, [span]);
  }
  for (const [resource, scopes] of resources) {
    writer.tag(1, 2); // ExportTraceServiceRequest.resource_spans
    const resourceSpans = writer.begin();
    writer.tag(1, 2); // ResourceSpans.resource
    const resourceStart = writer.begin();
    writer.attributes(resource.attributes, 1);
    writer.tag(2, 0); // dropped_attributes_count
    writer.varint(0);
    writer.end(resourceStart);
    for (const [scope, group] of scopes) {
      writer.tag(2, 2); // ResourceSpans.scope_spans
      const scopeSpans = writer.begin();
      writer.tag(1, 2); // ScopeSpans.scope
      const scopeStart = writer.begin();
      writer.tag(1, 2);
      writer.string(scope.name);
      if (scope.version) {
        writer.tag(2, 2);
        writer.string(scope.version);
      }
      const { attributes, droppedAttributesCount } = scope as { attributes?: Record<string, unknown>; droppedAttributesCount?: number };
      writer.attributes(attributes, 3);
      if (droppedAttributesCount) {
        writer.tag(4, 0);
        writer.varint(droppedAttributesCount);
      }
      writer.end(scopeStart);
      for (const span of group) {
        writer.tag(2, 2); // ScopeSpans.spans
        writeSpan(writer, span);
      }
      if (scope.schemaUrl) {
        writer.tag(3, 2);
        writer.string(scope.schemaUrl);
      }
      writer.end(scopeSpans);
    }
    if (resource.schemaUrl) {
      writer.tag(3, 2);
      writer.string(resource.schemaUrl);
    }
    writer.end(resourceSpans);
  }
  if (spans.length > 0) bytesPerSpanHint = Math.ceil((writer.pos / spans.length) * 1.1);
  return writer.finish();
}

/** The size of the last export per span (with a margin): the next export's buffer is sized by it. */
let bytesPerSpanHint = 512;

/** W3C flags in the low byte, and whether the parent is remote (OTLP's SpanFlags). */
function spanFlags(context: SpanContext | undefined, traceFlags: number): number {
  return (traceFlags & 0xff) | 0x100 | (context?.isRemote ? 0x200 : 0);
}

function writeSpan(writer: Writer, span: ReadableSpan): void {
  const start = writer.begin();
  const context = span.spanContext();
  writer.tag(1, 2);
  writer.hex(context.traceId);
  writer.tag(2, 2);
  writer.hex(context.spanId);
  const traceState = context.traceState?.serialize();
  if (traceState) {
    writer.tag(3, 2);
    writer.string(traceState);
  }
  const parentSpanId = span.parentSpanContext?.spanId;
  if (parentSpanId) {
    writer.tag(4, 2);
    writer.hex(parentSpanId);
  }
  writer.tag(5, 2);
  writer.string(span.name);
  // OTLP's SpanKind is the API's plus one (0 is unspecified).
  const kind = span.kind == null ? 0 : span.kind + 1;
  if (kind !== 0) {
    writer.tag(6, 0);
    writer.varint(kind);
  }
  writer.tag(7, 1);
  writer.time(span.startTime);
  writer.tag(8, 1);
  writer.time(span.endTime);
  writer.attributes(span.attributes, 9);
  writer.tag(10, 0);
  writer.varint(span.droppedAttributesCount);
  for (const event of span.events) {
    writer.tag(11, 2);
    const eventStart = writer.begin();
    writer.tag(1, 1);
    writer.time(event.time);
    writer.tag(2, 2);
    writer.string(event.name);
    if (event.attributes) writer.attributes(event.attributes, 3);
    writer.tag(4, 0);
    writer.varint(event.droppedAttributesCount || 0);
    writer.end(eventStart);
  }
  writer.tag(12, 0);
  writer.varint(span.droppedEventsCount);
  for (const link of span.links) {
    writer.tag(13, 2);
    const linkStart = writer.begin();
    writer.tag(1, 2);
    writer.hex(link.context.traceId);
    writer.tag(2, 2);
    writer.hex(link.context.spanId);
    const linkState = link.context.traceState?.serialize();
    if (linkState) {
      writer.tag(3, 2);
      writer.string(linkState);
    }
    if (link.attributes) writer.attributes(link.attributes, 4);
    writer.tag(5, 0);
    writer.varint(link.droppedAttributesCount || 0);
    writer.tag(6, 5);
    writer.fixed32(spanFlags(link.context, link.context.traceFlags));
    writer.end(linkStart);
  }
  writer.tag(14, 0);
  writer.varint(span.droppedLinksCount);
  writer.tag(15, 2);
  const status = writer.begin();
  if (span.status.message) {
    writer.tag(2, 2);
    writer.string(span.status.message);
  }
  writer.tag(3, 0);
  writer.varint(span.status.code);
  writer.end(status);
  writer.tag(16, 5);
  writer.fixed32(spanFlags(span.parentSpanContext, context.traceFlags));
  writer.end(start);
}
