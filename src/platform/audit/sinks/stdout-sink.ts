// Audit sink writing each envelope line to standard output with one synchronous write; or, in a process whose
// standard output another process writes (a `--workers` relay worker), handing the lines to that process.
import type { AuditSink, DeferredAuditSink } from './audit-sink.ts';
import { writeFully } from './write-fully.ts';

export function createStdoutSink(fd = 1): AuditSink {
  let closed = false;
  return {
    append(lines) {
      if (closed) throw new Error('audit stdout sink is closed');
      // A write cut short by a stalled reader is finished ahead of the next one: lines stay whole.
      writeFully(fd, Buffer.from(lines, 'utf8'), { completeLater: true });
    },
    async close() {
      // Standard output belongs to the process, so closing only stops further appends, after one more try at
      // the rest of a write cut short (an empty write sends it first).
      closed = true;
      try {
        writeFully(fd, Buffer.alloc(0), { completeLater: true });
      } catch {
        // The reader still takes nothing: what is lost is lost at exit either way.
      }
    },
  };
}

let owner: (() => DeferredAuditSink) | undefined;

/**
 * From now on, this process's `stdout` audit sinks hand their lines to `open()`'s sink instead of writing them:
 * processes that share one standard output (a relay's workers) write it through a single writer, since writes
 * larger than PIPE_BUF from several processes can cut into each other's lines. Returns the undo.
 */
export function handStdoutAuditTo(open: () => DeferredAuditSink): () => void {
  owner = open;
  return () => {
    if (owner === open) owner = undefined;
  };
}

/** The sink for `audit.sink: stdout`: standard output itself, or the process it was handed to. */
export function openStdoutSink(): AuditSink | DeferredAuditSink {
  return owner === undefined ? createStdoutSink() : owner();
}
