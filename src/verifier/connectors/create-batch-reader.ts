// The source reader of one batch: every distinct lookup is read once for the whole batch, and the lookups of
// all items are announced up front so that a connection with `bulk_mode: rda_in_filter` reads them with one
// `.in` request per binding (split only past `bulk_max_values`). Values a bulk answer cannot settle, and every
// lookup on other connections, are read singly, still once per batch.
import { bulkChunks, groupKey, readKey } from './bulk-groups.ts';
import { isBulkSafe, type SourceLookup, type SourceReader, type SourceRecord } from './source-reader.ts';

export interface BatchReader extends SourceReader {
  /** Starts the reads of these lookups now, in as few upstream requests as the connections allow. */
  prefetch(lookups: readonly SourceLookup[]): void;
  /** Upstream requests made for the batch so far. */
  readonly upstreamRequests: number;
}

export function createBatchReader(base: SourceReader): BatchReader {
  const reads = new Map<string, Promise<SourceRecord>>();
  let upstreamRequests = 0;

  const remember = (key: string, pending: Promise<SourceRecord>): Promise<SourceRecord> => {
    // Every read is awaited by an item; this only keeps a read nobody reached from surfacing as unhandled.
    pending.catch(() => {});
    reads.set(key, pending);
    return pending;
  };

  const single = (lookup: SourceLookup): Promise<SourceRecord> => {
    upstreamRequests++;
    return base.read(lookup);
  };

  const readChunk = (first: SourceLookup, chunk: readonly SourceLookup[]) => {
    upstreamRequests++;
    const settled = base.readMany({
      binding: first.binding,
      values: chunk.map((lookup) => lookup.value),
      purpose: first.purpose,
      requestId: first.requestId,
    });
    for (const lookup of chunk) {
      remember(
        readKey(lookup),
        settled.then((outcomes) => {
          const outcome = outcomes.get(lookup.value);
          if (!outcome) return single(lookup);
          if ('problem' in outcome) throw outcome.problem;
          return outcome.record;
        }),
      );
    }
  };

  return {
    read(lookup) {
      return reads.get(readKey(lookup)) ?? remember(readKey(lookup), single(lookup));
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
