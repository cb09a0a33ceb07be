// What claim evaluation needs from a source: one record for one lookup, or a problem.
import type { SourceBindingConfig } from '../config/schema.ts';

export interface SourceLookup {
  readonly binding: SourceBindingConfig;
  /** The lookup value taken from the request target (never logged or audited raw). */
  readonly value: string;
  readonly purpose: string;
  /** Correlation id forwarded upstream as `x-request-id`. */
  readonly requestId: string;
}

export interface SourceRecord {
  readonly row: Readonly<Record<string, unknown>>;
  /** Identity of the source for provenance: connection, dataset and entity. */
  readonly sourceId: string;
}

export interface SourceReader {
  /** Exactly one record, or a thrown problem: 409 `evidence.not_available` or 503 `source.unavailable`. */
  read(lookup: SourceLookup): Promise<SourceRecord>;
  close(): void;
}

export function sourceIdOf(binding: SourceBindingConfig): string {
  return `${binding.connection}/${binding.dataset}/${binding.entity}`;
}
