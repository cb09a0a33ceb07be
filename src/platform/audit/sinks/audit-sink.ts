// The sink contract: a synchronous append that throws on failure, which is what makes fail-closed auditing real.
export interface AuditSink {
  /** Writes whole envelope lines, each ending with a newline; throws if they were not written. */
  append(lines: string): void;
  close(): Promise<void>;
}
