// Thrift compact protocol, enough to read Parquet page headers: integers, booleans and nested structs kept, the
// rest skipped. Reads no further than the bytes it is given and allocates nothing a header declares.

/** Page headers nest two structs deep (statistics); more is not a page header. */
const MAX_DEPTH = 8;

export type Struct = Map<number, number | boolean | Struct | undefined>;
export interface Reader {
  readonly bytes: Uint8Array;
  offset: number;
}

export function readStruct(reader: Reader, depth = 0): Struct {
  if (depth > MAX_DEPTH) throw new Error('nested too deep');
  const struct: Struct = new Map();
  let id = 0;
  for (;;) {
    const head = byteAt(reader);
    const type = head & 0x0f;
    if (type === 0) return struct;
    const delta = head >> 4;
    id = delta === 0 ? zigzag(varint(reader)) : id + delta;
    struct.set(id, readValue(reader, type, depth));
  }
}

/** An integer field, NaN when absent or of another type (so every range check fails on it). */
export function field(struct: Struct, id: number): number {
  const value = struct.get(id);
  return typeof value === 'number' ? value : Number.NaN;
}

function readValue(reader: Reader, type: number, depth: number): number | boolean | Struct | undefined {
  switch (type) {
    case 1: // boolean true, false: held in the field header
      return true;
    case 2:
      return false;
    case 3:
      reader.offset += 1;
      return undefined;
    case 4: // i16, i32, i64
    case 5:
    case 6:
      return zigzag(varint(reader));
    case 7:
      reader.offset += 8;
      return undefined;
    case 8:
      reader.offset += varint(reader);
      return undefined;
    case 9: // list, set
    case 10:
      skipList(reader, depth);
      return undefined;
    case 11:
      skipMap(reader, depth);
      return undefined;
    case 12:
      return readStruct(reader, depth + 1);
    default:
      throw new Error(`unknown thrift type ${type}`);
  }
}

function skipList(reader: Reader, depth: number): void {
  const head = byteAt(reader);
  const size = head >> 4 === 15 ? varint(reader) : head >> 4;
  for (let i = 0; i < size; i++) skipElement(reader, head & 0x0f, depth);
}

function skipMap(reader: Reader, depth: number): void {
  const size = varint(reader);
  if (size === 0) return;
  const types = byteAt(reader);
  for (let i = 0; i < size; i++) {
    skipElement(reader, types >> 4, depth);
    skipElement(reader, types & 0x0f, depth);
  }
}

/** One element of a list or map: a boolean takes a byte of its own there, so each takes at least one byte. */
function skipElement(reader: Reader, type: number, depth: number): void {
  if (type === 1 || type === 2) reader.offset += 1;
  else readValue(reader, type, depth + 1);
  if (reader.offset > reader.bytes.length) throw new Error('collection past the end');
}

function byteAt(reader: Reader): number {
  const byte = reader.bytes[reader.offset++];
  if (byte === undefined) throw new Error('header past the end');
  return byte;
}

/** An unsigned varint of up to 64 bits; past 2^53 it is inexact, which only ever makes a check fail. */
function varint(reader: Reader): number {
  let value = 0;
  for (let shift = 0; shift < 70; shift += 7) {
    const byte = byteAt(reader);
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return value;
  }
  throw new Error('varint too long');
}

function zigzag(value: number): number {
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}
