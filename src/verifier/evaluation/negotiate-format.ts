// Result format negotiation for evaluations: `Accept` (q-values, wildcards, parameters compared by meaning)
// and the optional body `format`, which `Accept` must then permit.
import { CCCEV_MEDIA_TYPE, CLAIM_RESULT_MEDIA_TYPE } from '../config/schema.ts';
import { verifierProblem } from '../problems.ts';

export type ResultFormat = typeof CLAIM_RESULT_MEDIA_TYPE | typeof CCCEV_MEDIA_TYPE;

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
  readonly order: number;
}

/** Offered formats in preference order: the first is what `*` and a missing `Accept` get. */
const OFFERED: readonly { format: ResultFormat; range: MediaRange }[] = [
  CLAIM_RESULT_MEDIA_TYPE,
  CCCEV_MEDIA_TYPE,
].map((format) => ({ format: format as ResultFormat, range: parseRange(format, 0) as MediaRange }));

export function parseRange(text: string, order: number): MediaRange | undefined {
  const [mediaType = '', ...rawParams] = splitOutsideQuotes(text, ';');
  const match = /^\s*([a-z0-9!#$&^_.+*-]+)\/([a-z0-9!#$&^_.+*-]+)\s*$/i.exec(mediaType);
  if (!match) return undefined;
  const params = new Map<string, string>();
  let q = 1;
  for (const raw of rawParams) {
    const eq = raw.indexOf('=');
    if (eq < 0) continue;
    const name = raw.slice(0, eq).trim().toLowerCase();
    let value = raw.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2)
      value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    if (name === 'q') {
      const weight = Number(value);
      q = Number.isFinite(weight) ? Math.min(1, Math.max(0, weight)) : 0;
    } else {
      params.set(name, value);
    }
  }
  return {
    type: (match[1] as string).toLowerCase(),
    subtype: (match[2] as string).toLowerCase(),
    params,
    q,
    order,
  };
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '"' && text[i - 1] !== '\\') quoted = !quoted;
    if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

/** Whether a range covers an offered type: wildcards match, and every parameter the range names must agree. */
function covers(range: MediaRange, offered: MediaRange): boolean {
  if (range.type !== '*' && range.type !== offered.type) return false;
  if (range.subtype !== '*' && range.subtype !== offered.subtype) return false;
  if (range.type === '*' || range.subtype === '*') return true;
  if (range.params.size !== offered.params.size) return false;
  for (const [name, value] of range.params) {
    if (offered.params.get(name)?.toLowerCase() !== value.toLowerCase()) return false;
  }
  return true;
}

/**
 * How specifically a range names an offered format, or -1 when it does not cover it. `application/json` names the
 * claim-result type (plain JSON is what it is; the verifier contract's strict 406 for it tripped generic clients),
 * less specifically than the vendor type itself and more than `application/*`, so either of those decides when both
 * are sent. It never names CCCEV: JSON-LD is read differently from the JSON it is written in.
 */
function coverage(range: MediaRange, offered: (typeof OFFERED)[number]): number {
  if (covers(range, offered.range)) return specificity(range);
  const plainJson = range.type === 'application' && range.subtype === 'json' && range.params.size === 0;
  return plainJson && offered.format === CLAIM_RESULT_MEDIA_TYPE ? 1.5 : -1;
}

function specificity(range: MediaRange): number {
  if (range.type === '*') return 0;
  if (range.subtype === '*') return 1;
  return 2 + range.params.size;
}

/**
 * The ranges of an Accept header, unparseable ones left out. Every answer is UTF-8, so a range's `charset=utf-8`
 * (as many clients send it) is met and dropped, not compared as a parameter the offered type lacks.
 */
function acceptRanges(accept: string): MediaRange[] {
  return splitOutsideQuotes(accept, ',')
    .map((part, index) => parseRange(part, index))
    .filter((range): range is MediaRange => range !== undefined)
    .map(withoutUtf8Charset);
}

/**
 * Which formats an Accept header permits, best first (no header: all, canonical first). `named`: only those a
 * range names as such, not through a wildcard.
 */
function acceptedFormats(accept: string | undefined, named = false): ResultFormat[] {
  if (accept === undefined || accept.trim() === '') return named ? [] : OFFERED.map((entry) => entry.format);
  const ranges = acceptRanges(accept).filter((range) => !named || specificity(range) >= 2);
  const scored = OFFERED.flatMap((offered, preference) => {
    // The most specific range covering an offered type decides its weight (RFC 9110 §12.5.1).
    const best = ranges
      .filter((range) => coverage(range, offered) >= 0)
      .sort((a, b) => coverage(b, offered) - coverage(a, offered) || a.order - b.order)[0];
    return best && best.q > 0 ? [{ format: offered.format, q: best.q, order: best.order, preference }] : [];
  });
  // Equal weights: the client's order, as the verifier contract reads Accept (the first entry naming a format wins);
  // one range covering several (`*/*`): the offered order.
  return scored
    .sort((a, b) => b.q - a.q || a.order - b.order || a.preference - b.preference)
    .map((entry) => entry.format);
}

/** The negotiated result format, or 406 `claim.format_not_supported`. */
export function negotiateFormat(accept: string | undefined, bodyFormat: string | undefined): ResultFormat {
  return acceptableFormats(accept, bodyFormat)[0] as ResultFormat;
}

/**
 * The formats the request permits, best first, never none (406 `claim.format_not_supported` instead): the body
 * format alone when it names one (which `Accept` must permit), else those `Accept` permits.
 */
export function acceptableFormats(
  accept: string | undefined,
  bodyFormat: string | undefined,
): ResultFormat[] {
  const accepted = acceptedFormats(accept);
  if (bodyFormat !== undefined) {
    // Read as an Accept range is: a `charset=utf-8` is met here too, and the cccev `profile` compared by meaning.
    const parsed = parseRange(bodyFormat, 0);
    const wanted = parsed && withoutUtf8Charset(parsed);
    const match = wanted && OFFERED.find((offered) => coverage(wanted, offered) > 1);
    if (!match)
      throw verifierProblem(
        'claim.format_not_supported',
        'The body `format` is not a result format this route offers.',
      );
    if (!accepted.includes(match.format)) {
      throw verifierProblem(
        'claim.format_not_supported',
        'The `Accept` header does not permit the body `format`.',
      );
    }
    return [match.format];
  }
  if (accepted.length === 0) {
    throw verifierProblem(
      'claim.format_not_supported',
      `Acceptable formats: ${CLAIM_RESULT_MEDIA_TYPE}, ${CCCEV_MEDIA_TYPE}.`,
    );
  }
  return accepted;
}

/**
 * The formats a batch's items may be made in, best first, never none (406 instead). The batch answers with a JSON
 * envelope, but `Accept` chooses the items' format as it does on /v1/evaluations (verifier contract §2.7 negotiates
 * both alike), so a client sending the Accept it evaluates with is answered; one that excludes JSON and names no
 * result format is refused. A body `format` must be permitted by `Accept`, as a format or as JSON.
 */
export function batchFormats(accept: string | undefined, bodyFormat: string | undefined): ResultFormat[] {
  const json = acceptsMediaType(accept, 'application/json');
  if (bodyFormat !== undefined) {
    const format = negotiateFormat(undefined, bodyFormat);
    if (json || acceptedFormats(accept).includes(format)) return [format];
    throw verifierProblem(
      'claim.format_not_supported',
      'The `Accept` header permits neither application/json nor the body `format`.',
    );
  }
  if (!json && acceptedFormats(accept, true).length === 0) {
    throw verifierProblem('claim.format_not_supported', 'Batch results are application/json.');
  }
  const accepted = acceptedFormats(accept);
  return accepted.length > 0 ? accepted : OFFERED.map((entry) => entry.format);
}

/** Whether an Accept header (absent: yes) permits one media type, such as `application/json` for envelopes. */
export function acceptsMediaType(accept: string | undefined, mediaType: string): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  const offered = parseRange(mediaType, 0) as MediaRange;
  const best = acceptRanges(accept)
    .filter((range) => covers(range, offered))
    .sort((a, b) => specificity(b) - specificity(a) || a.order - b.order)[0];
  return best !== undefined && best.q > 0;
}

/** The range without a `charset=utf-8` parameter (any case, quoted or not), which a UTF-8 answer satisfies. */
function withoutUtf8Charset(range: MediaRange): MediaRange {
  if (range.params.get('charset')?.toLowerCase() !== 'utf-8') return range;
  const params = new Map(range.params);
  params.delete('charset');
  return { ...range, params };
}
