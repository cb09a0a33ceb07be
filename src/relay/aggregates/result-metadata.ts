// What every format says about a result besides its cells: completeness, disclosure control and freshness.
import type { CatalogAggregate } from './aggregate-model.ts';
import type { DisclosedResult } from './apply-disclosure.ts';
import type { AggregateQuery } from './parse-aggregate-request.ts';

/** One computed answer with what its renderers need. */
export interface AggregateResponse {
  readonly aggregate: CatalogAggregate;
  readonly query: AggregateQuery;
  readonly result: DisclosedResult;
  /** When the answer was computed (epoch ms): the relay stamps it with `asOf`, the time of the data it depends on. */
  readonly computedAt: number;
  /** The time of the source data (epoch ms): files' modification time, else when the data was loaded. */
  readonly asOf: number;
  /** Short digest of the data versions and the query, used for message ids. */
  readonly digest: string;
  readonly links: {
    readonly self: string;
    readonly structure: string;
    readonly json: string;
    readonly csv: string;
    readonly sdmx: string;
  };
}

export function resultMetadata(response: AggregateResponse) {
  const { result, aggregate } = response;
  const control = aggregate.disclosure;
  // Where omitted groups are not counted, whether any was omitted is not told either: on a one-cell query it is
  // the count, and would tell an empty cell from a small one. Such a cube is never declared complete.
  const omissionHidden = control.suppression === 'omit' && !control.reportSuppressed;
  return {
    completeness: {
      // A cube is complete only when no group was cut by max_rows and none was omitted, masked or thinned.
      complete: !result.truncated && !omissionHidden && result.suppressedGroups === 0,
      truncated: result.truncated,
    },
    disclosure_control: {
      method: control.method,
      min_cell_size: control.minCellSize,
      // `mask` and `null` do the same (keys kept, measures null); results name the two outcomes, as clients expect.
      suppression: control.suppression === 'omit' ? 'omit' : 'null',
      suppressed_observations: control.reportSuppressed ? result.suppressedGroups : null,
      query_budget: { tracked: false, scope: 'none' },
    },
    freshness: {
      computed_at: new Date(response.computedAt).toISOString(),
      as_of: new Date(response.asOf).toISOString(),
    },
  };
}
