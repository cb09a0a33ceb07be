// Answers to repeated collection reads, per data generation. A client polling the same URL (or revalidating it
// with If-None-Match) gets the stored ETag and body without the query being parsed, run and rendered again.
// Only reads whose answer depends on nothing but the URL, the purpose and the credential are stored: no cursor
// (cursors are checked on every use) and no expansion (it needs the caller's scopes on other entities).
import type { Generation } from '../store/generation.ts';

export interface CachedPage {
  readonly etag: string;
  /** Encoded once, so a repeated answer is written without converting the text again. */
  readonly body: Buffer;
  readonly rowCount: number;
  readonly link: string | undefined;
}

const MAX_PAGES_PER_GENERATION = 4096;
/** Bytes of bodies and keys stored per generation: pages of `max_limit` wide rows must not add up to gigabytes. */
export const MAX_CACHED_BYTES = 64 * 1024 * 1024;
/** A larger page is not stored: one read would otherwise push most others out. */
const MAX_PAGE_BYTES = MAX_CACHED_BYTES / 16;

interface StoredPages {
  readonly pages: Map<string, CachedPage>;
  bytes: number;
}

const pages = new WeakMap<Generation, StoredPages>();

/**
 * The cache key of a read, or undefined when its answer must not be stored. The whole request target, not only its
 * query: the next link repeats the path as the client spelled it (`social%5Fprotection` names the same dataset).
 */
export function pageKey(
  entityKey: string,
  url: string,
  params: Readonly<Record<string, unknown>>,
  purpose: string | undefined,
  credentialTag: string,
): string | undefined {
  if (params.cursor !== undefined || params.expand !== undefined) return undefined;
  return `${entityKey}\u0000${url}\u0000${purpose ?? ''}\u0000${credentialTag}`;
}

export function cachedPage(generation: Generation, key: string): CachedPage | undefined {
  return pages.get(generation)?.pages.get(key);
}

export function rememberPage(generation: Generation, key: string, page: CachedPage): void {
  // Keys are UTF-16 in memory; a link is about as long as the key.
  const size = page.body.length + 2 * key.length + 2 * (page.link?.length ?? 0);
  if (size > MAX_PAGE_BYTES) return;
  let stored = pages.get(generation);
  if (stored === undefined) {
    stored = { pages: new Map(), bytes: 0 };
    pages.set(generation, stored);
  }
  if (stored.pages.has(key)) return;
  if (stored.pages.size >= MAX_PAGES_PER_GENERATION || stored.bytes + size > MAX_CACHED_BYTES) {
    stored.pages.clear();
    stored.bytes = 0;
  }
  stored.pages.set(key, page);
  stored.bytes += size;
}
