// SDMX-JSON 2.1 data message of an aggregate result (flat: every group_by dimension at observation level).
import type { CellKey } from '../store/column.ts';
import type { AggregateMeasure, FieldPath } from './aggregate-model.ts';
import { carriesStatus, compareCells } from './apply-disclosure.ts';
import { dimensionJson } from './describe-aggregate.ts';
import { type AggregateResponse, resultMetadata } from './result-metadata.ts';

export const SDMX_SCHEMA_URL = 'https://json.sdmx.org/2.1/sdmx-json-data-schema.json';
export const SDMX_CONTENT_TYPE = 'application/vnd.sdmx.data+json;version=2.1';
/**
 * The version of this message's shape, part of the answer's ETag: raise it whenever the same query over the same
 * data would be rendered otherwise, so that a cache holding a tag of the old shape is sent the new message instead
 * of a 304. History: 1, one OBS_STATUS for all measures (`S`), in tags that carried no version; 2, after it one
 * status attribute per measure, `S` suppressed or `M` missing.
 */
export const SDMX_ANSWER_VERSION = 2;
/** The same for every deployment and dataset. */
export const SDMX_SENDER = { id: 'ambit-relay', name: 'Ambit Relay' } as const;

// SDMX component ids cannot hold `$`. `OBS_STATUS` applies to the whole observation, `S` when any of its measures is
// suppressed (the one status attribute clients of the reference contract read, kept first). After it, the
// `<measure>$status` of native JSON is one attribute per measure, of the same SDMX concept, tied to its measure by
// the `measures` relationship; as in JSON and CSV it tells a null value apart: `S` suppressed by disclosure control,
// `M` missing (the CL_OBS_STATUS code for a value that cannot exist: no row of the group gave one, or the result
// leaves the double range).
const STATUS_ATTRIBUTE = {
  id: 'OBS_STATUS',
  name: 'Observation status',
  relationship: { observation: {} },
  values: [{ id: 'S', name: 'Suppressed by disclosure control' }],
};
const STATUS_VALUES = [
  { id: 'S', name: 'Suppressed by disclosure control' },
  { id: 'M', name: 'Missing value: no row of the group gave one, or it is beyond the double range' },
];
const SUPPRESSED = 0;
const MISSING = 1;

function statusAttribute(measure: AggregateMeasure) {
  return {
    id: `OBS_STATUS_${measure.id}`,
    name: `Observation status of ${measure.label}`,
    relationship: { observation: {}, measures: [measure.id] },
    values: STATUS_VALUES,
  };
}

/** A query without group_by yields one grand total, still keyed by one dimension as SDMX requires. */
const TOTAL_DIMENSION = { id: 'TOTAL', name: 'Total', values: [{ id: '_T', name: 'Total' }] };
const UNKNOWN_VALUE = { id: '_U', name: 'Unknown' };

export function renderAggregateSdmx(response: AggregateResponse): string {
  const { aggregate, query, result, links } = response;
  const metadata = resultMetadata(response);
  const masking = carriesStatus(aggregate, query);
  const dimensionValues = query.groupBy.map((dimension, i) =>
    sortedValues(
      result.observations.map((o) => o.keys[i] ?? null),
      dimension.path,
    ),
  );
  const observationDimensions =
    query.groupBy.length === 0
      ? [{ ...TOTAL_DIMENSION, keyPosition: 0 }]
      : query.groupBy.map((dimension, i) => {
          const values = (dimensionValues[i] as SortedValues).entries;
          return {
            id: dimension.id,
            name: dimension.label,
            ...(dimension.description ? { description: dimension.description } : {}),
            keyPosition: i,
            // An empty answer has no values, and SDMX lists must not be empty.
            ...(values.length > 0 ? { values } : {}),
          };
        });
  const observations: Record<string, (number | null)[]> = {};
  for (const observation of result.observations) {
    const key =
      query.groupBy.length === 0
        ? '0'
        : observation.keys.map((value, i) => (dimensionValues[i] as SortedValues).indexOf(value)).join(':');
    observations[key] = masking
      ? [
          ...observation.values,
          observation.masked || observation.suppressedMeasures ? SUPPRESSED : null,
          ...observation.values.map((value, m) =>
            observation.masked || observation.suppressedMeasures?.[m]
              ? SUPPRESSED
              : value === null
                ? MISSING
                : null,
          ),
        ]
      : [...observation.values];
  }
  return JSON.stringify({
    $schema: SDMX_SCHEMA_URL,
    meta: {
      schema: SDMX_SCHEMA_URL,
      id: `${aggregate.id}-${response.digest}`,
      prepared: metadata.freshness.computed_at,
      test: false,
      sender: SDMX_SENDER,
      'x-completeness': metadata.completeness,
      'x-disclosureControl': metadata.disclosure_control,
      'x-asOf': metadata.freshness.as_of,
    },
    data: {
      structures: [
        {
          name: aggregate.title,
          ...(aggregate.description ? { description: aggregate.description } : {}),
          dataSets: [0],
          links: [
            { href: links.structure, rel: 'describedby' },
            { href: links.sdmx, rel: 'self' },
          ],
          dimensions: { dataSet: [], series: [], observation: observationDimensions },
          measures: {
            observation: query.measures.map((measure) => ({
              id: measure.id,
              name: measure.label,
              ...(measure.description ? { description: measure.description } : {}),
              'x-unitMeasure': measure.unitMeasure ?? null,
              'x-unitMultiplier': measure.unitMultiplier ?? null,
              'x-decimals': measure.decimals ?? null,
            })),
          },
          ...(masking
            ? { attributes: { observation: [STATUS_ATTRIBUTE, ...query.measures.map(statusAttribute)] } }
            : {}),
        },
      ],
      dataSets: [{ structure: 0, action: 'Information', observations }],
    },
  });
}

interface SortedValues {
  readonly entries: readonly object[];
  indexOf(value: CellKey | null): number;
}

/** The distinct values of one dimension in the answer, ascending (null last), as SDMX value entries. */
function sortedValues(values: readonly (CellKey | null)[], path: FieldPath): SortedValues {
  const distinct = [...new Set(values)].sort(compareCells);
  const index = new Map(distinct.map((value, i) => [value, i]));
  return {
    entries: distinct.map((value) =>
      value === null ? UNKNOWN_VALUE : { value: dimensionJson(path, value) as string | number | boolean },
    ),
    indexOf: (value) => index.get(value) as number,
  };
}
