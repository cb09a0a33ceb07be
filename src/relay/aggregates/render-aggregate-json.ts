// Native JSON aggregate result: observations keyed by dimension and measure id, with structure and metadata.
import { describeDimension, describeMeasure, dimensionJson } from './describe-aggregate.ts';
import type { AggregateResponse } from './result-metadata.ts';
import { resultMetadata } from './result-metadata.ts';

export const STATUS_SUPPRESSED = 'S';

/**
 * The version of this body's shape, part of the answer's ETag: raise it whenever the same query over the same data
 * would be rendered otherwise (a member added, renamed or spelled differently), so that a cache holding a tag of
 * the old shape is sent the new body instead of a 304. History: 1, the shape when versions entered the tag.
 */
export const JSON_ANSWER_VERSION = 1;

export function renderAggregateJson(response: AggregateResponse): string {
  const { aggregate, query, result, links } = response;
  const observations = result.observations.map((observation) => {
    const object: Record<string, unknown> = {};
    query.groupBy.forEach((dimension, i) => {
      object[dimension.id] = dimensionJson(dimension.path, observation.keys[i] ?? null);
    });
    query.measures.forEach((measure, m) => {
      object[measure.id] = observation.values[m] ?? null;
    });
    // A masked group keeps its keys; each measure says why it is null. A shown group names its suppressed measures.
    const suppressed = observation.suppressedMeasures;
    if (observation.masked || suppressed !== undefined) {
      object.attributes = Object.fromEntries(
        query.measures
          .filter((_, m) => observation.masked || suppressed?.[m] === true)
          .map((measure) => [`${measure.id}$status`, STATUS_SUPPRESSED]),
      );
    }
    return object;
  });
  return JSON.stringify({
    dataset_id: aggregate.datasetId,
    aggregate_id: aggregate.id,
    title: aggregate.title,
    observations,
    structure: {
      dimensions: query.groupBy.map(describeDimension),
      measures: query.measures.map(describeMeasure),
    },
    ...resultMetadata(response),
    links: [
      { rel: 'self', href: links.self, type: 'application/json' },
      { rel: 'describedby', href: links.structure, type: 'application/json' },
      { rel: 'alternate', href: links.sdmx, type: 'application/vnd.sdmx.data+json;version=2.1' },
      { rel: 'alternate', href: links.csv, type: 'text/csv' },
    ],
  });
}
