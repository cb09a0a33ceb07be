// Whether an `Accept` header permits the one media type a route sends (RFC 9110 §12.5.1). The most specific range
// covering it decides by its q-value, so `application/ld+json;q=0` refuses JSON-LD even beside `*/*`. A `+json` type
// (RFC 6839) is JSON, so `application/json` covers it too, less specifically than its own name. Parameters other
// than `q` are not compared: every document has one form.

interface Range {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/** True when `accept` is absent or blank, or its best range covering `mediaType` has a q above 0. */
export function acceptsMediaType(accept: string | undefined, mediaType: string): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  const [type = '', subtype = ''] = (mediaType.split(';')[0] as string).trim().toLowerCase().split('/');
  let best: { specificity: number; q: number } | undefined;
  for (const part of accept.split(',')) {
    const range = rangeOf(part);
    if (range === undefined) continue;
    const specificity = coverage(range, type, subtype);
    if (specificity < 0) continue;
    if (!best || specificity > best.specificity || (specificity === best.specificity && range.q > best.q)) {
      best = { specificity, q: range.q };
    }
  }
  return best !== undefined && best.q > 0;
}

/** How specifically `range` names `type/subtype`: 3 by name, 2 as JSON, 1 by type, 0 by the full wildcard; -1 not at all. */
function coverage(range: Range, type: string, subtype: string): number {
  if (range.type === '*') return range.subtype === '*' ? 0 : -1;
  if (range.type !== type) return -1;
  if (range.subtype === subtype) return 3;
  if (range.type === 'application' && range.subtype === 'json' && subtype.endsWith('+json')) return 2;
  return range.subtype === '*' ? 1 : -1;
}

/** One media range; undefined when it is not `type/subtype`. A malformed q-value is 0 (RFC 9110 §12.4.2). */
function rangeOf(part: string): Range | undefined {
  const [name = '', ...params] = part.split(';');
  const slash = name.indexOf('/');
  const type = name.slice(0, slash).trim().toLowerCase();
  const subtype = name
    .slice(slash + 1)
    .trim()
    .toLowerCase();
  if (slash < 0 || type === '' || subtype === '') return undefined;
  let q = 1;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
    const text = param.slice(eq + 1).trim();
    q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text) ? Number(text) : 0;
    break;
  }
  return { type, subtype, q };
}
