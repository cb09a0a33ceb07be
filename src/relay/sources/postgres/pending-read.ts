// A live read from when it is asked for until it settles, and the reads that share it: a read asked for while an
// identical one (same guard, statement and values) waits unsent is answered with that read's rows. Both would run
// in the same implicit transaction, so their answers could not differ; a read asked for once the other was sent
// runs on its own, since its answer may be newer.
import type { Prepared } from './live-statements.ts';
import { sameParams } from './live-wire.ts';

type Rows = (string | null)[][];

interface Caller {
  readonly resolve: (rows: Rows) => void;
  readonly reject: (error: Error) => void;
}

export interface ReadRequest extends Caller {
  readonly guard: string;
  readonly text: string;
  readonly values: readonly unknown[];
  readonly prepare: boolean;
}

export interface PendingRead extends ReadRequest {
  /** Identical reads asked for before this one was sent: they settle with it (each with its own list of rows). */
  twins: Caller[] | undefined;
  // The rest is set each time the read is sent (again, when the server skipped it after another read's error).
  /** The prepared SELECT the read runs (none when unnamed), and whether this read parses it. */
  statement: Prepared | undefined;
  parses: boolean;
  /** Its SELECT's ParseComplete and BindComplete came (rows come only after the latter). */
  parsed: boolean;
  bound: boolean;
  /** Bytes of the SELECT's data rows so far: beyond the connection's limit they are dropped as they come. */
  bytes: number;
  rows: Rows;
  error: Error | undefined;
}

/**
 * Queues `request` behind the reads not yet sent, or joins it to an identical one of them. True when it was
 * queued as a read of its own (a flush is due), false when it joined another.
 */
export function queueRead(queued: PendingRead[], request: ReadRequest): boolean {
  for (let index = 0; index < queued.length; index++) {
    const read = queued[index] as PendingRead;
    if (
      read.text === request.text &&
      read.guard === request.guard &&
      read.prepare === request.prepare &&
      sameParams(read.values, request.values)
    ) {
      const twin = { resolve: request.resolve, reject: request.reject };
      if (read.twins === undefined) read.twins = [twin];
      else read.twins.push(twin);
      return false;
    }
  }
  // Spelled out rather than spread: every pending read then has one shape.
  queued.push({
    guard: request.guard,
    text: request.text,
    values: request.values,
    prepare: request.prepare,
    resolve: request.resolve,
    reject: request.reject,
    twins: undefined,
    statement: undefined,
    parses: false,
    parsed: false,
    bound: false,
    bytes: 0,
    rows: [],
    error: undefined,
  });
  return true;
}

/** Settles the read and its twins: each twin gets a copy of the list of rows, since a caller may change its own. */
export function settle(read: PendingRead, error: Error | undefined): void {
  for (const twin of read.twins ?? []) {
    if (error === undefined) twin.resolve(read.rows.slice());
    else twin.reject(error);
  }
  if (error === undefined) read.resolve(read.rows);
  else read.reject(error);
}
