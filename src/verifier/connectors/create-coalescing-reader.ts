// Concurrent single evaluations read together: lookups of one binding (on a connection with `coalesce_reads: true`)
// wait while an earlier read of that binding is on its way (not while it pauses before another attempt), then leave
// together as one `.in` request (as a batch's lookups do) instead of one request each. Under load the batches grow
// with the concurrency; a lone lookup still leaves at once, on its own. A value the bulk answer cannot settle is read singly, exactly as it would have been;
// a lookup on any other connection, or whose value cannot travel in an `.in` list, goes straight through.
// A lookup whose request has been answered (its deadline passed) while it waited is not sent; a read already shared
// goes on for the others, until the latest of their deadlines.
import { bulkChunks, groupKey } from './bulk-groups.ts';
import {
  isBulkSafe,
  type ReadTrace,
  type RequestCounter,
  requestTimedOut,
  type ServedReads,
  SharedReadTrace,
  type SourceLookup,
  type SourceReader,
  type SourceRecord,
  sharedRequestCounter,
} from './source-reader.ts';

interface Waiting {
  readonly lookup: SourceLookup;
  resolve(record: SourceRecord): void;
  reject(error: unknown): void;
}

interface Group {
  /** Lookups not sent yet, by value: the same subject asked twice is read once. */
  queue: Map<string, Waiting[]>;
  /** Reads of this group on their way. */
  inFlight: number;
}

/** Reads of one group on their way at once; the next ones wait and leave together. */
const MAX_IN_FLIGHT = 2;

/**
 * `coalesces(lookup)` says which lookups may be read together. The source must accept the `.in` filter on the
 * lookup field: where it refuses it, each group costs that refused request before its values are read singly.
 */
export function createCoalescingReader(
  base: SourceReader,
  coalesces: (lookup: SourceLookup) => boolean,
): SourceReader {
  const groups = new Map<string, Group>();

  const settle = (waiting: readonly Waiting[], outcome: Promise<SourceRecord>) => {
    outcome.then(
      (record) => {
        for (const entry of waiting) entry.resolve(record);
      },
      (error: unknown) => {
        for (const entry of waiting) entry.reject(error);
      },
    );
  };

  /**
   * What one value of a bulk answer came to, or its single read when the answer could not settle it (its
   * evaluations were counted when the bulk request left).
   */
  const fromBulk = (
    answer: ReturnType<SourceReader['readMany']>,
    lookup: SourceLookup,
    waiting: readonly Waiting[],
    onPause: () => void,
  ): Promise<SourceRecord> =>
    answer.then((outcomes) => {
      const outcome = outcomes.get(lookup.value);
      if (outcome === undefined) {
        return base.read({
          ...lookup,
          deadline: latestDeadline([waiting]),
          trace: undefined,
          requests: sharedRequests([waiting]),
          onPause,
        });
      }
      if ('problem' in outcome) throw outcome.problem;
      return outcome.record;
    });

  /** Sends what the group has queued, as long as it may have another read on its way. */
  const send = (key: string, group: Group) => {
    dropExpired(group, performance.now());
    while (group.queue.size > 0 && group.inFlight < MAX_IN_FLIGHT) {
      const first = ([...group.queue.values()][0] as Waiting[])[0] as Waiting;
      const limit = base.bulkLimit(first.lookup.binding);
      const firsts = [...group.queue.values()]
        .slice(0, limit)
        .map((waiting) => (waiting[0] as Waiting).lookup);
      const chunk = bulkChunks(firsts, limit)[0] as SourceLookup[];
      const sent = chunk.map((lookup) => {
        const waiting = group.queue.get(lookup.value) as Waiting[];
        group.queue.delete(lookup.value);
        return waiting;
      });
      // The group's slot is given back when the read ends, or as soon as it pauses before another attempt: nothing
      // of it is on its way then (a source recovering is asked at once, not after the pause).
      group.inFlight++;
      let holding = true;
      const release = () => {
        if (!holding) return;
        holding = false;
        group.inFlight--;
        if (group.queue.size > 0) send(key, group);
        else if (group.inFlight === 0 && groups.get(key) === group) groups.delete(key);
      };
      let read: Promise<unknown>;
      if (chunk.length === 1) {
        const waiting = sent[0] as Waiting[];
        const lone = chunk[0] as SourceLookup;
        // One evaluation's lookup goes as it is (its deadline still read from it); one read serving several tells
        // each of them.
        const single = base.read(
          waiting.length === 1
            ? withPause(lone, release)
            : {
                ...lone,
                deadline: latestDeadline([waiting]),
                trace: sharedTrace(sent),
                requests: sharedRequests(sent),
                onPause: release,
              },
        );
        settle(waiting, single);
        read = single;
      } else {
        const byValue = new Map(chunk.map((lookup, index) => [lookup.value, sent[index] as Waiting[]]));
        const answer = base.readMany({
          binding: first.lookup.binding,
          values: chunk.map((lookup) => lookup.value),
          purpose: first.lookup.purpose,
          // The request carries the correlation id of the first evaluation it serves.
          requestId: (chunk[0] as SourceLookup).requestId,
          deadline: latestDeadline(sent),
          trace: sharedTrace(sent),
          requests: sharedRequests(sent),
          onPause: release,
          // So does each request asking some of its values again, and it counts for their evaluations only.
          servedBy: (values) =>
            servedBy(
              values.map((value) => byValue.get(value) ?? []),
              first.lookup.requestId,
            ),
        });
        const outcomes = chunk.map((lookup, index) => {
          const waiting = sent[index] as Waiting[];
          const outcome = fromBulk(answer, lookup, waiting, release);
          settle(waiting, outcome);
          return outcome;
        });
        read = Promise.allSettled(outcomes);
      }
      read.then(release, release);
    }
    // Everything it held had expired.
    if (group.queue.size === 0 && group.inFlight === 0 && groups.get(key) === group) groups.delete(key);
  };

  return {
    read(lookup) {
      if (
        lookup.alone === true ||
        !coalesces(lookup) ||
        base.bulkLimit(lookup.binding) < 2 ||
        !isBulkSafe(lookup.value)
      ) {
        return base.read(lookup);
      }
      const key = groupKey(lookup.binding, lookup.purpose);
      let group = groups.get(key);
      if (group === undefined) {
        group = { queue: new Map(), inFlight: 0 };
        groups.set(key, group);
      }
      const current = group;
      return new Promise<SourceRecord>((resolve, reject) => {
        const waiting = current.queue.get(lookup.value);
        if (waiting === undefined) current.queue.set(lookup.value, [{ lookup, resolve, reject }]);
        else waiting.push({ lookup, resolve, reject });
        // Lookups of this same turn join it; after that, while reads are on their way, the queue waits for them.
        if (current.queue.size === 1 && current.inFlight < MAX_IN_FLIGHT)
          setImmediate(() => send(key, current));
      });
    },
    bulkLimit: (binding) => base.bulkLimit(binding),
    readMany: (lookup) => base.readMany(lookup),
    recheck: () => base.recheck?.(),
    close: () => base.close(),
  };
}

