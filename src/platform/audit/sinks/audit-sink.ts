// The sink contract: a synchronous append that throws on failure, which is what makes fail-closed auditing real.
export interface AuditSink {
  /** Writes one envelope line (a trailing newline is added by the sink); throws if it was not written. */
  append(line: string): void;
  close(): Promise<void>;
}
