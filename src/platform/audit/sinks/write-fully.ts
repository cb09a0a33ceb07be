// Writes a whole buffer to a file descriptor synchronously, retrying short writes and EAGAIN on pipes.
import { writeSync } from 'node:fs';

const MAX_STALLS = 200;
const STALL_MS = 5;
/** How long writes may make no progress, in all, before the write fails (200 waits of 5 ms). */
const STALL_BUDGET_MS = MAX_STALLS * STALL_MS;
const stallCell = new Int32Array(new SharedArrayBuffer(4));

export interface WriteFullyOptions {
  /**
   * The first wait after a write that made no progress; each further one in a row doubles, up to 5 ms (the
   * default, and every wait's length by default). A short first wait suits a writer that large batches keep
   * finding the pipe full (a fast reader drains it in microseconds); the budget of waits is the same.
   */
  readonly firstStallMs?: number;
}

export function writeFully(fd: number, data: Buffer, options: WriteFullyOptions = {}): void {
  const firstStallMs = options.firstStallMs ?? STALL_MS;
  let offset = 0;
  let waited = 0;
  let streak = 0;
  while (offset < data.length) {
    let written = 0;
    try {
      written = writeSync(fd, data, offset, data.length - offset);
    } catch (error) {
      // A non-blocking pipe reports EAGAIN while its reader is slow; anything else is a real failure.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
    if (written > 0) {
      offset += written;
      streak = 0;
      continue;
    }
    const wait = Math.min(STALL_MS, firstStallMs * 2 ** streak++);
    if (waited + wait > STALL_BUDGET_MS)
      throw new Error(`audit sink stalled: ${data.length - offset} bytes not written`);
    Atomics.wait(stallCell, 0, 0, wait);
    waited += wait;
  }
}