/** `lookup` told of its pauses, its deadline still read from it (it moves earlier when the client goes away). */
function withPause(lookup: SourceLookup, onPause: () => void): SourceLookup {
  return {
    ...lookup,
    onPause,
    get deadline() {
      return lookup.deadline;
    },
  };
}

/** Fails, unsent, the queued lookups whose request has been answered meanwhile. */
function dropExpired(group: Group, now: number): void {
  for (const [value, waiting] of group.queue) {
    for (let index = waiting.length - 1; index >= 0; index--) {
      const entry = waiting[index] as Waiting;
      const deadline = entry.lookup.deadline;
      if (deadline !== undefined && deadline <= now) {
        waiting.splice(index, 1);
        entry.reject(requestTimedOut());
      }
    }
    if (waiting.length === 0) group.queue.delete(value);
  }
}

/** The deadline of a read serving these lookups: the latest, or none when one of them has none. */
function latestDeadline(sent: readonly (readonly Waiting[])[]): number | undefined {
  let latest = Number.NEGATIVE_INFINITY;
  for (const waiting of sent) {
    for (const entry of waiting) {
      const deadline = entry.lookup.deadline;
      if (deadline === undefined) return undefined;
      if (deadline > latest) latest = deadline;
    }
  }
  return latest;
}

function sharedTrace(sent: readonly (readonly Waiting[])[]): ReadTrace {
  const trace = new SharedReadTrace();
  for (const waiting of sent) for (const entry of waiting) trace.add(entry.lookup.trace);
  return trace;
}

/** The correlation id (the first evaluation's) and request counters of a request serving these lookups. */
function servedBy(sent: readonly (readonly Waiting[])[], otherwise: string): ServedReads {
  const first = sent.find((waiting) => waiting.length > 0)?.[0];
  return { requestId: first?.lookup.requestId ?? otherwise, requests: sharedRequests(sent) };
}

/** The request counters of the lookups a read serves (a batch's), each told of every request sent for it. */
function sharedRequests(sent: readonly (readonly Waiting[])[]): RequestCounter | undefined {
  return sharedRequestCounter(sent.flatMap((waiting) => waiting.map((entry) => entry.lookup.requests)));
}
