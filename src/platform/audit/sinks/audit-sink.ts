// The sink contract: a synchronous append that throws on failure, which is what makes fail-closed auditing real.
export interface AuditSink {
  /** Writes one envelope line, or several joined by newlines (the sink adds the trailing newline); throws if not written. */
  append(line: string): void;
  close(): Promise<void>;
}
