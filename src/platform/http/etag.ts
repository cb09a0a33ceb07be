// Strong content ETags and If-None-Match evaluation (a list, `*`, and weak `W/` forms all match).
import { createHash, hash } from 'node:crypto';
import type { RouteRequest } from './route-types.ts';

export function strongEtag(parts: readonly unknown[]): string {
  return `"sha256:${hash('sha256', JSON.stringify(parts))}"`;
}

/**
 * A weak ETag (RFC 9110 §8.8.1): answers under it are equivalent, not byte for byte the same (a time stated in the
 * body may differ between processes). If-None-Match compares weakly, so it still answers 304.
 */
export function weakEtag(parts: readonly unknown[]): string {
  return `W/${strongEtag(parts)}`;
}

export function etagOfBody(prefix: string, body: string): string {
  return `"sha256:${createHash('sha256').update(prefix).update(body).digest('hex')}"`;
}

/**
 * If-None-Match compares weakly (RFC 9110 §13.1.2): a `W/` on either tag is ignored. `*` matches only as the whole
 * field: inside a list it is no tag, and a client sending one has nothing a 304 could refer it to.
 */
export function isNotModified(request: RouteRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (header === undefined) return false;
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  const opaque = opaqueTag(etag);
  for (const raw of header.split(',')) {
    if (opaqueTag(raw.trim()) === opaque) return true;
  }
  return false;
}

const opaqueTag = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
