// Writes a whole buffer to a file descriptor synchronously, retrying short writes and EAGAIN on pipes; on a stream
// whose bytes cannot be taken back, a write cut short is finished ahead of the next one (`completeLater`).
import { writeSync } from 'node:fs';

const MAX_STALLS = 200;
const STALL_MS = 5;
/** How long writes may make no progress, in all, before the write fails (200 waits of 5 ms). */
const STALL_BUDGET_MS = MAX_STALLS * STALL_MS;
const stallCell = new Int32Array(new SharedArrayBuffer(4));
/**
 * Descriptors whose reader took nothing for a whole stall budget (a pipe nobody reads). Writes to them are tried
 * without waiting until the reader takes something: waiting the budget again for every write would hold up the
 * event loop, and every request, a second each time, only to fail. The first byte taken ends it.
 */
const stalledFds = new Set<number>();

export interface WriteFullyOptions {
  /**
   * The first wait after a write that made no progress; each further one in a row doubles, up to 5 ms (the
   * default, and every wait's length by default). A short first wait suits a writer that large batches keep
   * finding the pipe full (a fast reader drains it in microseconds); the budget of waits is the same.
   */
  readonly firstStallMs?: number;
  /**
   * For a stream whose written bytes cannot be taken back (standard output, a pipe): when a write fails part way,
   * its unwritten rest is kept and written ahead of the next write to the descriptor, and the error is a
   * `CommittedWriteError`. Dropping the rest would cut a line and leave the chain broken for good.
   */
  readonly completeLater?: boolean;
}

/** A write that failed part way and whose rest goes out ahead of the next write to the descriptor. */
export class CommittedWriteError extends Error {
  readonly committed = true;
}

/** True when the failed write will still be completed (see WriteFullyOptions.completeLater). */
export function isCommittedWrite(error: unknown): boolean {
  return (error as { committed?: unknown } | null)?.committed === true;
}

/** Bytes a failed write did put down before it failed, by its error (see bytesWrittenBefore). */
const partialWrites = new WeakMap<object, number>();

/** How many bytes of its data the write that threw `error` wrote before failing (0 when unknown). */
export function bytesWrittenBefore(error: unknown): number {
  return typeof error === 'object' && error !== null ? (partialWrites.get(error) ?? 0) : 0;
}

/** Unwritten rests of earlier writes, by descriptor. */
const rests = new Map<number, Buffer>();

export function writeFully(fd: number, data: Buffer, options: WriteFullyOptions = {}): void {
  const firstStallMs = options.firstStallMs ?? STALL_MS;
  if (rests.size > 0 && options.completeLater) {
    const rest = rests.get(fd);
    if (rest !== undefined) {
      const { written, error, waited } = writeSome(fd, rest, firstStallMs);
      if (written < rest.length) {
        rests.set(fd, rest.subarray(written));
        // Nothing of `data` was written: a plain failure.
        throw error ?? stalled(`${rest.length - written} bytes of an earlier write not written`, waited);
      }
      rests.delete(fd);
    }
  }
  const { written, error, waited } = writeSome(fd, data, firstStallMs);
  if (written === data.length) return;
  const message = stalled(`${data.length - written} bytes not written`, waited).message;
  if (written === 0 || !options.completeLater) {
    const failure = error instanceof Error ? error : new Error(message);
    partialWrites.set(failure, written);
    throw failure;
  }
  rests.set(fd, Buffer.from(data.subarray(written)));
  throw new CommittedWriteError(
    `${error instanceof Error ? error.message : message}; the rest is written later`,
    {
      cause: error,
    },
  );
}

function stalled(what: string, waited: boolean): Error {
  return new Error(
    waited
      ? `audit sink stalled: ${what}`
      : `audit sink stalled: ${what} (its reader still takes nothing: not waited for again until it does)`,
  );
}

/**
 * Writes until done, a real error, or the stall budget is spent (at once on a descriptor known to be stalled);
 * returns how far it got and, when it stopped on a stall, whether it waited first.
 */
function writeSome(
  fd: number,
  data: Buffer,
  firstStallMs: number,
): { written: number; error?: unknown; waited: boolean } {
  let offset = 0;
  let waited = 0;
  let streak = 0;
  let budget = stalledFds.has(fd) ? 0 : STALL_BUDGET_MS;
  while (offset < data.length) {
    let written = 0;
    try {
      written = writeSync(fd, data, offset, data.length - offset);
    } catch (error) {
      // A non-blocking pipe reports EAGAIN while its reader is slow; anything else is a real failure.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return { written: offset, error, waited: true };
    }
    if (written > 0) {
      offset += written;
      streak = 0;
      stalledFds.delete(fd);
      budget = STALL_BUDGET_MS;
      continue;
    }
    const wait = Math.min(STALL_MS, firstStallMs * 2 ** streak++);
    if (waited + wait > budget) {
      stalledFds.add(fd);
      return { written: offset, waited: budget > 0 };
    }
    Atomics.wait(stallCell, 0, 0, wait);
    waited += wait;
  }
  return { written: offset, waited: true };
}
