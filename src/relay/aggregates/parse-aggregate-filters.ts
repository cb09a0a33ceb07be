// Aggregate filters: parameter names and body members to field paths and operators, values to typed cells.

import { quoted, suggestion } from '../../platform/http/quote-client-text.ts';
import { FILTER_OPS, type FilterOp } from '../config/schema.ts';
import { relayProblem } from '../problems.ts';
import { parseFilterValue } from '../store/coerce-cell.ts';
import type { CellKey } from '../store/column.ts';
import { compareKeys } from '../store/compare-keys.ts';
import { AGGREGATE_LIMITS, type CatalogAggregate, type FieldPath } from './aggregate-model.ts';

export interface AggregateFilter {
  readonly path: FieldPath;
  readonly op: FilterOp;
  /** eq: one value; in: 1..100 values; gte/lte: one bound; between: [lower, upper]. */
  readonly values: readonly CellKey[];
}

export type Scalar = string | number | boolean;

/** What a filter says before its values are checked against the field type. */
export interface RawFilter {
  readonly name: string;
  readonly path: FieldPath;
  readonly op: FilterOp;
  readonly values: readonly Scalar[];
}

export function checkFilterCount(count: number): void {
  if (count > AGGREGATE_LIMITS.filters) {
    throw relayProblem('filter.too_many_filters', `at most ${AGGREGATE_LIMITS.filters} filters are accepted`);
  }
}

/** `field` (equality), or `field.op`; a field path may itself hold one dot (`relationship.field`). */
export function splitFilterName(
  aggregate: CatalogAggregate,
  name: string,
): { path: FieldPath; op: FilterOp } {
  const whole = aggregate.allowedFilters.get(name);
  if (whole) return allowedOp(aggregate, name, 'eq');
  const dot = name.lastIndexOf('.');
  const field = dot < 0 ? name : name.slice(0, dot);
  const op = dot < 0 ? 'eq' : name.slice(dot + 1);
  if (!(FILTER_OPS as readonly string[]).includes(op)) {
    throw relayProblem(
      'filter.unsupported_op',
      `${quoted(`.${op}`)} is not an operator${suggestion(op, FILTER_OPS)}`,
    );
  }
  return allowedOp(aggregate, field, op as FilterOp);
}

function allowedOp(
  aggregate: CatalogAggregate,
  field: string,
  op: FilterOp,
): { path: FieldPath; op: FilterOp } {
  const rule = aggregate.allowedFilters.get(field);
  if (!rule?.ops.has(op)) {
    const detail = rule
      ? `\`${field}\` accepts ${[...rule.ops].join(', ')}`
      : `${quoted(field)} is not a filter of this aggregate${suggestion(field, aggregate.allowedFilters.keys())}`;
    throw relayProblem('filter.not_allowed', detail);
  }
  return { path: rule.path, op };
}

export function bodyFilters(aggregate: CatalogAggregate, raw: unknown): RawFilter[] {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw relayProblem('aggregate.invalid_query', '`filters` must be an object of field: value');
  const entries = Object.entries(raw as Record<string, unknown>);
  checkFilterCount(entries.length);
  return entries.map(([field, value]) => {
    if (Array.isArray(value))
      return {
        name: field,
        ...allowedOp(aggregate, field, 'in'),
        values: listed(field, scalars(field, value)),
      };
    if (value !== null && typeof value === 'object') {
      const range = rangeOf(field, value);
      const op = range.from === undefined ? 'lte' : range.to === undefined ? 'gte' : 'between';
      const values = [range.from, range.to].filter((v): v is Scalar => v !== undefined);
      return {
        name: field,
        ...allowedOp(aggregate, field, op),
        values: op === 'between' ? listed(field, values) : values,
      };
    }
    return { name: field, ...allowedOp(aggregate, field, 'eq'), values: scalars(field, [value]) };
  });
}

/**
 * `temporal: {from?, to?}` is a range on the aggregate's temporal field, with the operators that field allows as a
 * filter: `from` needs gte, `to` lte, both between (or gte and lte). A range of two bounds is `between` either way;
 * the GET form of the query writes it as its bounds where between is not allowed.
 */
