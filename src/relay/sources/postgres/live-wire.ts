// The PostgreSQL frontend/backend protocol messages a live read needs, encoded and decoded by hand: one read is a
// few hundred bytes out and a handful of messages back, and a general driver's per-query machinery (objects,
// events, type parsing) cost several times the database's own work on this path (docs/decisions/0011).

/**
 * One read's messages in one buffer: the opening statements, the SELECT (text in and out), COMMIT. The SELECT is
 * the prepared statement `name` ('' for the unnamed one); `parse` says whether this read prepares it first (a
 * statement this connection already prepared is only bound and executed).
 */
export function encodeLiveRead(
  opening: Buffer,
  text: string,
  values: readonly unknown[],
  name = '',
  parse = true,
): Buffer {
  const params = values.map(paramText);
  let paramBytes = 0;
  for (const param of params) paramBytes += 4 + (param === null ? 0 : Buffer.byteLength(param));
  const nameBytes = Buffer.byteLength(name);
  const parseSize = parse ? 1 + 4 + nameBytes + 1 + Buffer.byteLength(text) + 1 + 2 : 0;
  const bindLength = 4 + 1 + nameBytes + 1 + 2 + 2 + paramBytes + 2;
  const size = opening.length + parseSize + 1 + bindLength + EXECUTE_SYNC.length + COMMIT.length;
  const out = Buffer.allocUnsafe(size);
  let at = opening.copy(out, 0);
  if (parse) {
    // Parse: no declared parameter types (the server infers them from the SQL).
    out[at++] = 0x50;
    at = out.writeInt32BE(parseSize - 1, at);
    at = writeCString(out, name, at);
    at = writeCString(out, text, at);
    at = out.writeInt16BE(0, at);
  }
  // Bind: unnamed portal, every parameter and every result column as text.
  out[at++] = 0x42;
  at = out.writeInt32BE(bindLength, at);
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
  at = out.writeInt16BE(0, at);
  at += EXECUTE_SYNC.copy(out, at);
  COMMIT.copy(out, at);
  return out;
}

function writeCString(out: Buffer, value: string, at: number): number {
  const end = at + out.write(value, at);
  out[end] = 0;
  return end + 1;
}

/** A simple-protocol Query message. */
export function encodeQuery(sql: string): Buffer {
  const length = 4 + Buffer.byteLength(sql) + 1;
  const out = Buffer.allocUnsafe(1 + length);
  out[0] = 0x51;
  out.writeInt32BE(length, 1);
  out.write(sql, 5);
  out[length] = 0;
  return out;
}

/** Execute (unnamed portal, every row) then Sync. */
const EXECUTE_SYNC = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4]);
const COMMIT = encodeQuery('COMMIT');

/** How a read's replies end: one ReadyForQuery for the opening, one for the SELECT's Sync, one for COMMIT. */
export const READY_PER_READ = 3;

/** A parameter as PostgreSQL text, the way `pg` sends it: arrays as array literals, every element quoted. */
function paramText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return `{${value.map(arrayElement).join(',')}}`;
  return String(value);
}

function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  return `"${String(value).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/** A DataRow's cells as text (null for NULL). `start` is the first byte after the message header. */
export function decodeDataRow(buffer: Buffer, start: number): (string | null)[] {
  const count = buffer.readInt16BE(start);
  const row = new Array<string | null>(count);
  let at = start + 2;
  for (let index = 0; index < count; index++) {
    const length = buffer.readInt32BE(at);
    at += 4;
    if (length < 0) {
      row[index] = null;
      continue;
    }
    row[index] = buffer.toString('utf8', at, at + length);
    at += length;
  }
  return row;
}

/** An ErrorResponse as the fields the relay classifies by (shaped like the `pg` driver's errors). */
export interface ServerError extends Error {
  readonly severity: string;
  readonly code: string;
}

export function decodeError(buffer: Buffer, start: number, end: number): ServerError {
  let severity: string | undefined;
  let localized = 'ERROR';
  let code = 'XX000';
  let message = 'unknown server error';
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
    at = stop + 1;
  }
  return Object.assign(new Error(message), { severity: severity ?? localized, code });
}
