// A process killed in the middle of an append (the OOM killer) can leave part of a record after the last newline.
// That record was never acknowledged: every answer waits for its audit write. (Writes are not synced to disk, so
// after a power loss the fragment may be of an answered record; it is set aside all the same.) Refusing to start on
// it would keep the service down until someone edits the file, so the fragment is moved to a file of its own,
// kept for inspection, and cut off; the chain resumes from the last whole record, which is still verified. A tail
// cut at a line boundary was never detectable from the file alone, so this hides nothing that could be seen.
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeFileSync } from 'node:fs';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';

const WINDOW = 64 * 1024;

/** The fragment's new path, or undefined when the file is missing, empty or ends with a newline. */
export function setTornTailAside(path: string, clock: Clock, logger: Logger): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0 || byteAt(fd, size - 1) === 0x0a) return undefined;
    const keep = afterLastNewline(fd, size);
    const fragment = Buffer.alloc(size - keep);
    readFully(fd, fragment, keep);
    const aside = `${path}.torn-${new Date(clock.now()).toISOString().replaceAll(':', '')}`;
    // Written (and refused if it exists) before anything is cut, so the bytes are never only in memory.
    writeFileSync(aside, fragment, { flag: 'wx', mode: 0o600, flush: true });
    ftruncateSync(fd, keep);
    logger.warn(
      { audit_path: path, torn_path: aside, bytes: fragment.length },
      'audit file ended in a partial record (a write cut short); moved it aside and resumed from the last whole record',
    );
    return aside;
  } finally {
    closeSync(fd);
  }
}

function byteAt(fd: number, position: number): number {
  const one = Buffer.alloc(1);
  readFully(fd, one, position);
  return one[0] as number;
}

/** The offset just past the last newline, or 0 when the file holds none. */
function afterLastNewline(fd: number, size: number): number {
  const buffer = Buffer.alloc(WINDOW);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - WINDOW);
    const chunk = buffer.subarray(0, end - start);
    readFully(fd, chunk, start);
    const at = chunk.lastIndexOf(0x0a);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}

function readFully(fd: number, into: Buffer, position: number): void {
  let filled = 0;
  while (filled < into.length) {
    const read = readSync(fd, into, filled, into.length - filled, position + filled);
    if (read === 0) throw new Error('the audit file shrank while its tail was read');
    filled += read;
  }
}
