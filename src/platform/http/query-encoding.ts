// The query string's percent-encoding. The query parsers (Fastify's and the fast lane's router) keep an escape
// that does not decode as literal text, so `name=%C3` would filter on the three characters `%C3` while links built
// from the parsed query decode it otherwise: such a request is refused before any route sees it.

/** Whether every `%` of the target's query starts an escape and the escapes decode as UTF-8. */
export function isWellFormedQuery(url: string): boolean {
  const start = url.indexOf('?');
  if (start < 0 || url.indexOf('%', start) < 0) return true;
  try {
    decodeURIComponent(url.slice(start + 1));
    return true;
  } catch {
    return false;
  }
}
