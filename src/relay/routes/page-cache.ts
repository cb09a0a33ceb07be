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
const pages = new WeakMap<Generation, Map<string, CachedPage>>();

/** The cache key of a read, or undefined when its answer must not be stored. */
export function pageKey(
  entityKey: string,
  url: string,
  params: Readonly<Record<string, unknown>>,
  purpose: string | undefined,
  credentialTag: string,
): string | undefined {
  if (params.cursor !== undefined || params.expand !== undefined) return undefined;
  const query = url.indexOf('?');
  return `${entityKey}\u0000${query < 0 ? '' : url.slice(query + 1)}\u0000${purpose ?? ''}\u0000${credentialTag}`;
}

export function cachedPage(generation: Generation, key: string): CachedPage | undefined {
  return pages.get(generation)?.get(key);
}

export function rememberPage(generation: Generation, key: string, page: CachedPage): void {
  let stored = pages.get(generation);
  if (stored === undefined) {
    stored = new Map();
    pages.set(generation, stored);
  }
  if (stored.size >= MAX_PAGES_PER_GENERATION) stored.clear();
  stored.set(key, page);
}
