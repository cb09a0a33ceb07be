// The source reader of one batch: every distinct lookup is read once for the whole batch, and the lookups of
// all items are announced up front so that a connection with `bulk_mode: rda_in_filter` reads them with one
// `.in` request per binding (split only past `bulk_max_values`). Values a bulk answer cannot settle, and every
// lookup on other connections, are read singly, still once per batch. Each item counts a shared read as its own
// once the request serving it has left; the batch counts every request sent, retries included.
import { bulkChunks, groupKey, readKey } from './bulk-groups.ts';
import {
  isBulkSafe,
  type RequestCounter,
  SharedReadTrace,
  type SourceLookup,
  type SourceReader,
  type SourceRecord,
} from './source-reader.ts';

export interface BatchReader extends SourceReader {
  /** Starts the reads of these lookups now, in as few upstream requests as the connections allow. */
  prefetch(lookups: readonly SourceLookup[]): void;
  /** Upstream requests sent for the batch so far: each attempt, fallbacks and split bulk reads included. */
  readonly upstreamRequests: number;
}

interface SharedRead {
  readonly pending: Promise<SourceRecord>;
  /** Tells the items reading it when its request leaves. */
  readonly trace: SharedReadTrace;
}

/** `counter`, when given, is told of each request as well (as it leaves: an answer given meanwhile counts it). */
export function createBatchReader(base: SourceReader, counter?: RequestCounter): BatchReader {
  const reads = new Map<string, SharedRead>();
  let upstreamRequests = 0;
  // Told by the connector as each request leaves: a read never sent is not counted, a retried one as often as sent.
  const requests: RequestCounter = {
    requestSent() {
      upstreamRequests++;
      counter?.requestSent();
    },
  };

  const remember = (key: string, pending: Promise<SourceRecord>, trace: SharedReadTrace): SharedRead => {
    // Every read is awaited by an item; this only keeps a read nobody reached from surfacing as unhandled.
    pending.catch(() => {});
    const read = { pending, trace };
    reads.set(key, read);
    return read;
  };

  const single = (lookup: SourceLookup, changes: Partial<SourceLookup>): Promise<SourceRecord> =>
    base.read(copyOf(lookup, { ...changes, requests }));

  const readChunk = (first: SourceLookup, chunk: readonly SourceLookup[]) => {
    const trace = new SharedReadTrace();
    const settled = base.readMany({
      binding: first.binding,
      values: chunk.map((lookup) => lookup.value),
      purpose: first.purpose,
      requestId: first.requestId,
      get deadline() {
        return first.deadline;
      },
      trace,
      requests,
    });
    for (const lookup of chunk) {
      remember(
        readKey(lookup),
        settled.then((outcomes) => {
          const outcome = outcomes.get(lookup.value);
          // Its items were counted when the bulk request left. Read on its own: coalesced with its neighbours it
          // would go out as the same bulk request again.
          if (!outcome) return single(lookup, { trace: undefined, alone: true });
          if ('problem' in outcome) throw outcome.problem;
          return outcome.record;
        }),
        trace,
      );
    }
  };

  return {
    read(lookup) {
      const key = readKey(lookup);
      let read = reads.get(key);
      if (read === undefined) {
        const trace = new SharedReadTrace();
        read = remember(key, single(lookup, { trace }), trace);
      }
      read.trace.add(lookup.trace);
      return read.pending;
    },
    bulkLimit: (binding) => base.bulkLimit(binding),
    readMany: (lookup) => base.readMany(lookup),
    prefetch(lookups) {
      const groups = new Map<string, SourceLookup[]>();
      const seen = new Set<string>();
      for (const lookup of lookups) {
        const key = readKey(lookup);
        if (reads.has(key) || seen.has(key)) continue;
        if (base.bulkLimit(lookup.binding) < 2 || !isBulkSafe(lookup.value)) continue;
        seen.add(key);
        const group = groupKey(lookup.binding, lookup.purpose);
        const members = groups.get(group);
        if (members) members.push(lookup);
        else groups.set(group, [lookup]);
      }
      for (const members of groups.values()) {
        const first = members[0] as SourceLookup;
        // A lone value gains nothing from the bulk form: it is read singly when an item asks for it.
        for (const chunk of bulkChunks(members, base.bulkLimit(first.binding))) {
          if (chunk.length > 1) readChunk(first, chunk);
        }
      }
    },
    get upstreamRequests() {
      return upstreamRequests;
    },
    close() {},
  };
}

/**
 * `lookup` with `changes`, its deadline still read from `lookup`: it moves earlier when the batch's client goes away,
 * and a read then still waiting for a slot of its connection is not sent.
 */
function copyOf(lookup: SourceLookup, changes: Partial<SourceLookup>): SourceLookup {
  return {
    ...lookup,
    ...changes,
    get deadline() {
      return lookup.deadline;
    },
  };
}
