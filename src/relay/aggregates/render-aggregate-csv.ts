// CSV aggregate result: one row per observation, exact id headers, metadata in response headers.
import { stringify } from 'csv-stringify/sync';
import { carriesStatus } from './apply-disclosure.ts';
import { dimensionJson } from './describe-aggregate.ts';
import { STATUS_SUPPRESSED } from './render-aggregate-json.ts';
import { type AggregateResponse, resultMetadata } from './result-metadata.ts';

export const CSV_MEDIA_TYPE = 'text/csv; charset=utf-8; header=present';

/**
 * The version of this body's shape (columns, cell spelling, the metadata headers), part of the answer's ETag: raise
 * it whenever the same query over the same data would be rendered otherwise, so that a cache holding a tag of the
 * old shape is sent the new body instead of a 304. History: 1, the shape when versions entered the tag.
 */
export const CSV_ANSWER_VERSION = 1;

/** The response headers carrying what a CSV body cannot (a listed CORS origin may read them: app.ts). */
export const CSV_RESULT_HEADERS = [
  'x-ambit-disclosure-control',
  'x-ambit-freshness',
  'x-ambit-completeness',
] as const;

export interface RenderedCsv {
  readonly body: string;
  /** Disclosure, freshness and completeness, which a CSV body cannot carry. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Columns: the group_by dimension ids, the measure ids, then `<measure>$status` for each measure when an answer
 * to the query can suppress a value (`carriesStatus`: present whatever this answer holds, so the header is stable
 * per query).
 */
export function renderAggregateCsv(response: AggregateResponse): RenderedCsv {
  const { query, result, aggregate } = response;
  const masking = carriesStatus(aggregate, query);
  const columns = [
    ...query.groupBy.map((dimension) => dimension.id),
    ...query.measures.map((measure) => measure.id),
    ...(masking ? query.measures.map((measure) => `${measure.id}$status`) : []),
  ];
  const records = result.observations.map((observation) => [
    ...query.groupBy.map((dimension, i) =>
      neutralise(dimensionJson(dimension.path, observation.keys[i] ?? null)),
    ),
    ...observation.values,
    ...(masking
      ? query.measures.map((_, m) =>
          observation.masked || observation.suppressedMeasures?.[m] ? STATUS_SUPPRESSED : '',
        )
      : []),
  ]);
  const body = stringify(records, {
    header: true,
    columns,
    record_delimiter: 'windows',
    // Also a lone CR or LF: readers split records at either, and the text after it would start an unneutralised cell.
    quote_record_delimiter: true,
    cast: { boolean: (value) => String(value) },
  });
  const metadata = resultMetadata(response);
  return {
    body,
    headers: {
      [CSV_RESULT_HEADERS[0]]: JSON.stringify(metadata.disclosure_control),
      [CSV_RESULT_HEADERS[1]]: JSON.stringify(metadata.freshness),
      [CSV_RESULT_HEADERS[2]]: JSON.stringify(metadata.completeness),
    },
  };
}

/**
 * Text a spreadsheet would run as a formula is prefixed with `'` (numbers are left alone). So is text that already
 * starts with `'`: `'=1` and `=1` stay apart, and a reader gets every value back by dropping the first `'` of any
 * cell starting with one (a number, boolean, status code or header never does).
 */
export function neutralise<T>(value: T): T | string {
  return typeof value === 'string' && /^[=+\-@\t\r']/.test(value) ? `'${value}` : value;
}
