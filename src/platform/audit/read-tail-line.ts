// Reads the last line of a file from its end, growing the window only when a line is longer than it.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { decodeUtf8Line } from './utf8-line.ts';

export type TailLine =
  | { readonly kind: 'empty' }
  | { readonly kind: 'line'; readonly line: string }
  | { readonly kind: 'unterminated' }
  | { readonly kind: 'not_utf8' };

const INITIAL_WINDOW = 8 * 1024;

/**
 * `empty` for a missing or zero-length file; `unterminated` when the file does not end in a newline; `not_utf8` when
 * the last line's bytes are not UTF-8.
 */
export function readTailLine(path: string): TailLine {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'empty' };
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return { kind: 'empty' };
    for (let window = INITIAL_WINDOW; ; window *= 4) {
      const length = Math.min(window, size);
      const buffer = readAt(fd, size - length, length);
      if (buffer[length - 1] !== 0x0a) return { kind: 'unterminated' };
      // A newline byte never occurs inside a multi-byte UTF-8 sequence, so splitting bytes is safe.
      // (A negative offset would count from the end, so a one-byte buffer is handled apart.)
      const start = length >= 2 ? buffer.lastIndexOf(0x0a, length - 2) : -1;
      if (start >= 0 || length === size) {
        const line = decodeUtf8Line(buffer.subarray(start + 1, length - 1));
        return line === undefined ? { kind: 'not_utf8' } : { kind: 'line', line };
      }
    }
  } finally {
    closeSync(fd);
  }
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, buffer, filled, length - filled, position + filled);
    if (read === 0) throw new Error('file shrank while its tail was read');
    filled += read;
  }
  return buffer;
}
