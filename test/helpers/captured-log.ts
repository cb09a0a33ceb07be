// A service logger whose lines a test reads back: `lines` as written (JSON text), `records` parsed.
import { Writable } from 'node:stream';
import { createLogger, type Logger, type LogLevel } from '../../src/platform/log.ts';

export interface CapturedLog {
  readonly logger: Logger;
  /** Each line as the logger wrote it. */
  readonly lines: string[];
  /** The lines parsed. */
  records(): Record<string, unknown>[];
}

export function capturedLog(level: LogLevel = 'info'): CapturedLog {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return {
    logger: createLogger({ name: 'test', level, destination }),
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
