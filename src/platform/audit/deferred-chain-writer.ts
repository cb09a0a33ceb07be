// Chains records onto a deferred sink: one whose lines another process writes and acknowledges later (a
// `--workers` relay worker's standard output, written by its primary). Records are group-committed as with
// createChainWriter, but one batch is out at a time: the records queued meanwhile are built (chained) only once
// the batch before them is known to be written or not, so a failed batch never leaves a later line pointing at
// it. Each record's `done` runs when its batch is acknowledged; a batch not acknowledged within the sink's
// `answerTimeoutMs` fails its records (fail-closed), and until it is, new records fail at once.
import { type AuditRecord, buildEnvelopeLine } from './audit-envelope.ts';
import type { AuditWriter, ChainWriterOptions } from './chain-writer.ts';
import type { DeferredAuditSink } from './sinks/audit-sink.ts';
import { isCommittedWrite } from './sinks/write-fully.ts';
import { answerAll, trackWriteFailures } from './write-failures.ts';

interface Queued {
  readonly record: AuditRecord;
  readonly done: (error?: unknown) => void;
}

export function createDeferredChainWriter(sink: DeferredAuditSink, options: ChainWriterOptions): AuditWriter {
  const { secret, clock, random, logger } = options;
  const failures = trackWriteFailures(logger, options.writePolicy, options.writeFailed);
  /** The last hash known to be written: what the next batch chains onto. */
  let prevHash = options.prevHash;
  let queue: Queued[] = [];
  let flushScheduled = false;
  /** A batch handed over and not yet answered. */
  let outstanding = false;
  /** The outstanding batch passed its timeout: its records have failed, and new ones fail at once. */
  let overdue = false;
  let closing: Promise<void> | undefined;
  let whenIdle: (() => void) | undefined;

  const answer = (callbacks: readonly ((error?: unknown) => void)[], failure: unknown): void =>
    answerAll(logger, callbacks, failure);

  const idle = (): boolean => queue.length === 0 && (!outstanding || overdue);

  const flush = (): void => {
    flushScheduled = false;
    if (queue.length === 0) {
      if (idle()) whenIdle?.();
      return;
    }
    if (outstanding) {
      // The records wait for the outstanding batch (they chain onto it if it is written), unless it is overdue.
      if (overdue) {
        const failing = queue;
        queue = [];
        const failure = failures.failed(
          new Error('audit sink has not answered an earlier batch'),
          failing.length,
        );
        answer(
          failing.map((queued) => queued.done),
          failure,
        );
        if (idle()) whenIdle?.();
      }
      return;
    }
    const batch = queue;
    queue = [];
    const lines: string[] = [];
    const waiting: ((error?: unknown) => void)[] = [];
    let hash = prevHash;
    for (const { record, done } of batch) {
      let built: ReturnType<typeof buildEnvelopeLine>;
      try {
        built = buildEnvelopeLine({ record, prevHash: hash, secret, clock, random });
      } catch (error) {
        // Only this record fails: the chain goes on without it.
        answer([done], failures.failed(error, 1));
        continue;
      }
      lines.push(built.line);
      waiting.push(done);
      hash = built.recordHash;
    }
    if (lines.length === 0) {
      if (idle()) whenIdle?.();
      return;
    }
    lines.push('');
    send(lines.join('\n'), waiting, hash);
  };

  const send = (text: string, waiting: ((error?: unknown) => void)[], lastHash: string | null): void => {
    const records = waiting.length;
    let answered = false;
    let settled = false;
    const timer = setTimeout(() => {
      overdue = true;
      answered = true;
      answer(
        waiting,
        failures.failed(new Error(`audit sink did not answer within ${sink.answerTimeoutMs} ms`), records),
      );
      // Records queued behind the batch fail now rather than when it is finally answered.
      flush();
    }, sink.answerTimeoutMs);
    const settle = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outstanding = false;
      overdue = false;
      // A batch cut short on a stream that finishes it later still ends up whole: the chain goes on from it.
      if (error === undefined || isCommittedWrite(error)) prevHash = lastHash;
      if (error === undefined) {
        failures.succeeded();
        // Its records already failed (their responses said so): the chain still continues from them.
        if (answered) logger.warn({ records }, 'audit batch written after its records failed (too late)');
      }
      if (!answered) {
        answered = true;
        answer(waiting, error === undefined ? undefined : failures.failed(error, records));
      }
      flush();
    };
    outstanding = true;
    try {
      sink.append(text, settle);
    } catch (error) {
      settle(error);
    }
  };

  return {
    write() {
      // Nothing here may wait for the answer of another process.
      throw new Error('this audit sink takes queued records only (enqueue), not synchronous writes');
    },
    enqueue(record, done) {
      queue.push({ record, done });
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        // Queued records are handed over and answered first; an overdue batch is not waited for.
        whenIdle = resolve;
        flush();
        if (idle()) resolve();
      }).then(() => {
        whenIdle = undefined;
        return sink.close();
      });
      return closing;
    },
    get lastHash() {
      return prevHash;
    },
  };
}
