import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP receiver got it (ids in lowercase hex, attributes flattened). */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Record<string, string | number | boolean>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly resource: Record<string, string | number | boolean>;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

/**
 * A real OTLP/HTTP trace receiver on loopback (`POST /v1/traces`): decodes ExportTraceServiceRequest in
 * protobuf (`application/x-protobuf`, the specification's default) and in JSON (`application/json`),
 * and answers 200 with an empty ExportTraceServiceResponse, as a collector does.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Each export request: its path and content type. */
  readonly requests: Array<{ path: string; contentType: string }> = [];
  private readonly server: http.Server;
  private readonly waiters = new Set<() => void>();
  port = 0;

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const contentType = String(req.headers['content-type'] ?? '');
        this.requests.push({ path: req.url ?? '', contentType });
        const body = Buffer.concat(chunks);
        const json = contentType.startsWith('application/json');
        try {
          this.spans.push(...(json ? spansOfJson(JSON.parse(body.toString('utf8'))) : spansOfProtobuf(body)));
        } catch (error) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
          return;
        }
        if (json) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(Buffer.alloc(0));
        for (const waiter of this.waiters) waiter();
      });
    });
  }

  /** The base URL to give OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds /v1/traces). */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** The spans received so far of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  /** Resolves with the spans once `done(spans)` holds; rejects after `timeoutMs` with what arrived. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs = 15_000): Promise<ReceivedSpan[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done(this.spans)) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(this.spans);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`OTLP receiver: condition not met within ${timeoutMs} ms; received ${JSON.stringify(this.spans.map((s) => [s.traceId, s.name]))}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

type Value = string | number | boolean;

// --- OTLP/JSON (ids are hex strings, enums numbers, int64 values strings) ---

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, Value> {
  const attributes: Record<string, Value> = {};
  for (const { key, value } of list ?? []) {
    const v = value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue);
    if (v !== undefined) attributes[key] = v;
  }
  return attributes;
}

function spansOfJson(request: any): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: String(span.traceId).toLowerCase(),
          spanId: String(span.spanId).toLowerCase(),
          parentSpanId: String(span.parentSpanId ?? '').toLowerCase(),
          name: span.name,
          kind: Number(span.kind ?? 0),
          attributes: jsonAttributes(span.attributes),
          statusCode: Number(span.status?.code ?? 0),
          resource,
        });
      }
    }
  }
  return spans;
}

// --- OTLP/protobuf: just enough of the wire format for ExportTraceServiceRequest ---

/** The fields of one protobuf message: field number → values (varints as numbers, length-delimited as bytes). */
function fieldsOf(buffer: Buffer): Map<number, Array<number | Buffer>> {
  const fields = new Map<number, Array<number | Buffer>>();
  let offset = 0;
  const varint = (): number => {
    let result = 0;
    let factor = 1;
    for (;;) {
      const byte = buffer[offset++];
      result += (byte & 0x7f) * factor;
      if (byte < 0x80) return result;
      factor *= 128;
    }
  };
  while (offset < buffer.length) {
    const tag = varint();
    const number = Math.floor(tag / 8);
    const wireType = tag & 7;
    let value: number | Buffer;
    if (wireType === 0) value = varint();
    else if (wireType === 1) {
      value = buffer.subarray(offset, offset + 8);
      offset += 8;
    } else if (wireType === 2) {
      const length = varint();
      value = buffer.subarray(offset, offset + length);
      offset += length;
    } else if (wireType === 5) {
      value = buffer.subarray(offset, offset + 4);
      offset += 4;
    } else throw new Error(`unsupported protobuf wire type ${wireType}`);
    const list = fields.get(number) ?? [];
    list.push(value);
    fields.set(number, list);
  }
  return fields;
}

const messages = (fields: Map<number, Array<number | Buffer>>, number: number): Buffer[] => (fields.get(number) ?? []) as Buffer[];
const bytes = (fields: Map<number, Array<number | Buffer>>, number: number): Buffer | undefined => (fields.get(number)?.[0] as Buffer | undefined);
const text = (fields: Map<number, Array<number | Buffer>>, number: number): string => bytes(fields, number)?.toString('utf8') ?? '';
const int = (fields: Map<number, Array<number | Buffer>>, number: number): number => (fields.get(number)?.[0] as number | undefined) ?? 0;

/** KeyValue { key = 1; AnyValue value = 2 }, AnyValue { string 1; bool 2; int64 3; double 4 }. */
function protobufAttributes(list: Buffer[]): Record<string, Value> {
  const attributes: Record<string, Value> = {};
  for (const raw of list) {
    const keyValue = fieldsOf(raw);
    const value = fieldsOf(bytes(keyValue, 2) ?? Buffer.alloc(0));
    let v: Value | undefined;
    if (value.has(1)) v = text(value, 1);
    else if (value.has(2)) v = int(value, 2) === 1;
    else if (value.has(3)) v = int(value, 3);
    else if (value.has(4)) v = (value.get(4)![0] as Buffer).readDoubleLE(0);
    if (v !== undefined) attributes[text(keyValue, 1)] = v;
  }
  return attributes;
}

/**
 * ExportTraceServiceRequest { ResourceSpans resource_spans = 1 }; ResourceSpans { Resource resource = 1;
 * ScopeSpans scope_spans = 2 }; Resource { KeyValue attributes = 1 }; ScopeSpans { Span spans = 2 };
 * Span { trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, attributes 9, Status status 15 { code 3 } }.
 */
function spansOfProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of messages(fieldsOf(body), 1).map(fieldsOf)) {
    const resourceField = bytes(resourceSpans, 1);
    const resource = resourceField ? protobufAttributes(messages(fieldsOf(resourceField), 1)) : {};
    for (const scopeSpans of messages(resourceSpans, 2).map(fieldsOf)) {
      for (const span of messages(scopeSpans, 2).map(fieldsOf)) {
        const status = bytes(span, 15);
        spans.push({
          traceId: bytes(span, 1)?.toString('hex') ?? '',
          spanId: bytes(span, 2)?.toString('hex') ?? '',
          parentSpanId: bytes(span, 4)?.toString('hex') ?? '',
          name: text(span, 5),
          kind: int(span, 6),
          attributes: protobufAttributes(messages(span, 9)),
          statusCode: status ? int(fieldsOf(status), 3) : 0,
          resource,
        });
      }
    }
  }
  return spans;
}
