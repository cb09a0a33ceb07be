// The `Link: <…>; rel="next"` target of a page: the same path and parameters with the cursor replaced, parameters
// sorted by name, spelled as the WHATWG URL parser and URLSearchParams would spell them.
import type { RouteRequest } from '../../platform/http/route-types.ts';

// Characters URLSearchParams writes back unchanged; a path of them (no dot segment) is its own pathname.
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~/]*$/;
const PLAIN_QUERY = /^[A-Za-z0-9*\-._=&]*$/;
const PLAIN_VALUE = /^[A-Za-z0-9*\-._]*$/;
const DOT_SEGMENT = /(^|\/)\.{1,2}(\/|$)/;

export function nextLink(request: RouteRequest, cursor: string): string {
  return plainNextLink(request.url, cursor) ?? parsedNextLink(request.url, cursor);
}

/** The general case: parse, drop the cursor, sort, serialize. */
export function parsedNextLink(target: string, cursor: string): string {
  const url = new URL(target, 'http://relay.invalid');
  const params = [...url.searchParams.entries()].filter(([name]) => name !== 'cursor');
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  params.push(['cursor', cursor]);
  return `${url.pathname}?${new URLSearchParams(params).toString()}`;
}

/**
 * The usual case without a URL object: a path and parameters made only of characters that parsing and
 * serializing leave as they are, so splitting on `&` and `=` gives what the parser would. Undefined otherwise.
 */
function plainNextLink(target: string, cursor: string): string | undefined {
  const mark = target.indexOf('?');
  const path = mark < 0 ? target : target.slice(0, mark);
  const query = mark < 0 ? '' : target.slice(mark + 1);
  if (!PLAIN_PATH.test(path) || DOT_SEGMENT.test(path) || !PLAIN_QUERY.test(query)) return undefined;
  if (!PLAIN_VALUE.test(cursor)) return undefined;
  const params: [string, string][] = [];
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    const value = equals < 0 ? '' : pair.slice(equals + 1);
    // A second `=` belongs to the value, which URLSearchParams would then escape.
    if (value.includes('=')) return undefined;
    if (name !== 'cursor') params.push([name, value]);
  }
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let link = `${path}?`;
  for (const [name, value] of params) link += `${name}=${value}&`;
  return `${link}cursor=${cursor}`;
}
