// Parses an aggregate query from GET parameters or a POST body into checked measures, groups, filters and limits.

import { quoted, suggestion } from '../../platform/http/quote-client-text.ts';
import { relayProblem } from '../problems.ts';
import { type QueryParams, reserved, single } from '../query/parse-collection-query.ts';
import {
  AGGREGATE_LIMITS,
  type AggregateDimension,
  type AggregateMeasure,
  type CatalogAggregate,
} from './aggregate-model.ts';
import {
  type AggregateFilter,
  bodyFilters,
  checkFilter,
  checkFilterCount,
  type RawFilter,
  rejectRepeats,
  splitFilterName,
  temporalFilters,
} from './parse-aggregate-filters.ts';

export type { AggregateFilter } from './parse-aggregate-filters.ts';

export interface AggregateQuery {
  readonly measures: readonly AggregateMeasure[];
  readonly groupBy: readonly AggregateDimension[];
  readonly filters: readonly AggregateFilter[];
  readonly maxRows: number;
}

/** GET parameters that are not filters. */
export const RESERVED_PARAMS = new Set(['f', 'group_by', 'measures', 'max_rows']);
const BODY_MEMBERS = ['measures', 'indicators', 'group_by', 'filters', 'temporal', 'max_rows', 'format'];

/** `f` is read separately (format negotiation precedes query validation). */
export function parseAggregateParams(aggregate: CatalogAggregate, params: QueryParams): AggregateQuery {
  // Read first: `group_by.eq` beside `group_by` is that parameter repeated, not a filter.
  const measures = reserved(params, 'measures');
  const groupBy = reserved(params, 'group_by');
  const maxRows = reserved(params, 'max_rows');
  const names = Object.keys(params).filter((name) => !RESERVED_PARAMS.has(name));
  checkFilterCount(names.length);
  const filters = names.map((name) => {
    const { path, op } = splitFilterName(aggregate, name);
    const raw = single(params, name);
    const values = op === 'in' || op === 'between' ? splitList(raw) : raw.trim() === '' ? [] : [raw];
    return { name, path, op, values };
  });
  return buildQuery(aggregate, {
    measures: measures === undefined ? undefined : listParam('measures', measures, false),
    groupBy: groupBy === undefined ? undefined : listParam('group_by', groupBy, true),
    filters,
    maxRows: maxRows === undefined ? undefined : /^\d{1,6}$/.test(maxRows) ? Number(maxRows) : Number.NaN,
  });
}

/** The body's `format` member, read before the rest of the body is validated. */
export function bodyFormat(body: unknown): string | undefined {
  const object = asObject(body);
  const format = object.format;
  if (format !== undefined && typeof format !== 'string')
    throw relayProblem('aggregate.invalid_query', '`format` must be a string');
  return format;
}

export function parseAggregateBody(aggregate: CatalogAggregate, body: unknown): AggregateQuery {
  const object = asObject(body);
  for (const key of Object.keys(object)) {
    if (!BODY_MEMBERS.includes(key)) {
      throw relayProblem(
        'aggregate.invalid_query',
        `unknown member ${quoted(key)}${suggestion(key, BODY_MEMBERS)}`,
      );
    }
  }
  if (object.measures !== undefined && object.indicators !== undefined)
    throw relayProblem('aggregate.invalid_query', 'send `measures` or its old name `indicators`, not both');
  const measures = object.measures === undefined ? object.indicators : object.measures;
  const filters = object.filters === undefined ? [] : bodyFilters(aggregate, object.filters);
  if (object.temporal !== undefined) filters.push(...temporalFilters(aggregate, object.temporal));
  const maxRows = object.max_rows;
  if (maxRows !== undefined && typeof maxRows !== 'number')
    throw relayProblem('aggregate.invalid_query', '`max_rows` must be a number');
  const measuresName = object.measures === undefined ? 'indicators' : 'measures';
  return buildQuery(aggregate, {
    // As in a GET query: no measures is an error (omit the member for every measure); no group_by, a grand total.
    measures: measures === undefined ? undefined : stringList(measuresName, measures, false),
    groupBy: object.group_by === undefined ? undefined : stringList('group_by', object.group_by, true),
    filters,
    maxRows,
  });
}

function buildQuery(
  aggregate: CatalogAggregate,
  raw: {
    measures: readonly string[] | undefined;
    groupBy: readonly string[] | undefined;
    filters: readonly RawFilter[];
    maxRows: number | undefined;
  },
): AggregateQuery {
  const measureIds = raw.measures ?? [...aggregate.measures.keys()];
  if (measureIds.length > AGGREGATE_LIMITS.measures)
    throw relayProblem('aggregate.limit_exceeded', `at most ${AGGREGATE_LIMITS.measures} measures per query`);
  const groupIds = raw.groupBy ?? aggregate.defaultGroupBy;
  if (groupIds.length > AGGREGATE_LIMITS.groupBy)
    throw relayProblem('aggregate.limit_exceeded', `at most ${AGGREGATE_LIMITS.groupBy} group_by dimensions`);
  const measures = unique('measures', measureIds).map((id) => {
    const measure = aggregate.measures.get(id);
    if (!measure)
      throw relayProblem(
        'aggregate.unknown_measure',
        `no measure ${quoted(id)}${suggestion(id, aggregate.measures.keys())}`,
      );
    return measure;
  });
  const groupBy = unique('group_by', groupIds).map((id) => {
    const dimension = aggregate.dimensions.get(id);
    if (!dimension) {
      const detail = `no dimension ${quoted(id)}${suggestion(id, aggregate.dimensions.keys())}`;
      throw relayProblem('aggregate.unknown_dimension', detail);
    }
    return dimension;
  });
  const maxRows = raw.maxRows ?? AGGREGATE_LIMITS.maxRows;
  if (!(Number.isInteger(maxRows) && maxRows >= 1 && maxRows <= AGGREGATE_LIMITS.maxRows))
    throw relayProblem(
      'aggregate.limit_exceeded',
      `max_rows must be an integer from 1 to ${AGGREGATE_LIMITS.maxRows}`,
    );
  const filters = raw.filters.map(checkFilter);
  rejectRepeats(raw.filters);
  // Every member is validated before the required-filter rule, so a malformed query is reported as such.
  const required = aggregate.requiredFilters;
  if (required.length > 0 && !filters.some((f) => f.op === 'eq' && required.includes(f.path.path))) {
    throw relayProblem(
      'aggregate.filter_required',
      `aggregate ${aggregate.id} needs an equality filter (field=value) on one of: ${required.join(', ')}; an .in list or a range does not count`,
    );
  }
  return { measures, groupBy, filters, maxRows };
}

function asObject(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw relayProblem('aggregate.invalid_query', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

function stringList(name: string, value: unknown, emptyAllowed: boolean): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw relayProblem('aggregate.invalid_query', `\`${name}\` must be an array of ids`);
  if (value.length === 0 && !emptyAllowed)
    throw relayProblem('aggregate.invalid_query', `\`${name}\` is empty`);
  return value;
}

function listParam(name: string, raw: string, emptyAllowed: boolean): string[] {
  const ids = splitList(raw);
  if (ids.length === 0 && !emptyAllowed)
    throw relayProblem('aggregate.invalid_query', `\`${name}\` is empty`);
  return ids;
}

function unique(name: string, ids: readonly string[]): readonly string[] {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw relayProblem('aggregate.invalid_query', `\`${name}\` lists ${quoted(id)} twice`);
    seen.add(id);
  }
  return ids;
}

function splitList(raw: string): string[] {
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
