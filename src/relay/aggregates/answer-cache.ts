// Rendered aggregate answers per data generation, keyed by ETag: a repeated query is served as computed.
import type { Generation } from '../store/generation.ts';

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
