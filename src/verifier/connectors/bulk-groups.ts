// Which lookups may share one `.in` request, and how a group is cut into requests the relay accepts.
import type { SourceBindingConfig } from '../config/schema.ts';
import type { SourceLookup } from './source-reader.ts';

/** Keeps an `.in` list well under the relay's 8 KiB request-target limit. */
const MAX_BULK_VALUE_CHARS = 4_000;

/** Lookups of one binding (same source, filter and projection) for one purpose can share a request. */
export function groupKey(binding: SourceBindingConfig, purpose: string): string {
  return JSON.stringify([
    binding.connection,
    binding.dataset,
    binding.entity,
    binding.lookup.field,
    [...binding.fields].sort(),
    purpose,
  ]);
}

export function readKey(lookup: SourceLookup): string {
  return `${groupKey(lookup.binding, lookup.purpose)}\u0000${lookup.value}`;
}

/** The lookups of one group in requests of at most `limit` values and a bounded query length. */
export function bulkChunks(members: readonly SourceLookup[], limit: number): SourceLookup[][] {
  const chunks: SourceLookup[][] = [];
  let chunk: SourceLookup[] = [];
  let chars = 0;
  for (const lookup of members) {
    if (
      chunk.length > 0 &&
      (chunk.length >= limit || chars + lookup.value.length + 1 > MAX_BULK_VALUE_CHARS)
    ) {
      chunks.push(chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push(lookup);
    chars += lookup.value.length + 1;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
