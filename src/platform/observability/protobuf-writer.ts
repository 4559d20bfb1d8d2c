import type { HrTime } from '@opentelemetry/api';

/*
 * The protobuf wire format's primitives for the OTLP trace encoder (otlp-protobuf.ts): varints, fixed
 * widths, strings and ids written with Node's native Buffer methods, nested messages' lengths.
 */

const TWO_32 = 0x1_0000_0000;
/** Signed 64-bit integers are int_value; other numbers double_value (as the stock encoding decides). */
const MIN_INT64 = -(2 ** 63);
const MAX_INT64 = 2 ** 63;

/**
 * A growing buffer with protobuf's primitives. A nested message's length is written in front of it
 * once known: one byte is reserved (begin), and the message is moved further when its length needs
 * more (end; a native memmove).
 */
export class Writer {
  private buffer: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  finish(): Uint8Array {
    return this.buffer.subarray(0, this.pos);
  }

  private ensure(bytes: number): void {
    const needed = this.pos + bytes;
    if (needed <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < needed) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.pos);
    this.buffer = grown;
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  varint(value: number): void {
    this.ensure(10);
    const buffer = this.buffer;
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 0x7f) {
        buffer[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      buffer[this.pos++] = v;
      return;
    }
    // 64 bits, two's complement for negative values.
    const negative = value < 0;
    const magnitude = Math.abs(value);
    let low = magnitude >>> 0;
    let high = (magnitude / TWO_32) >>> 0;
    if (negative) {
      low = ~low >>> 0;
      high = ~high >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    while (high > 0 || low > 0x7f) {
      buffer[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buffer[this.pos++] = low & 0x7f;
  }

  fixed32(value: number): void {
    this.ensure(4);
    this.buffer.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  /** HrTime [seconds, nanoseconds] as fixed64 nanoseconds, exactly (seconds * 1e9 passes 2^53). */
  time([seconds, nanos]: HrTime): void {
    this.ensure(8);
    const upper = Math.floor(seconds / 0x10000);
    const lower = seconds - upper * 0x10000;
    // seconds * 1e9 + nanos = upper * 1e9 * 2^16 + (lower * 1e9 + nanos), each product below 2^53.
    const small = lower * 1e9 + nanos;
    const big = upper * 1e9;
    const bigLow16 = big % 0x10000;
    let low = (small % TWO_32) + bigLow16 * 0x10000;
    let high = Math.floor(small / TWO_32) + Math.floor(big / 0x10000);
    if (low >= TWO_32) {
      low -= TWO_32;
      high += 1;
    }
    this.buffer.writeUInt32LE(low, this.pos);
    this.buffer.writeUInt32LE(high >>> 0, this.pos + 4);
    this.pos += 8;
  }

  double(value: number): void {
    this.ensure(8);
    this.buffer.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** Reserves one byte for the length of the message that follows; end(start) writes it. */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  end(start: number): void {
    const length = this.pos - start - 1;
    const size = varintSize(length);
    if (size > 1) {
      this.ensure(size - 1);
      this.buffer.copyWithin(start + size, start + 1, this.pos);
      this.pos += size - 1;
    }
    this.varintAt(start, length);
  }

  /** A varint written at `at`, where its room was left (a length known only after what it measures). */
  private varintAt(at: number, value: number): void {
    let v = value;
    while (v > 0x7f) {
      this.buffer[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buffer[at] = v;
  }

  /**
   * A length-delimited UTF-8 string (lone surrogates become U+FFFD, as TextEncoder makes them). A short
   * ASCII string (attribute keys, most values) is copied here: below ~100 characters a loop costs less
   * than the call into Buffer#write, which writes the others (a statement's text) natively.
   */
  string(value: string): void {
    const length = value.length;
    if (length < SHORT_STRING) {
      this.ensure(length + 1);
      const buffer = this.buffer;
      let at = this.pos + 1;
      for (let index = 0; index < length; index += 1) {
        const code = value.charCodeAt(index);
        if (code >= 0x80) {
          this.nativeString(value);
          return;
        }
        buffer[at++] = code;
      }
      buffer[this.pos] = length;
      this.pos = at;
      return;
    }
    this.nativeString(value);
  }

  private nativeString(value: string): void {
    // At most 3 bytes per UTF-16 unit, and up to 5 for the length, written after the text once known.
    this.ensure(value.length * 3 + 5);
    const start = this.pos;
    const written = this.buffer.write(value, start + 5);
    const size = varintSize(written);
    if (size < 5) this.buffer.copyWithin(start + size, start + 5, start + 5 + written);
    this.varintAt(start, written);
    this.pos = start + size + written;
  }

  /** A trace or span id (lowercase or uppercase hex, as the stock encoding reads it) as length-delimited bytes. */
  hex(id: string): void {
    const length = id.length >>> 1;
    this.ensure(length + 1);
    const buffer = this.buffer;
    buffer[this.pos++] = length;
    for (let index = 0; index < length; index += 1) {
      buffer[this.pos++] = (nibble(id.charCodeAt(2 * index)) << 4) | nibble(id.charCodeAt(2 * index + 1));
    }
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.ensure(value.length);
    this.buffer.set(value, this.pos);
    this.pos += value.length;
  }

  /** Attributes as repeated KeyValue in `field`. */
  attributes(attributes: Readonly<Record<string, unknown>> | undefined, field: number): void {
    if (!attributes) return;
    for (const key in attributes) {
      if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
      this.tag(field, 2);
      const keyValue = this.begin();
      this.keyValue(key, attributes[key]);
      this.end(keyValue);
    }
  }

  private keyValue(key: string, value: unknown): void {
    this.tag(1, 2);
    this.string(key);
    this.tag(2, 2);
    const anyValue = this.begin();
    this.anyValue(value);
    this.end(anyValue);
  }

  private anyValue(value: unknown): void {
    if (typeof value === 'string') {
      this.tag(1, 2);
      this.string(value);
    } else if (typeof value === 'boolean') {
      this.tag(2, 0);
      this.varint(value ? 1 : 0);
    } else if (typeof value === 'number') {
      if (Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64) {
        this.tag(3, 0);
        this.varint(value);
      } else {
        this.tag(4, 1);
        this.double(value);
      }
    } else if (value instanceof Uint8Array) {
      this.tag(7, 2);
      this.bytes(value);
    } else if (Array.isArray(value)) {
      this.tag(5, 2);
      const array = this.begin();
      for (const item of value) {
        this.tag(1, 2);
        const itemStart = this.begin();
        this.anyValue(item);
        this.end(itemStart);
      }
      this.end(array);
    } else if (typeof value === 'object' && value !== null) {
      this.tag(6, 2);
      const list = this.begin();
      const record = value as Record<string, unknown>;
      for (const key in record) {
        if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
        this.tag(1, 2);
        const keyValue = this.begin();
        this.keyValue(key, record[key]);
        this.end(keyValue);
      }
      this.end(list);
    }
    // Anything else (undefined, null): an empty AnyValue, as the stock encoding writes it.
  }
}

/** Strings shorter than this (in UTF-16 units) are copied by the loop of Writer#string when ASCII (and then need one byte of length). */
const SHORT_STRING = 100;

/** Each character code's value as a hex digit (as hexToBinary of the stock encoding reads it: anything not 0-9 or a-f as if A-F). */
const NIBBLES = Uint8Array.from({ length: 128 }, (_, code) => (code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : (code - 55) & 0xff));
const nibble = (code: number): number => (code < 128 ? NIBBLES[code] : (code - 55) & 0xff);

function varintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}
