// Audit sink appending envelope lines to one JSONL file, opened once (parent folders created).
import type { Logger } from '../../log.ts';
import { openAppendFile } from './append-file.ts';
import type { FileAuditSink } from './audit-sink.ts';

export function createJsonlSink(path: string, logger?: Logger): FileAuditSink {
  const file = openAppendFile(path, logger);
  return {
    untouched: () => file.untouched(),
    append(lines) {
      file.reopenIfMoved();
      file.append(Buffer.from(lines, 'utf8'));
    },
    async close() {
      file.close();
    },
  };
}
