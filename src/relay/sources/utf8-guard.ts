// Checks that a byte stream is UTF-8 on its way to a text parser, which would otherwise turn the bytes that are not
// into U+FFFD and serve them.
import { isUtf8 } from 'node:buffer';
import type { FileHandle } from 'node:fs/promises';
import { Transform, type TransformCallback } from 'node:stream';

const EMPTY = Buffer.alloc(0);

/**
 * Passes the bytes through unchanged, or fails with the error `invalid` makes of the file offset of the first byte
 * that is not UTF-8 (a sequence cut short by the end of the input included). A sequence split across two chunks is
 * checked once both are in.
 */
export function utf8Guard(invalid: (offset: number) => Promise<Error>): Transform {
  let carry: Buffer = EMPTY;
  // Bytes checked so far: the file offset of `carry`.
  let checked = 0;
  const fail = (bytes: Uint8Array, callback: TransformCallback) => {
    invalid(checked + firstInvalidByte(bytes)).then(callback, callback);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
      const cut = bytes.length - incompleteTail(bytes);
      const whole = bytes.subarray(0, cut);
      if (!isUtf8(whole)) {
        fail(whole, callback);
        return;
      }
      checked += cut;
      carry = Buffer.from(bytes.subarray(cut));
      callback(null, chunk);
    },
    flush(callback) {
      if (carry.length > 0) fail(carry, callback);
      else callback();
    },
  });
}

/** Bytes at the end of `bytes` that start a multi-byte sequence the chunk does not finish (0 to 3). */
export function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue;
    if (byte < 0xc0) return 0;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return length > back ? back : 0;
  }
  return 0;
}

/** Index of the first byte of `bytes` that does not begin a well-formed UTF-8 sequence (Unicode table 3-7). */
export function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    // The range the second byte must be in excludes overlong forms, surrogates and code points past U+10FFFF.
    let tail: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) tail = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      tail = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      tail = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    if (i + tail >= bytes.length) return i;
    const second = bytes[i + 1] as number;
    if (second < low || second > high) return i;
    for (let k = 2; k <= tail; k++) if (((bytes[i + k] as number) & 0xc0) !== 0x80) return i;
    i += tail + 1;
  }
  return i;
}

/**
 * The 1-based line of the file `offset` is on, line ends being CRLF, LF or CR alike (as the CSV reader takes
 * them; a line break inside a quoted field counts too). Reads the open file up to `offset` again, which is only
 * done to report an error; the caller closes it.
 */
export async function lineAt(handle: FileHandle, offset: number): Promise<number> {
  if (offset <= 0) return 1;
  let line = 1;
  let afterCr = false;
  for await (const chunk of handle.createReadStream({
    start: 0,
    end: offset - 1,
    autoClose: false,
  }) as AsyncIterable<Buffer>) {
    for (const byte of chunk) {
      // A CR counts at once; the LF of a CRLF then does not.
      if (byte === 0x0d) line += 1;
      else if (byte === 0x0a && !afterCr) line += 1;
      afterCr = byte === 0x0d;
    }
  }
  return line;
}
