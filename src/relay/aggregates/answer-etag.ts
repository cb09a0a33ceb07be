// The ETag of an aggregate answer: everything the rendered body is a function of, the version of its format's
// shape included, so that a relay rendering the same query otherwise never answers an older tag with 304.
import { strongEtag, weakEtag } from '../../platform/http/etag.ts';
import type { AggregateFormat } from './negotiate-format.ts';
import { CSV_ANSWER_VERSION } from './render-aggregate-csv.ts';
import { JSON_ANSWER_VERSION } from './render-aggregate-json.ts';
import { SDMX_ANSWER_VERSION } from './render-aggregate-sdmx.ts';

/** One version per output format: raising one leaves the tags of the other formats as they were. */
export const ANSWER_FORMAT_VERSIONS: Readonly<Record<AggregateFormat, number>> = Object.freeze({
  json: JSON_ANSWER_VERSION,
  csv: CSV_ANSWER_VERSION,
  'sdmx-json': SDMX_ANSWER_VERSION,
});

export interface AnswerTagInputs {
  readonly method: 'GET' | 'POST';
  readonly datasetId: string;
  readonly aggregateId: string;
  /** The digest of the aggregate's declaration. */
  readonly definition: string;
  /** The data version of every table read. */
  readonly versions: readonly unknown[];
  /** The data time the body states, or null where it is a load time (the tag is then weak and leaves it out). */
  readonly dataTime: number | null;
  readonly query: unknown;
  readonly format: AggregateFormat;
}

export function answerEtag(
  inputs: AnswerTagInputs,
  formatVersions: Readonly<Record<AggregateFormat, number>> = ANSWER_FORMAT_VERSIONS,
): string {
  const { method, datasetId, aggregateId, definition, versions, dataTime, query, format } = inputs;
  const parts = ['aggregate', method, datasetId, aggregateId, definition, versions, dataTime, query, format];
  return (dataTime === null ? weakEtag : strongEtag)([...parts, formatVersions[format]]);
}
