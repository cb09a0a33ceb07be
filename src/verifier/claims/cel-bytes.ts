// The CEL functions that make values whose memory a worker's heap cap cannot bound in time, counted against a budget:
// `bytes(string)` and `bytes + bytes`, and `string + string`; and `size()` of a string, counted without the array
// of its characters the library makes (eight bytes a character, in one block as it grows).
//
// A bytes value is a Uint8Array, whose memory lies outside the JavaScript heap: the worker's heap cap does not see
// it, and an expression that makes many (`l.map(x, l.map(y, bytes(s)))`) could otherwise take gigabytes from the
// process before its time limit. A joined string takes no memory at first (JavaScript keeps the two parts), but the
// first read of it (a conversion, a match, the result) copies it into one block: a string doubled in each level of
// nested macros reaches tens of millions of characters in a few milliseconds, and one block that far past the cap
// is more than a worker is allowed while it is being stopped: the whole process aborts, not just the worker.
import { type CelFunc, CelScalar, celFunc, celMethod } from '@bufbuild/cel';

const { BYTES, INT, STRING } = CelScalar;
const encoder = new TextEncoder();
let left = Number.POSITIVE_INFINITY;

/** Starts an evaluation that may make at most `limit` bytes in all (the worker's memory cap). */
export function startBytesBudget(limit: number): void {
  left = limit;
}

function spend(size: number): void {
  // Counted whether or not the value is kept: what is dropped is freed only when the collector gets to it.
  left -= size;
  if (left < 0) throw new Error('the expression makes more bytes than the worker memory allows');
}

/** The code points of `text`: a surrogate pair counts once, a lone surrogate once, as the library counts them. */
function codePoints(text: string): bigint {
  let count = text.length;
  for (let index = 0; index < text.length - 1; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        index++;
      }
    }
  }
  return BigInt(count);
}

export const bytesFuncs: CelFunc[] = [
  celFunc('bytes', [STRING], BYTES, (text: string) => {
    // Counted before the copy is made, so that a value over the budget is never made.
    spend(Buffer.byteLength(text, 'utf8'));
    return encoder.encode(text);
  }),
  celFunc('_+_', [BYTES, BYTES], BYTES, (l: Uint8Array, r: Uint8Array) => {
    spend(l.length + r.length);
    const joined = new Uint8Array(l.length + r.length);
    joined.set(l);
    joined.set(r, l.length);
    return joined;
  }),
  // Two bytes a UTF-16 unit: the most its one block takes once it is read.
  celFunc('_+_', [STRING, STRING], STRING, (l: string, r: string) => {
    spend(2 * (l.length + r.length));
    return l + r;
  }),
  celFunc('size', [STRING], INT, codePoints),
  celMethod('size', STRING, [], INT, function (this: string) {
    return codePoints(this);
  }),
];
