// The PostgreSQL frontend/backend protocol messages a live read needs, encoded and decoded by hand: one read is a
// few hundred bytes out and a handful of messages back, and a general driver's per-query machinery (objects,
// events, type parsing) cost several times the database's own work on this path (docs/decisions/0011).
import { isAscii } from 'node:buffer';

/** A statement of a read: its SQL, its prepared name ('' for the unnamed one), and whether this read parses it. */
export interface WireStatement {
  readonly text: string;
  readonly name: string;
  readonly parse: boolean;
}

/** One read of a batch: its SELECT and the SELECT's parameter values. */
export interface WireRead {
  readonly select: WireStatement;
  readonly values: readonly unknown[];
}

/**
 * A batch of reads in one buffer, one implicit transaction: the guard (a SELECT that makes the transaction
 * read-only and sets its statement timeout), each read's SELECT with its values, then one Sync, which ends the
 * transaction: committed, or rolled back after an error (the server skips what follows an error up to the Sync),
 * and the session idle either way. A statement already prepared on the connection is only bound and executed.
 */
export function encodeLiveBatch(guard: WireStatement, reads: readonly WireRead[]): Buffer {
  const params = reads.map((read) => read.values.map(paramText));
  const paramBytes = params.map((values) => {
    let bytes = 0;
    for (const param of values) bytes += 4 + (param === null ? 0 : Buffer.byteLength(param));
    return bytes;
  });
  let size = parseSize(guard) + bindSize(guard.name, 0) + EXECUTE.length + SYNC.length;
  reads.forEach((read, index) => {
    size += parseSize(read.select) + bindSize(read.select.name, paramBytes[index] as number) + EXECUTE.length;
  });
  const out = Buffer.allocUnsafe(size);
  let at = writeParse(out, 0, guard);
  at = writeBind(out, at, guard.name, [], 0);
  at += EXECUTE.copy(out, at);
  reads.forEach((read, index) => {
    at = writeParse(out, at, read.select);
    at = writeBind(
      out,
      at,
      read.select.name,
      params[index] as (string | null)[],
      paramBytes[index] as number,
    );
    at += EXECUTE.copy(out, at);
  });
  SYNC.copy(out, at);
  return out;
}

function parseSize(statement: WireStatement): number {
  if (!statement.parse) return 0;
  return 1 + 4 + Buffer.byteLength(statement.name) + 1 + Buffer.byteLength(statement.text) + 1 + 2;
}

function bindSize(name: string, paramBytes: number): number {
  return 1 + 4 + 1 + Buffer.byteLength(name) + 1 + 2 + 2 + paramBytes + 2;
}

/** Parse: no declared parameter types (the server infers them from the SQL). */
function writeParse(out: Buffer, start: number, statement: WireStatement): number {
  if (!statement.parse) return start;
  let at = start;
  out[at++] = 0x50;
  at = out.writeInt32BE(parseSize(statement) - 1, at);
  at = writeCString(out, statement.name, at);
  at = writeCString(out, statement.text, at);
  return out.writeInt16BE(0, at);
}

/** Bind: unnamed portal, every parameter and every result column as text. */
function writeBind(
  out: Buffer,
  start: number,
  name: string,
  params: readonly (string | null)[],
  paramBytes: number,
): number {
  let at = start;
  out[at++] = 0x42;
  at = out.writeInt32BE(bindSize(name, paramBytes) - 1, at);
  out[at++] = 0;
  at = writeCString(out, name, at);
  at = out.writeInt16BE(0, at);
  at = out.writeInt16BE(params.length, at);
  for (const param of params) {
    if (param === null) {
      at = out.writeInt32BE(-1, at);
      continue;
    }
    const length = out.write(param, at + 4);
    at = out.writeInt32BE(length, at) + length;
  }
  return out.writeInt16BE(0, at);
}

function writeCString(out: Buffer, value: string, at: number): number {
  const end = at + out.write(value, at);
  out[end] = 0;
  return end + 1;
}

/** Execute (unnamed portal, every row). */
const EXECUTE = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0]);
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);

/** A parameter as PostgreSQL text, the way `pg` sends it: arrays as array literals, every element quoted. */
/** The same parameter values, as far as can be told without encoding them (arrays compared element by element). */
export function sameParams(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    const left = a[index];
    const right = b[index];
    if (Object.is(left, right)) continue;
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    for (let at = 0; at < left.length; at++) if (!Object.is(left[at], right[at])) return false;
  }
  return true;
}

