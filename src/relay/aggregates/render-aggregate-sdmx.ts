// SDMX-JSON 2.1 data message of an aggregate result (flat: every group_by dimension at observation level).
import type { CellKey } from '../store/column.ts';
import type { FieldPath } from './aggregate-model.ts';
import { carriesStatus, compareCells } from './apply-disclosure.ts';
import { dimensionJson } from './describe-aggregate.ts';
import { type AggregateResponse, resultMetadata } from './result-metadata.ts';

export const SDMX_SCHEMA_URL = 'https://json.sdmx.org/2.1/sdmx-json-data-schema.json';
export const SDMX_CONTENT_TYPE = 'application/vnd.sdmx.data+json;version=2.1';
/** The same for every deployment and dataset. */
export const SDMX_SENDER = { id: 'ambit-relay', name: 'Ambit Relay' } as const;

// SDMX component ids cannot hold `$`, so masking is one observation attribute (the SDMX OBS_STATUS concept)
// applying to every measure, with the code `S` as in native JSON: on a group shown with some measures
// suppressed, the null values say which.
const STATUS_ATTRIBUTE = {
  id: 'OBS_STATUS',
  name: 'Observation status',
  relationship: { observation: {} },
  values: [{ id: 'S', name: 'Suppressed by disclosure control' }],
};
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
      ? [...observation.values, observation.masked || observation.suppressedMeasures ? 0 : null]
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
          ...(masking ? { attributes: { observation: [STATUS_ATTRIBUTE] } } : {}),
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
