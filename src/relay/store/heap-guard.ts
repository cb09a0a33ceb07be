// Keeps a table load from taking the process past its JavaScript heap limit. A load that did would end the process
// (V8's "reached heap limit" is fatal): every table it serves, and with a reload the generation still being served,
// would go with it, and a restart would only do the same again. Checked after each batch of rows: past a share of
// the limit, a full collection tells live data from garbage not yet collected, and only live data over the share
// fails the load (the previous generation, if any, keeps serving).
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SourceError } from '../sources/source-error.ts';

/** The share of the heap limit a load may fill with live data. */
export const HEAP_GUARD_SHARE = 0.85;

export interface HeapReading {
  readonly used: number;
  readonly limit: number;
}

export interface HeapGuardDeps {
  readonly read: () => HeapReading;
  /** A full garbage collection. */
  readonly collect: () => void;
}

/**
 * Called after each batch of rows, and before a large allocation with the bytes it is about to take (`incoming`:
 * a row about to be decoded, or `purpose` when given, said after its size); throws SourceError
 * `ingest.memory_limit` when the load must stop.
 */
export type HeapGuard = (incoming?: number, purpose?: string) => void;

export function createHeapGuard(tableId: string, deps: HeapGuardDeps = processHeap): HeapGuard {
  // Usage at which the next full collection is made: after one that left enough room, not again until half of
  // what it left is filled, so a load close to the share does not collect after every batch.
  let collectAt = 0;
  return (incoming = 0, purpose?: string) => {
    const before = deps.read();
    const allowed = before.limit * HEAP_GUARD_SHARE;
    if (before.used + incoming <= Math.max(allowed, collectAt)) return;
    deps.collect();
    const after = deps.read();
    if (after.used + incoming > allowed) {
      // A value allocated past the limit is not refused by V8: the next collection ends the process instead.
      const row =
        incoming <= 0
          ? ''
          : purpose === undefined
            ? `, and a row of ${mib(incoming)} MiB to read`
            : `, and ${Math.max(1, mib(incoming))} MiB ${purpose}`;
      throw new SourceError({
        tableId,
        code: 'ingest.memory_limit',
        detail: `loading it would take the relay's JavaScript heap past ${Math.round(HEAP_GUARD_SHARE * 100)}% of its limit (${mib(after.used)} of ${mib(after.limit)} MiB in use${row}): give the process more heap (NODE_OPTIONS=--max-old-space-size=<MiB>), or serve a PostgreSQL table live (materialization: live)`,
      });
    }
    collectAt = after.used + (after.limit - after.used) / 2;
  };
}

function mib(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}

let gc: (() => void) | undefined;

/**
 * What `heap_size_limit` holds besides the old generation, which is where a table's data lives and what runs out:
 * the young generation's three semi-spaces (16 MiB each by default on 64-bit). Left out of the limit the share is
 * taken of, so that a small heap (`--max-old-space-size=100` reports 148 MiB) is guarded too.
 */
const YOUNG_GENERATION_BYTES = 48 * 1024 * 1024;

/** The young generation's spaces: what they hold is counted, not the room they have. */
const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);

/** This process's heap, and a full collection (made available on first use). */
export const processHeap: HeapGuardDeps = {
  read() {
    const statistics = getHeapStatistics();
    // V8 ends the process when the old generation's pages, not the objects on them, pass its limit: values of
    // about 100 KiB leave a quarter of each page unused, so an old generation holding 150 MiB can fill 200.
    let used = 0;
    for (const space of getHeapSpaceStatistics()) {
      used += YOUNG_SPACES.has(space.space_name) ? space.space_used_size : space.space_size;
    }
    return {
      used: Math.max(used, statistics.used_heap_size),
      limit: Math.max(statistics.heap_size_limit - YOUNG_GENERATION_BYTES, statistics.heap_size_limit / 2),
    };
  },
  collect() {
    if (gc === undefined) {
      // The collector is exposed to contexts made after the flag is set: one such context hands it over.
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    }
    gc();
  },
};