export function temporalFilters(aggregate: CatalogAggregate, raw: unknown): RawFilter[] {
  const path = aggregate.temporal;
  if (!path) throw relayProblem('aggregate.invalid_query', 'this aggregate has no temporal_field');
  const range = rangeOf('temporal', raw);
  const name = `temporal (${path.path})`;
  if (range.from !== undefined && range.to !== undefined) {
    if (!aggregate.allowedFilters.get(path.path)?.ops.has('between')) {
      allowedOp(aggregate, path.path, 'gte');
      allowedOp(aggregate, path.path, 'lte');
    }
    // A two-bound range may be linked as `between`, a comma-separated pair: held to the rule of listed values.
    return [{ name, path, op: 'between', values: listed(name, [range.from, range.to]) }];
  }
  const op = range.from !== undefined ? 'gte' : 'lte';
  allowedOp(aggregate, path.path, op);
  return [{ name, path, op, values: [(range.from ?? range.to) as Scalar] }];
}

function rangeOf(name: string, raw: unknown): { from: Scalar | undefined; to: Scalar | undefined } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw relayProblem(
      'aggregate.invalid_query',
      `${quoted(name)} must be an object with \`from\` and/or \`to\``,
    );
  const object = raw as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (key !== 'from' && key !== 'to')
      throw relayProblem(
        'aggregate.invalid_query',
        `${quoted(name)} accepts only \`from\` and \`to\`, not ${quoted(key)}`,
      );
  }
  const [from, to] = [object.from, object.to].map((value) =>
    value === undefined || value === null ? undefined : (scalars(name, [value])[0] as Scalar),
  );
  if (from === undefined && to === undefined)
    throw relayProblem('aggregate.invalid_query', `${quoted(name)} needs \`from\` or \`to\``);
  return { from, to };
}

/**
 * Values of a list (`in`, a `between` pair) hold no comma: the GET form of the query, which the answer links to,
 * separates them by commas and could not say it.
 */
function listed(name: string, values: Scalar[]): Scalar[] {
  if (values.some((value) => typeof value === 'string' && value.includes(','))) {
    throw relayProblem('filter.invalid_value', `\`${name}\`: a listed value cannot contain a comma`);
  }
  return values;
}

function scalars(name: string, values: readonly unknown[]): Scalar[] {
  return values.map((value) => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    throw relayProblem(
      'filter.invalid_value',
      `${quoted(name)}: values must be strings, numbers or booleans`,
    );
  });
}

export function checkFilter(raw: RawFilter): AggregateFilter {
  const { name, path, op } = raw;
  // A blank string says nothing, in a body as in a query string (which drops blank listed values and refuses a blank
  // single one): never an equality, so never a required filter, and never a bound or a listed value.
  const texts = raw.values.filter((value) => typeof value !== 'string' || value.trim() !== '');
  if (op === 'in' && texts.length > AGGREGATE_LIMITS.inValues)
    throw relayProblem(
      'filter.too_many_values',
      `\`${name}\` accepts at most ${AGGREGATE_LIMITS.inValues} values`,
    );
  if (op === 'between' && texts.length !== 2)
    throw relayProblem('filter.invalid_range', `\`${name}\` takes exactly two values: lower,upper`);
  if (texts.length === 0) throw relayProblem('filter.invalid_value', `\`${name}\` has no value`);
  const values = texts.map((value) => cellValue(path, name, value));
  if (op === 'between' && compareKeys(values[0] as CellKey, values[1] as CellKey) > 0)
    throw relayProblem('filter.invalid_range', `\`${name}\`: the lower bound is above the upper bound`);
  return { path, op, values: op === 'in' ? [...new Set(values)] : values };
}

/** A JSON or query-string value as a comparable cell of the field's type. */
function cellValue(path: FieldPath, name: string, value: Scalar): CellKey {
  const { type, sensitive } = path.field;
  if (typeof value === 'string') {
    const parsed = parseFilterValue(value, type);
    if (parsed.ok && parsed.value !== null) return parsed.value;
    const reason = sensitive || parsed.ok ? `not a valid ${type}` : parsed.reason;
    throw relayProblem('filter.invalid_value', `\`${name}\`: ${reason}`);
  }
  const fits =
    typeof value === 'boolean'
      ? type === 'boolean'
      : // A JSON number beyond the double range (`1e400`) parses as Infinity.
        (type === 'number' && Number.isFinite(value)) || (type === 'integer' && Number.isSafeInteger(value));
  if (!fits) throw relayProblem('filter.invalid_value', `\`${name}\`: not a valid ${type}`);
  return value;
}

/** The same field and operator twice is ambiguous (`x=1&x.eq=2`), so it is rejected, not collapsed. */
export function rejectRepeats(filters: readonly RawFilter[]): void {
  const seen = new Set<string>();
  for (const filter of filters) {
    const key = `${filter.path.path} ${filter.op}`;
    if (seen.has(key))
      throw relayProblem('filter.invalid_value', `\`${filter.path.path}\` has the ${filter.op} filter twice`);
    seen.add(key);
  }
}
