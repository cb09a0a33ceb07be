// Audit sink appending envelope lines to one JSONL file, opened once (parent folders created).
import { openAppendFile } from './append-file.ts';
import type { AuditSink } from './audit-sink.ts';

export function createJsonlSink(path: string): AuditSink {
  const file = openAppendFile(path);
  return {
    append(lines) {
      file.reopenIfRemoved();
      file.append(Buffer.from(lines, 'utf8'));
    },
    async close() {
      file.close();
    },
  };
}
