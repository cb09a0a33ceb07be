// The source reader of one batch: every distinct lookup is read once for the whole batch, and the lookups of
// all items are announced up front so that a connection with `bulk_mode: rda_in_filter` reads them with one
// `.in` request per binding (split only past `bulk_max_values`). Values a bulk answer cannot settle, and every
// lookup on other connections, are read singly, still once per batch.
import type { SourceBindingConfig } from '../config/schema.ts';
import { isBulkSafe, type SourceLookup, type SourceReader, type SourceRecord } from './source-reader.ts';

/** Keeps an `.in` list well under the relay's 8 KiB request-target limit. */
const MAX_BULK_VALUE_CHARS = 4_000;

export interface BatchReader extends SourceReader {
  /** Starts the reads of these lookups now, in as few upstream requests as the connections allow. */
  prefetch(lookups: readonly SourceLookup[]): void;
  /** Upstream requests made for the batch so far. */
  readonly upstreamRequests: number;
}

/** Lookups of one binding (same source, filter and projection) for one purpose can share a request. */
function groupKey(binding: SourceBindingConfig, purpose: string): string {
  return JSON.stringify([
    binding.connection,
    binding.dataset,
    binding.entity,
    binding.lookup.field,
    [...binding.fields].sort(),
    purpose,
  ]);
}

function readKey(lookup: SourceLookup): string {
  return `${groupKey(lookup.binding, lookup.purpose)}\u0000${lookup.value}`;
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
        const limit = base.bulkLimit(first.binding);
        let chunk: SourceLookup[] = [];
        let chars = 0;
        const flush = () => {
          // A lone value gains nothing from the bulk form: it is read singly when an item asks for it.
          if (chunk.length > 1) readChunk(first, chunk);
          chunk = [];
          chars = 0;
        };
        for (const lookup of members) {
          if (chunk.length >= limit || chars + lookup.value.length + 1 > MAX_BULK_VALUE_CHARS) flush();
          chunk.push(lookup);
          chars += lookup.value.length + 1;
        }
        flush();
      }
    },
    get upstreamRequests() {
      return upstreamRequests;
    },
    close() {},
  };
}
