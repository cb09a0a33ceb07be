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

/**
 * Per generation (a reload drops them all): at most this many answers, and this many bytes of bodies, the least
 * recently used dropped first. Counting answers alone is not a bound: one answer of 10,000 groups and 20 measures
 * is megabytes, and a caller varying `max_rows` would have 128 of them kept until the data changes.
 */
export const ANSWER_CACHE_LIMITS = { answers: 128, bytes: 64 * 1024 * 1024 } as const;

interface AnswerCache {
  readonly answers: Map<string, CachedAnswer>;
  bytes: number;
}

const answers = new WeakMap<Generation, AnswerCache>();

/** The body's size: a string's length (its bytes for ASCII text, which JSON and CSV answers mostly are). */
function sizeOf(answer: CachedAnswer): number {
  return typeof answer.body === 'string' ? answer.body.length : answer.body.byteLength;
}

export function cachedAnswer(generation: Generation, etag: string): CachedAnswer | undefined {
  const cache = answers.get(generation)?.answers;
  const answer = cache?.get(etag);
  if (cache && answer) {
    // Re-inserted so the map's order is least recently used first.
    cache.delete(etag);
    cache.set(etag, answer);
  }
  return answer;
}

export function rememberAnswer(generation: Generation, etag: string, answer: CachedAnswer): void {
  const size = sizeOf(answer);
  // An answer beyond the whole budget is served, not kept: keeping it would drop every other.
  if (size > ANSWER_CACHE_LIMITS.bytes) return;
  let cache = answers.get(generation);
  if (!cache) {
    cache = { answers: new Map(), bytes: 0 };
    answers.set(generation, cache);
  }
  const earlier = cache.answers.get(etag);
  if (earlier) {
    cache.answers.delete(etag);
    cache.bytes -= sizeOf(earlier);
  }
  cache.answers.set(etag, answer);
  cache.bytes += size;
  while (cache.answers.size > ANSWER_CACHE_LIMITS.answers || cache.bytes > ANSWER_CACHE_LIMITS.bytes) {
    const [oldest, dropped] = cache.answers.entries().next().value as [string, CachedAnswer];
    cache.answers.delete(oldest);
    cache.bytes -= sizeOf(dropped);
  }
}

/** What a GET request resolved to: everything after authorisation that depends only on its URL and Accept. */
export interface KnownRequest {
  readonly query: AggregateQuery;
  readonly format: AggregateFormat;
  readonly etag: string;
  /** The audit form of the query (`path.op` names). */
  readonly auditQuery: Readonly<Record<string, string>>;
}

/**
 * Per generation: at most this many requests, and this many characters of keys. A key holds the query string (at most
 * 8 KiB) and the Accept header (up to the 64 KiB all headers may take): counted alone, 1,024 requests with long
 * Accept headers would hold some 70 MiB until the data changes.
 */
export const REQUEST_CACHE_LIMITS = { requests: 1024, keyChars: 4 * 1024 * 1024 } as const;

interface RequestCache {
  readonly requests: Map<string, KnownRequest>;
  chars: number;
}

const requests = new WeakMap<Generation, RequestCache>();

export function knownRequest(generation: Generation, key: string): KnownRequest | undefined {
  return requests.get(generation)?.requests.get(key);
}

export function rememberRequest(generation: Generation, key: string, known: KnownRequest): void {
  let cache = requests.get(generation);
  if (!cache) {
    cache = { requests: new Map(), chars: 0 };
    requests.set(generation, cache);
  }
  if (cache.requests.has(key)) return;
  if (
    cache.requests.size >= REQUEST_CACHE_LIMITS.requests ||
    cache.chars + key.length > REQUEST_CACHE_LIMITS.keyChars
  ) {
    cache.requests.clear();
    cache.chars = 0;
  }
  cache.requests.set(key, known);
  cache.chars += key.length;
}
