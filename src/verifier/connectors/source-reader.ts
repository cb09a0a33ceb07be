// What claim evaluation needs from a source: one record for one lookup, or a problem; and, for batches, many
// lookups of one binding in one request where the connection allows it.
import type { Problem } from '../../platform/problem/problem.ts';
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

/** Several lookup values of one binding, read for one purpose. */
export interface BulkLookup {
  readonly binding: SourceBindingConfig;
  readonly values: readonly string[];
  readonly purpose: string;
  readonly requestId: string;
}

/** What one value of a bulk read came to: its record, or the problem a single read would have raised. */
export type BulkOutcome = { readonly record: SourceRecord } | { readonly problem: Problem };

export interface SourceReader {
  /** Exactly one record, or a thrown problem: 409 `evidence.not_available` or 503 `source.unavailable`. */
  read(lookup: SourceLookup): Promise<SourceRecord>;
  /** How many values one `readMany` of this binding may carry; 0 when the connection reads one at a time. */
  bulkLimit(binding: SourceBindingConfig): number;
  /**
   * One upstream request for several values (at most `bulkLimit`). Values missing from the answer could not be
   * settled by it (the source refused the bulk form, or its answer was cut short): read them singly. Throws
   * 503 `source.unavailable` when the source is unavailable, as `read` would for each value.
   */
  readMany(lookup: BulkLookup): Promise<Map<string, BulkOutcome>>;
  close(): void;
}

export function sourceIdOf(binding: SourceBindingConfig): string {
  return `${binding.connection}/${binding.dataset}/${binding.entity}`;
}

/** A value the relay's comma-separated `.in` list carries unchanged: no comma, no surrounding space, not empty. */
export function isBulkSafe(value: string): boolean {
  return value !== '' && !value.includes(',') && value.trim() === value;
}