function paramText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return `{${value.map(arrayElement).join(',')}}`;
  return String(value);
}

function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  return `"${String(value).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/**
 * A DataRow's cells as text (null for NULL). `start` is the first byte after the message header, `end` the
 * message's end. A row of ASCII bytes (the usual case) is turned into one string and its cells cut from it,
 * which costs a fraction of decoding each cell on its own. Throws on a row whose cells overrun its message.
 */
export function decodeDataRow(buffer: Buffer, start: number, end: number): (string | null)[] {
  if (end - start < 2) throw malformed();
  const count = buffer.readInt16BE(start);
  if (count < 0) throw malformed();
  const row = new Array<string | null>(count);
  const text = isAscii(buffer.subarray(start, end)) ? buffer.toString('latin1', start, end) : undefined;
  let at = start + 2;
  for (let index = 0; index < count; index++) {
    if (at + 4 > end) throw malformed();
    const length = buffer.readInt32BE(at);
    at += 4;
    if (length > end - at) throw malformed();
    if (length < 0) {
      row[index] = null;
      continue;
    }
    row[index] =
      text === undefined
        ? buffer.toString('utf8', at, at + length)
        : text.slice(at - start, at - start + length);
    at += length;
  }
  return row;
}

function malformed(): Error {
  return new Error('the database sent a malformed data row');
}

/** An ErrorResponse as the fields the relay classifies by (shaped like the `pg` driver's errors). */
export interface ServerError extends Error {
  readonly severity: string;
  readonly code: string;
  /**
   * Raised once the SELECT was bound, while it ran: by the data or by what a view computes, not by a parameter
   * value (those are refused at Bind), so a data exception then is no caller's mistake.
   */
  readonly running: boolean;
  /** The server routine that raised it (field R): `exec_stmt_raise` for a RAISE in PL/pgSQL. */
  readonly routine?: string;
}

export function decodeError(buffer: Buffer, start: number, end: number, running = false): ServerError {
  let severity: string | undefined;
  let localized = 'ERROR';
  let code = 'XX000';
  let message = 'unknown server error';
  let routine: string | undefined;
  let at = start;
  while (at < end && buffer[at] !== 0) {
    const field = buffer[at] as number;
    const stop = buffer.indexOf(0, at + 1);
    if (stop < 0 || stop >= end) break;
    const value = buffer.toString('utf8', at + 1, stop);
    // V is the unlocalized severity (S may be translated); C the SQLSTATE; M the primary message.
    if (field === 0x56) severity = value;
    else if (field === 0x53) localized = value;
    else if (field === 0x43) code = value;
    else if (field === 0x4d) message = value;
    else if (field === 0x52) routine = value;
    at = stop + 1;
  }
  return Object.assign(new Error(message), {
    severity: severity ?? localized,
    code,
    running,
    ...(routine === undefined ? {} : { routine }),
  });
}

/** Object not in prerequisite state: refused (502, logged), not unavailable, since a read again would do the same. */
const ENCODING_CHANGED = '55000';

/**
 * The error of a read during which the session's client_encoding left UTF8, from a ParameterStatus message, or
 * undefined for any other setting. Rows are read as UTF-8, the encoding the driver opens sessions with; a function
 * a view calls may run `set_config('client_encoding', 'LATIN1', false)`, which lasts as long as the session, and
 * the server reports it before the read's ReadyForQuery.
 */
export function encodingChange(buffer: Buffer, start: number, end: number): ServerError | undefined {
  const nameEnd = buffer.indexOf(0, start);
  if (nameEnd < 0 || nameEnd >= end || buffer.toString('latin1', start, nameEnd) !== 'client_encoding') {
    return undefined;
  }
  const valueEnd = buffer.indexOf(0, nameEnd + 1);
  const value = buffer.toString('latin1', nameEnd + 1, valueEnd < 0 || valueEnd > end ? end : valueEnd);
  if (value.toUpperCase() === 'UTF8') return undefined;
  return Object.assign(
    new Error(`a function the live read ran set the session's client_encoding to ${value.slice(0, 40)}`),
    { severity: 'ERROR', code: ENCODING_CHANGED, running: true },
  );
}
