// Which lookups may share one `.in` request, and how a group is cut into requests the relay accepts.
import type { SourceBindingConfig } from '../config/schema.ts';
import { formEncode } from './records-path.ts';
import type { SourceLookup } from './source-reader.ts';

/**
 * Keeps an `.in` list well under the relay's 8 KiB request-target limit. Counted as sent, form-encoded: `€` takes
 * 9 characters (`%E2%82%AC`), an emoji 12, and each separating comma 3 (`%2C`).
 */
const MAX_BULK_QUERY_CHARS = 4_000;
const SEPARATOR_CHARS = formEncode(',').length;

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
    const size = formEncode(lookup.value).length + SEPARATOR_CHARS;
    if (chunk.length > 0 && (chunk.length >= limit || chars + size > MAX_BULK_QUERY_CHARS)) {
      chunks.push(chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push(lookup);
    chars += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** Two halves, the first the larger by one at most; a list of one value has an empty second half. */
export function halvesOf(values: readonly string[]): (readonly string[])[] {
  const middle = Math.ceil(values.length / 2);
  return [values.slice(0, middle), values.slice(middle)];
}
