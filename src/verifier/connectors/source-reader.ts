// What claim evaluation needs from a source: one record for one lookup, or a problem; and, for batches, many
// lookups of one binding in one request where the connection allows it.
import { platformProblem } from '../../platform/problem/platform-problems.ts';
import type { Problem } from '../../platform/problem/problem.ts';
import type { SourceBindingConfig } from '../config/schema.ts';
import { FailureReason } from './failure-reason.ts';

export interface SourceLookup {
  readonly binding: SourceBindingConfig;
  /** The lookup value taken from the request target (never logged or audited raw). */
  readonly value: string;
  readonly purpose: string;
  /** Correlation id forwarded upstream as `x-request-id`. */
  readonly requestId: string;
  /** A `performance.now()` instant: the request is answered by then, so no attempt of this read starts later. */
  readonly deadline?: number | undefined;
  /** Told when this read leaves for its source, alone or with others. */
  readonly trace?: ReadTrace | undefined;
  /** Told of every request sent for this read: each attempt, retries included. */
  readonly requests?: RequestCounter | undefined;
  /** Read in a request of its own, never coalesced with others: a value a bulk answer could not settle. */
  readonly alone?: boolean | undefined;
  /** Told when the read pauses before another attempt: nothing of it is on its way to the source meanwhile. */
  readonly onPause?: (() => void) | undefined;
}

/** What an evaluation's audit counts as its source reads: told once per read, when it leaves for its source. */
export interface ReadTrace {
  readSent(): void;
}

/**
 * What a batch's audit counts as its upstream requests (`upstream_request_count`): told of every request as it is
 * sent, each attempt of a retried read and each request of a bulk read split in smaller ones included.
 */
export interface RequestCounter {
  requestSent(): void;
}

/** Tells each distinct counter of several lookups sharing requests; undefined when none has one. */
export function sharedRequestCounter(
  counters: Iterable<RequestCounter | undefined>,
): RequestCounter | undefined {
  const distinct = new Set<RequestCounter>();
  for (const counter of counters) if (counter !== undefined) distinct.add(counter);
  if (distinct.size <= 1) return distinct.values().next().value;
  return {
    requestSent() {
      for (const counter of distinct) counter.requestSent();
    },
  };
}

/** The trace of one request serving several reads: each trace added is told once, when the request leaves. */
export class SharedReadTrace implements ReadTrace {
  private sent = false;
  private readonly traces: ReadTrace[] = [];

  add(trace: ReadTrace | undefined): void {
    if (trace === undefined) return;
    if (this.sent) trace.readSent();
    else this.traces.push(trace);
  }

  readSent(): void {
    if (this.sent) return;
    this.sent = true;
    for (const trace of this.traces) trace.readSent();
    this.traces.length = 0;
  }
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
  /** As for `SourceLookup`: the latest deadline of the reads the request serves. */
  readonly deadline?: number | undefined;
  readonly trace?: ReadTrace | undefined;
  /** Told of every request sent, as for `SourceLookup`. */
  readonly requests?: RequestCounter | undefined;
  /** As for `SourceLookup`: told when a request of the read pauses before another attempt. */
  readonly onPause?: (() => void) | undefined;
  /**
   * Reads of several requests (coalesced): the correlation id and request counter of the reads that some of
   * `values` serve, for a request asking those values only (the read asked again in parts). Without it, every
   * request carries `requestId` and tells `requests`.
   */
  readonly servedBy?: ((values: readonly string[]) => ServedReads) | undefined;
}

/** Whom a request serves: forwarded as its `x-request-id`, and told of it when it is sent. */
export interface ServedReads {
  readonly requestId: string;
  readonly requests?: RequestCounter | undefined;
}

/** What one value of a bulk read came to: its record, or the problem a single read would have raised. */
export type BulkOutcome = { readonly record: SourceRecord } | { readonly problem: Problem };

export interface SourceReader {
  /**
   * Exactly one record, or a thrown problem: 409 `evidence.not_available`, 503 `source.unavailable`, or 504
   * `internal.timeout` when the lookup's deadline passes first.
   */
  read(lookup: SourceLookup): Promise<SourceRecord>;
  /** How many values one `readMany` of this binding may carry; 0 when the connection reads one at a time. */
  bulkLimit(binding: SourceBindingConfig): number;
  /**
   * One upstream request for several values (at most `bulkLimit`). Values missing from the answer could not be
   * settled by it (the source refused the bulk form, or its answer was cut short): read them singly. An answer
   * refused as too large or invalid, or a list the source refuses for one of its values, is asked again in smaller
   * requests, so that one record or value decides only its own value's outcome; so are the values a page overfilled by
   * a value with several records left unsettled. Throws 503 `source.unavailable` when the source is unavailable, as `read` would for each value.
   */
  readMany(lookup: BulkLookup): Promise<Map<string, BulkOutcome>>;
  /**
   * Looks at the deadlines of the reads again, now: one was brought forward (its client went away). A read whose
   * deadline has passed stops: an attempt on its way is dropped, freeing its slot, and a pause ends.
   */
  recheck?(): void;
  close(): void;
}

export function sourceIdOf(binding: SourceBindingConfig): string {
  // A list, not `a/b/c`: names may hold `/`, and `b/c` + `d` must not count as the same source as `b` + `c/d`.
  return JSON.stringify([binding.connection, binding.dataset, binding.entity]);
}

/** A value the relay's comma-separated `.in` list carries unchanged: no comma, no surrounding space, not empty. */
export function isBulkSafe(value: string): boolean {
  return value !== '' && !value.includes(',') && value.trim() === value;
}

/**
 * A read the request had no time left for: not sent, or sent and not answered before the deadline. The request is
 * answered as its time-out is, 504 `internal.timeout`, whichever of the two comes first; `code` goes to audit.
 */
export function requestTimedOut(
  code = 'source.deadline_passed',
  message = 'the request timed out before the read was sent',
): Problem {
  return platformProblem('internal.timeout', undefined, { cause: new FailureReason(code, message) });
}
