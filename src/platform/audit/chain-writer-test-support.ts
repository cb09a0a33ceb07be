// Test helpers for the chain writer: a sink failing on demand, a writer over a sink, a write_failed matcher.
import assert from 'node:assert/strict';
import { fixedClock } from '../clock.ts';
import { isProblem } from '../problem/problem.ts';
import { recordingLogger, sequenceRandom, TEST_SECRET } from './audit-test-support.ts';
import { createChainWriter } from './chain-writer.ts';
import type { AuditSink } from './sinks/audit-sink.ts';

export function isWriteFailed(error: unknown): boolean {
  return isProblem(error) && error.code === 'audit.write_failed' && error.status === 503;
}

/** A sink that fails while `failing` is set and keeps what it accepted. */
export function flakySink(): AuditSink & { failing: boolean; lines: string[] } {
  const sink = {
    failing: false,
    lines: [] as string[],
    append(text: string) {
      if (sink.failing) throw Object.assign(new Error('disk on fire'), { code: 'EIO' });
      // The sink contract: whole lines, each with its newline.
      assert.ok(text.endsWith('\n'), 'appended text ends with a newline');
      sink.lines.push(text);
    },
    close: async () => {},
  };
  return sink;
}

/** A chain writer starting a new chain on `sink`, and the calls of its logger. */
export function writerOn(sink: AuditSink, writePolicy: 'fail_closed' | 'availability_first' = 'fail_closed') {
  const { logger, calls } = recordingLogger();
  const writer = createChainWriter(sink, {
    secret: TEST_SECRET,
    writePolicy,
    clock: fixedClock('2025-01-01T00:00:00.000Z'),
    random: sequenceRandom(),
    logger,
    prevHash: null,
  });
  return { writer, calls };
}
