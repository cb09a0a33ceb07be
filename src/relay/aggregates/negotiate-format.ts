// Chooses the aggregate output format: `?f=` over the body `format` over `Accept` (q-values honoured).

import { quoted } from '../../platform/http/quote-client-text.ts';
import { relayProblem } from '../problems.ts';

export const AGGREGATE_FORMATS = ['json', 'csv', 'sdmx-json'] as const;
export type AggregateFormat = (typeof AGGREGATE_FORMATS)[number];

export const SDMX_MEDIA_TYPE = 'application/vnd.sdmx.data+json';
/** SDMX-JSON 2.1 (`version=2.1`; `2.1.0` is accepted as the same format version). */
const SDMX_VERSIONS = new Set(['2.1', '2.1.0']);

export interface FormatRequest {
  /** The `f` query parameter. */
  readonly f: string | undefined;
  /** The POST body `format` member. */
  readonly bodyFormat: string | undefined;
  readonly accept: string | undefined;
}

export function negotiateFormat(request: FormatRequest): AggregateFormat {
  const explicit = request.f ?? request.bodyFormat;
  if (explicit !== undefined) {
    if ((AGGREGATE_FORMATS as readonly string[]).includes(explicit)) return explicit as AggregateFormat;
    throw relayProblem(
      'aggregate.format_unsupported',
      `format ${quoted(explicit)} is not one of ${AGGREGATE_FORMATS.join(', ')}`,
    );
  }
  const accept = request.accept?.trim();
  if (accept === undefined || accept === '') return 'json';
  const chosen = bestOffer(accept);
  if (chosen === undefined) {
    throw relayProblem(
      'aggregate.format_unsupported',
      `none of the Accept media types is served: use application/json, text/csv or ${SDMX_MEDIA_TYPE};version=2.1`,
    );
  }
  return chosen;
}

interface Range {
  readonly type: string;
  readonly version: string | undefined;
  readonly q: number;
  readonly order: number;
}

/** Server preference when a wildcard leaves a tie. */
const PREFERENCE: readonly AggregateFormat[] = ['json', 'sdmx-json', 'csv'];

/** For each format the ranges that match it, most specific first (RFC 9110 §12.5.1). */
const MATCHING: Record<AggregateFormat, readonly string[][]> = {
  json: [['application/json'], ['application/*'], ['*/*']],
  'sdmx-json': [[SDMX_MEDIA_TYPE], ['application/*'], ['*/*']],
  csv: [['text/csv'], ['text/*'], ['*/*']],
};

/**
 * Each format takes the q of the most specific range matching it (so `application/json;q=0` excludes JSON
 * even under a wildcard); the highest q wins, then the more specific match, then the earlier range, then
 * json over sdmx-json over csv.
 */
function bestOffer(accept: string): AggregateFormat | undefined {
  const ranges = accept.split(',').map(rangeOf);
  let best: { format: AggregateFormat; q: number; specificity: number; order: number } | undefined;
  for (const format of PREFERENCE) {
    for (const [level, types] of MATCHING[format].entries()) {
      const matches = ranges.filter(
        (range) => types.includes(range.type) && (range.type !== SDMX_MEDIA_TYPE || sdmxVersionOk(range)),
      );
      if (matches.length === 0) continue;
      const top = matches.reduce((a, b) => (b.q > a.q ? b : a));
      const candidate = { format, q: top.q, specificity: 2 - level, order: top.order };
      if (
        top.q > 0 &&
        (!best ||
          candidate.q > best.q ||
          (candidate.q === best.q &&
            (candidate.specificity > best.specificity ||
              (candidate.specificity === best.specificity && candidate.order < best.order))))
      ) {
        best = candidate;
      }
      break;
    }
  }
  return best?.format;
}

const sdmxVersionOk = (range: Range) => range.version === undefined || SDMX_VERSIONS.has(range.version);

function rangeOf(part: string, order: number): Range {
  const [rawType = '', ...rawParams] = part.split(';');
  const params = new Map<string, string>();
  for (const param of rawParams) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    const value = param.slice(eq + 1).trim();
    params.set(param.slice(0, eq).trim().toLowerCase(), value.replace(/^"(.*)"$/, '$1'));
  }
  const qText = params.get('q');
  // A malformed q-value is treated as 0: the range is not acceptable.
  const q = qText === undefined ? 1 : /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(qText) ? Number(qText) : 0;
  return { type: rawType.trim().toLowerCase(), version: params.get('version'), q, order };
}
