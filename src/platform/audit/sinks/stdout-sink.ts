// Audit sink writing each envelope line to standard output with one synchronous write.
import type { AuditSink } from './audit-sink.ts';
import { writeFully } from './write-fully.ts';

export function createStdoutSink(fd = 1): AuditSink {
  let closed = false;
  return {
    append(lines) {
      if (closed) throw new Error('audit stdout sink is closed');
      writeFully(fd, Buffer.from(lines, 'utf8'));
    },
    async close() {
      // Standard output belongs to the process, so closing only stops further appends.
      closed = true;
    },
  };
}
