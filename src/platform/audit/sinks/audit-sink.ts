// The sink contract: a synchronous append that throws on failure, which is what makes fail-closed auditing real.
export interface AuditSink {
  /** Writes whole envelope lines, each ending with a newline; throws if they were not written. */
  append(lines: string): void;
  close(): Promise<void>;
}

/** A sink writing a file of its own at a path (`file`, `jsonl`). */
export interface FileAuditSink extends AuditSink {
  /**
   * False when another writer may have appended to the file at the path since this sink's last append (its size
   * changed, or it is another file): continuing the chain there would fork it.
   */
  untouched(): boolean;
}

/**
 * A sink whose lines another process writes (a `--workers` relay worker's standard output, written by its
 * primary): the answer comes later. The chain writer hands it one batch at a time and chains the next batch only
 * onto a batch known to be written, so a failed batch never leaves a later line pointing at a missing one.
 */
export interface DeferredAuditSink {
  readonly deferred: true;
  /**
   * How long a batch's records wait for `done` before they fail as a write failure. The batch is still waited for
   * (its fate decides where the chain continues); meanwhile further records fail at once.
   */
  readonly answerTimeoutMs: number;
  /**
   * Hands over whole envelope lines, each ending with a newline; `done` runs once, with no argument when they were
   * written and an error when they were not. Throws when they cannot be handed over at all (`done` does not run).
   */
  append(lines: string, done: (error?: unknown) => void): void;
  close(): Promise<void>;
}

export function isDeferredSink(sink: AuditSink | DeferredAuditSink): sink is DeferredAuditSink {
  return (sink as Partial<DeferredAuditSink>).deferred === true;
}
