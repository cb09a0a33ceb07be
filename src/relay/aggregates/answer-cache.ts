// Rendered aggregate answers per data generation, keyed by ETag: a repeated query is served as computed. And the
// parsed form of GET requests seen before, keyed by their query string and Accept header: a client polling or
// revalidating the same URL skips parsing, negotiation and the ETag computation.
import type { Generation } from '../store/generation.ts';
import type { AggregateFormat } from './negotiate-format.ts';
import type { AggregateQuery } from './parse-aggregate-request.ts';

export interface CachedAnswer {
  readonly body: string | Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly rowCount: number;
  readonly suppressedGroups: number;
}

/** Per generation; the oldest answer is dropped beyond this (a reload drops them all). */
const MAX_ANSWERS = 128;
const answers = new WeakMap<Generation, Map<string, CachedAnswer>>();

export function cachedAnswer(generation: Generation, etag: string): CachedAnswer | undefined {
  const cache = answers.get(generation);
  const answer = cache?.get(etag);
  if (cache && answer) {
    // Re-inserted so the map's order is least recently used first.
    cache.delete(etag);
    cache.set(etag, answer);
  }
  return answer;
}

export function rememberAnswer(generation: Generation, etag: string, answer: CachedAnswer): void {
  let cache = answers.get(generation);
  if (!cache) {
    cache = new Map();
    answers.set(generation, cache);
  }
  cache.set(etag, answer);
  if (cache.size > MAX_ANSWERS) cache.delete(cache.keys().next().value as string);
}

/** What a GET request resolved to: everything after authorisation that depends only on its URL and Accept. */
export interface KnownRequest {
  readonly query: AggregateQuery;
  readonly format: AggregateFormat;
  readonly etag: string;
  /** The audit form of the query (`path.op` names). */
  readonly auditQuery: Readonly<Record<string, string>>;
}

const MAX_REQUESTS = 1024;
const requests = new WeakMap<Generation, Map<string, KnownRequest>>();

export function knownRequest(generation: Generation, key: string): KnownRequest | undefined {
  return requests.get(generation)?.get(key);
}

export function rememberRequest(generation: Generation, key: string, known: KnownRequest): void {
  let cache = requests.get(generation);
  if (!cache) {
    cache = new Map();
    requests.set(generation, cache);
  }
  if (cache.size >= MAX_REQUESTS) cache.clear();
  cache.set(key, known);
}
