// The two CEL functions that make new bytes, `bytes(string)` and `bytes + bytes`, counted against a budget. A bytes
// value is a Uint8Array, whose memory lies outside the JavaScript heap: the worker's heap cap does not see it, and
// an expression that makes many (`l.map(x, l.map(y, bytes(s)))`) could otherwise take gigabytes from the process
// before its time limit.
import { type CelFunc, CelScalar, celFunc } from '@bufbuild/cel';

const { BYTES, STRING } = CelScalar;
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

export const bytesFuncs: CelFunc[] = [
  celFunc('bytes', [STRING], BYTES, (text: string) => {
    const encoded = encoder.encode(text);
    spend(encoded.length);
    return encoded;
  }),
  celFunc('_+_', [BYTES, BYTES], BYTES, (l: Uint8Array, r: Uint8Array) => {
    spend(l.length + r.length);
    const joined = new Uint8Array(l.length + r.length);
    joined.set(l);
    joined.set(r, l.length);
    return joined;
  }),
];
