// The ETag of an aggregate answer: everything the rendered body is a function of, the version of its format's
// shape included, so that a relay rendering the same query otherwise never answers an older tag with 304. The one
// exception is the data time the answer states (a file's modification time, a snapshot's load time): it differs
// between processes reading equal data (copies of a file on two machines, a worker loading after a `touch`), so it
// is left out and the tag is weak: every process tags the same data alike and answers another's tag 304.
import { weakEtag } from '../../platform/http/etag.ts';
import type { CatalogAggregate, FieldPath } from './aggregate-model.ts';
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
  readonly query: unknown;
  readonly format: AggregateFormat;
}

export function answerEtag(
  inputs: AnswerTagInputs,
  formatVersions: Readonly<Record<AggregateFormat, number>> = ANSWER_FORMAT_VERSIONS,
): string {
  const { method, datasetId, aggregateId, definition, versions, query, format } = inputs;
  const parts = ['aggregate', method, datasetId, aggregateId, definition, versions, query, format];
  return weakEtag([...parts, formatVersions[format]]);
}

/**
 * The private columns behind every field path an aggregate reads, and the column holding the key of each
 * relationship it follows. The declaration the tag covers names entity fields; a deployment serving one from
 * another column (same files, same aggregate) groups, sums and filters other values.
 */
export function columnsRead(aggregate: CatalogAggregate): [string, string, string | null][] {
  const paths: FieldPath[] = [
    ...[...aggregate.dimensions.values()].map((dimension) => dimension.path),
    ...[...aggregate.measures.values()].flatMap((measure) => (measure.column ? [measure.column] : [])),
    ...[...aggregate.allowedFilters.values()].map((rule) => rule.path),
    ...(aggregate.temporal ? [aggregate.temporal] : []),
  ];
  return paths.map((path) => [
    path.path,
    path.field.column,
    path.via ? (aggregate.source.fieldByName.get(path.via.foreignKey)?.column ?? null) : null,
  ]);
}
