// Checks that every quoted CSV field ends where its closing quote stands, on the way to csv-parse. Its relax_quotes
// mode keeps a stray quote inside an unquoted field as text (`12" pipe`, as spreadsheets read it), but it also reads
// `"a"b` as the text `"a"b`, quotes and all, where other readers give `ab`: such a field is refused instead.
import { Transform, type TransformCallback } from 'node:stream';
import { incompleteTail } from './utf8-guard.ts';

const EMPTY = Buffer.alloc(0);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const CR = 0x0d;
const LF = 0x0a;

/**
 * Passes UTF-8 bytes through unchanged, or fails with the error `invalid` makes of the file offset of a closing
 * quote followed by something other than the quote again (a quote written twice), the delimiter or a line end.
 * A field is quoted when the quote is its first character; a quote anywhere else is text, as csv-parse takes it.
 */
export function csvQuoteGuard(
  quote: string,
  delimiter: string,
  invalid: (offset: number) => Promise<Error>,
): Transform {
  const quoteBytes = Buffer.from(quote);
  const delimiterBytes = Buffer.from(delimiter);
  // Bytes of a character the chunk did not finish, kept for the next one so that no quote or delimiter is split.
  let carry: Buffer = EMPTY;
  // The file offset of `carry` (of the next byte to scan).
  let scanned = 0;
  let quoted = false;
  // Outside a quoted field: the next byte starts a field (the file's start, or after a delimiter or line end).
  let fieldStart = true;
  // Inside a quoted field: the last bytes scanned were a quote, which the next byte tells closing or doubled.
  let quoteEnded = false;

  // Single bytes (as nearly every quote and delimiter is) are compared as numbers: Buffer.compare costs more.
  const quoteByte = quoteBytes.length === 1 ? (quoteBytes[0] as number) : -1;
  const delimiterByte = delimiterBytes.length === 1 ? (delimiterBytes[0] as number) : -1;
  const quoteNeedle: number | Buffer = quoteByte === -1 ? quoteBytes : quoteByte;
  const isDelimiterAt = (bytes: Buffer, at: number) =>
    delimiterByte !== -1 ? bytes[at] === delimiterByte : matchesAt(bytes, delimiterBytes, at);
  const isQuoteAt = (bytes: Buffer, at: number) =>
    quoteByte !== -1 ? bytes[at] === quoteByte : matchesAt(bytes, quoteBytes, at);
  const endsField = (bytes: Buffer, at: number) =>
    bytes[at] === CR || bytes[at] === LF || isDelimiterAt(bytes, at);

  /** The offset in `bytes` of a misplaced closing quote (negative: in the bytes before), or undefined. */
  function scan(bytes: Buffer): number | undefined {
    // Where the text starts: csv-parse drops a BOM at the start of the file.
    const origin = scanned === 0 && bytes.subarray(0, 3).equals(BOM) ? 3 : 0;
    // Whether the byte at `at` starts a field: the text's start, or after a delimiter or line end.
    const startsField = (at: number): boolean => {
      if (at === origin) return fieldStart;
      const before = bytes[at - 1];
      if (before === CR || before === LF) return true;
      return at >= delimiterBytes.length && isDelimiterAt(bytes, at - delimiterBytes.length);
    };
    let at = origin;
    if (quoteEnded && bytes.length > 0) {
      quoteEnded = false;
      if (isQuoteAt(bytes, 0)) at = quoteBytes.length;
      else if (endsField(bytes, 0)) quoted = false;
      else return -quoteBytes.length;
    }
    while (at < bytes.length) {
      const next = bytes.indexOf(quoteNeedle, at);
      if (!quoted) {
        if (next === -1) break;
        quoted = startsField(next);
        at = next + quoteBytes.length;
        continue;
      }
      if (next === -1) return undefined;
      const after = next + quoteBytes.length;
      if (after === bytes.length) {
        quoteEnded = true;
        return undefined;
      }
      if (isQuoteAt(bytes, after)) at = after + quoteBytes.length;
      else if (endsField(bytes, after)) {
        quoted = false;
        at = after;
      } else return next;
    }
    if (!quoted) fieldStart = startsField(bytes.length);
    return undefined;
  }

  const fail = (offset: number, callback: TransformCallback) => {
    invalid(offset).then(callback, callback);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
      const cut = bytes.length - incompleteTail(bytes);
      const misplaced = scan(bytes.subarray(0, cut));
      if (misplaced !== undefined) {
        // A quote that ended the bytes before stands before these ones.
        fail(scanned + misplaced, callback);
        return;
      }
      scanned += cut;
      carry = Buffer.from(bytes.subarray(cut));
      callback(null, chunk);
    },
  });
}

/** Whether `bytes` holds all of `needle` at `at` (a character cut off by the end of `bytes` is not it). */
function matchesAt(bytes: Buffer, needle: Buffer, at: number): boolean {
  const end = at + needle.length;
  return end <= bytes.length && bytes.compare(needle, 0, needle.length, at, end) === 0;
}
