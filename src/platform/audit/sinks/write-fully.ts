// Writes a whole buffer to a file descriptor synchronously, retrying short writes and EAGAIN on pipes.
import { writeSync } from 'node:fs';

const MAX_STALLS = 200;
const STALL_MS = 5;
const stallCell = new Int32Array(new SharedArrayBuffer(4));

export function writeFully(fd: number, data: Buffer): void {
  let offset = 0;
  let stalls = 0;
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
      continue;
    }
    if (++stalls > MAX_STALLS)
      throw new Error(`audit sink stalled: ${data.length - offset} bytes not written`);
    Atomics.wait(stallCell, 0, 0, STALL_MS);
  }
}
