// `--workers N` with `audit.sink: stdout`: the primary is the only process that writes standard output. The
// processes share one descriptor, and a write larger than PIPE_BUF (4 KiB; one group commit, or even one record
// with a long Data-Purpose) is not atomic on a pipe: two writers would cut into each other's lines. So each
// worker's stdout sink hands every batch to the primary over the IPC channel; the primary writes it with one
// synchronous write (its admin records go through the same descriptor the same way, on the same thread) and
// answers; the worker's records complete on that answer, which keeps `write_policy: fail_closed` real.
import type { DeferredAuditSink } from '../../platform/audit/sinks/audit-sink.ts';
import { CommittedWriteError, isCommittedWrite } from '../../platform/audit/sinks/write-fully.ts';
import {
  type AuditBatchMessage,
  type AuditWrittenMessage,
  asAuditWritten,
  type WorkerMessage,
} from './cluster-messages.ts';
import type { RequestableWorker } from './worker-requests.ts';

/** How long a worker waits for the primary to answer a batch before its records fail (`audit.write_failed`). */
export const AUDIT_ANSWER_TIMEOUT_MS = 10_000;

/**
 * The primary's first wait when standard output (a pipe) is full. Every worker's batches queue behind each write,
 * and a reader drains a pipe in microseconds: waiting writeFully's 5 ms every time cut the relay's throughput with
 * large records to a third.
 */
export const STDOUT_FIRST_STALL_MS = 0.05;

/** A worker's end of the IPC channel to its primary. */
export interface PrimaryChannel {
  isConnected(): boolean;
  /** `callback` gets the error when the message could not be sent (the channel is closing). */
  send(message: WorkerMessage, callback: (error: Error | null) => void): void;
  /** Calls `listener` with every message from the primary; returns the undo. */
  onMessage(listener: (value: unknown) => void): () => void;
  /** Calls `listener` when the channel closes; returns the undo. */
  onDisconnect(listener: () => void): () => void;
}

/** This (worker) process's channel to its primary. */
export function processChannel(proc: NodeJS.Process = process): PrimaryChannel {
  return {
    isConnected: () => proc.connected && proc.send !== undefined,
    send(message, callback) {
      // With a callback, a failed send is reported there rather than as an 'error' event on the process.
      if (proc.send === undefined) callback(new Error('no IPC channel'));
      else proc.send(message, undefined, undefined, callback);
    },
    onMessage(listener) {
      proc.on('message', listener);
      return () => proc.off('message', listener);
    },
    onDisconnect(listener) {
      proc.on('disconnect', listener);
      return () => proc.off('disconnect', listener);
    },
  };
}

/**
 * Sends a message to this worker's primary, or drops it once the channel is closed: an answer that comes after the
 * worker began to stop (a reload still loading) has nobody to go to, and a send without a callback on a closed
 * channel raises an 'error' event that would crash the worker.
 */
export function sendToPrimary(message: WorkerMessage, channel: PrimaryChannel = processChannel()): void {
  if (channel.isConnected()) channel.send(message, () => {});
}

// Batch ids are unique in the process, so that two sinks on one channel never take each other's answers.
let nextBatchId = 1;

/** The worker's stdout sink: every batch goes to the primary, and is done when the primary answers. */
export function stdoutThroughPrimary(
  channel: PrimaryChannel,
  options: { readonly answerTimeoutMs?: number; readonly now?: () => number } = {},
): DeferredAuditSink {
  const answerTimeoutMs = options.answerTimeoutMs ?? AUDIT_ANSWER_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const pending = new Map<number, (error?: unknown) => void>();
  let closed = false;

  const settle = (id: number, error?: Error): void => {
    const done = pending.get(id);
    if (done === undefined) return;
    pending.delete(id);
    done(error);
  };
  const settleAll = (reason: string): void => {
    for (const id of [...pending.keys()]) settle(id, new Error(reason));
  };

  const offMessage = channel.onMessage((value) => {
    const message = asAuditWritten(value);
    if (message === undefined) return;
    if (message.ok) settle(message.id);
    else {
      const text = `the primary did not write it: ${message.error}`;
      settle(message.id, message.committed === true ? new CommittedWriteError(text) : new Error(text));
    }
  });
  // The primary went away: nobody will write these batches any more.
  const offDisconnect = channel.onDisconnect(() =>
    settleAll('the channel to the primary closed before it answered'),
  );

  return {
    deferred: true,
    answerTimeoutMs,
    append(lines, done) {
      if (closed) throw new Error('audit stdout sink is closed');
      if (!channel.isConnected()) throw new Error('no channel to the primary, which writes standard output');
      const id = nextBatchId++;
      pending.set(id, done);
      channel.send({ kind: 'ambit:audit', id, lines, deadline: now() + answerTimeoutMs }, (error) => {
        if (error) settle(id, new Error(`could not hand the batch to the primary: ${error.message}`));
      });
    },
    async close() {
      closed = true;
      offMessage();
      offDisconnect();
      settleAll('audit stdout sink closed before the primary answered');
    },
  };
}

/**
 * The primary's side: writes a worker's batch with one `write` (whole, or not at all as far as the worker knows,
 * or cut short with its rest written ahead of the next write, which the answer says) and answers it. A batch past
 * its deadline is refused unwritten: its worker has failed its records already.
 */
export function writeWorkerBatch(
  worker: RequestableWorker,
  batch: AuditBatchMessage,
  write: (data: Buffer) => void,
  now: () => number = Date.now,
): void {
  let error: string | undefined;
  let committed = false;
  if (typeof batch.lines !== 'string' || !batch.lines.endsWith('\n')) {
    error = 'the batch is not whole lines';
  } else if (now() > batch.deadline) {
    error = 'the batch reached the primary after its deadline';
  } else {
    try {
      write(Buffer.from(batch.lines, 'utf8'));
    } catch (cause) {
      error = cause instanceof Error ? cause.message : String(cause);
      committed = isCommittedWrite(cause);
    }
  }
  // A worker on its way out fails the batch itself when its channel closes; a send that fails as the channel
  // closes is reported to the callback (not as an 'error' event that would take the primary down).
  if (!worker.isConnected()) return;
  const answer: AuditWrittenMessage =
    error === undefined
      ? { kind: 'ambit:audit-written', id: batch.id, ok: true }
      : { kind: 'ambit:audit-written', id: batch.id, ok: false, error, ...(committed ? { committed } : {}) };
  worker.send(answer, () => {});
}
