// Parses the query string of a collection read: filters, limit, cursor, projection and expansions.

import { quoted, suggestion } from '../../platform/http/quote-client-text.ts';
import type { CatalogEntity, CatalogField } from '../catalog/catalog.ts';
import { FILTER_OPS, type FilterOp } from '../config/schema.ts';
import { RESERVED_QUERY_PARAMETERS } from '../config/schema-parts.ts';
import { relayProblem } from '../problems.ts';
import { parseFilterValue } from '../store/coerce-cell.ts';
import type { CellKey } from '../store/column.ts';
import { compareKeys } from '../store/compare-keys.ts';

export const MAX_FILTER_PARAMS = 20;
export const MAX_IN_VALUES = 100;

export interface Filter {
  readonly field: CatalogField;
  readonly op: FilterOp;
  /** eq: one value; in: 1..100 values; gte/lte: one bound; between: [lower, upper]. */
  readonly values: readonly CellKey[];
}

export interface CollectionQuery {
  readonly filters: readonly Filter[];
  readonly limit: number;
  readonly cursor: string | undefined;
  readonly fields: readonly CatalogField[] | undefined;
  readonly expand: readonly string[];
}

export type QueryParams = Readonly<Record<string, string | string[] | undefined>>;

export function parseCollectionQuery(entity: CatalogEntity, params: QueryParams): CollectionQuery {
  const names = Object.keys(params).filter((name) => !RESERVED_QUERY_PARAMETERS.has(name));
  if (names.length > MAX_FILTER_PARAMS) {
    throw relayProblem(
      'filter.too_many_filters',
      `at most ${MAX_FILTER_PARAMS} filter parameters are accepted`,
    );
  }
  // Repeats first, reserved parameters included: `limit.eq` beside `limit` is not a filter but `limit` again.
  const limit = reserved(params, 'limit');
  const cursor = reserved(params, 'cursor');
  const fields = reserved(params, 'fields');
  const expand = reserved(params, 'expand');
  rejectEqualityTwice(names);
  const filters = names.map((name) => parseFilter(entity, name, single(params, name)));
  const query = {
    filters,
    limit: parseLimit(limit, entity.api.defaultLimit, entity.api.maxLimit),
    cursor,
    fields: parseFields(entity, fields),
    expand: parseExpand(entity, expand),
  };
  // Every parameter is validated before the required-filter rule, so a malformed request is reported as such.
  checkRequiredFilters(entity, filters);
  return query;
}

/** `field` and `field.eq` are one parameter spelled two ways; sending both is a repeat. */
function rejectEqualityTwice(names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    const field = name.endsWith('.eq') ? name.slice(0, -'.eq'.length) : name;
    if (field.includes('.')) continue;
    if (seen.has(field)) throw repeatedAsEq(field);
    seen.add(field);
  }
}

function repeatedAsEq(name: string) {
  return relayProblem(
    'filter.invalid_value',
    `parameter ${quoted(name)} is repeated (as ${quoted(name)} and ${quoted(`${name}.eq`)})`,
  );
}

/**
 * A reserved parameter (`limit`, `cursor`, `fields`, `expand`) of a route that takes it. It takes no operator, but
 * `x` and `x.eq` are one parameter, so `x.eq` sent beside it is a repeat (alone, it is a name the route refuses).
 */
export function reserved(params: QueryParams, name: string): string | undefined {
  const value = optional(params, name);
  if (value !== undefined && params[`${name}.eq`] !== undefined) throw repeatedAsEq(name);
  return value;
}

/** A repeated parameter is ambiguous, so it is rejected rather than silently collapsed. */
export function single(params: QueryParams, name: string): string {
  const value = params[name];
  if (Array.isArray(value))
    throw relayProblem('filter.invalid_value', `parameter ${quoted(name)} is repeated`);
  return value ?? '';
}

export function optional(params: QueryParams, name: string): string | undefined {
  return params[name] === undefined ? undefined : single(params, name);
}

function parseFilter(entity: CatalogEntity, name: string, raw: string): Filter {
  const dot = name.lastIndexOf('.');
  const fieldName = dot < 0 ? name : name.slice(0, dot);
  const op = dot < 0 ? 'eq' : name.slice(dot + 1);
  if (!(FILTER_OPS as readonly string[]).includes(op)) {
    throw relayProblem(
      'filter.unsupported_op',
      `${quoted(`.${op}`)} is not an operator${suggestion(op, FILTER_OPS)}`,
    );
  }
  const allowed = entity.api.allowedFilters;
  const ops = allowed.get(fieldName);
  if (!ops?.has(op as FilterOp)) {
    const detail = ops
      ? `\`${fieldName}\` accepts ${[...ops].join(', ')}`
      : RESERVED_QUERY_PARAMETERS.has(fieldName)
        ? `\`${fieldName}\` takes no operator`
        : `${quoted(fieldName)} is not a filter of this entity${suggestion(fieldName, allowed.keys())}`;
    throw relayProblem('filter.not_allowed', detail);
  }
  const field = entity.fieldByName.get(fieldName) as CatalogField;
  // A blank value is treated as empty: it can never be a meaningful equality or bound.
  const texts = op === 'in' || op === 'between' ? splitList(raw) : raw.trim() === '' ? [] : [raw];
  if (op === 'in' && texts.length > MAX_IN_VALUES) {
    throw relayProblem('filter.too_many_values', `\`${name}\` accepts at most ${MAX_IN_VALUES} values`);
  }
  if (op === 'between' && texts.length !== 2) {
    throw relayProblem('filter.invalid_range', `\`${name}\` takes exactly two values: lower,upper`);
  }
  if (texts.length === 0) throw relayProblem('filter.invalid_value', `\`${name}\` has no value`);
  const values = texts.map((text) => {
    const parsed = parseFilterValue(text, field.type);
    if (!parsed.ok || parsed.value === null) {
      const reason = field.sensitive || parsed.ok ? `not a valid ${field.type}` : parsed.reason;
      throw relayProblem('filter.invalid_value', `\`${name}\`: ${reason}`);
    }
    return parsed.value;
  });
  if (op === 'between' && compareKeys(values[0] as CellKey, values[1] as CellKey) > 0) {
    throw relayProblem('filter.invalid_range', `\`${name}\`: the lower bound is above the upper bound`);
  }
  return { field, op: op as FilterOp, values: op === 'in' ? [...new Set(values)] : values };
}

function splitList(raw: string): string[] {
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** Satisfied only by an equality on one of the listed fields (an `.in` or a range does not narrow enough). */
function checkRequiredFilters(entity: CatalogEntity, filters: readonly Filter[]): void {
  const required = entity.api.requiredFilters;
  if (required.length === 0) return;
  const satisfied = filters.some((filter) => filter.op === 'eq' && required.includes(filter.field.name));
  if (!satisfied) {
    throw relayProblem(
      'entity.filter_required',
      `entity ${entity.name} needs an equality filter (field=value) on one of: ${required.join(', ')}; an .in list or a range does not count`,
    );
  }
}

/** `raw` is the `limit` parameter as sent: a plain decimal integer (leading zeros are still that integer). */
export function parseLimit(raw: string | undefined, defaultLimit: number, maxLimit: number): number {
  if (raw === undefined) return defaultLimit;
  const limit = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(limit >= 1 && limit <= maxLimit)) {
    throw relayProblem('filter.limit_out_of_range', `limit must be an integer from 1 to ${maxLimit}`);
  }
  return limit;
}

export function parseFields(entity: CatalogEntity, raw: string | undefined): CatalogField[] | undefined {
  if (raw === undefined) return undefined;
  const names = splitList(raw);
  if (names.length === 0) throw relayProblem('filter.unknown_field', '`fields` is empty');
  return [...new Set(names)].map((name) => {
    const field = entity.fieldByName.get(name);
    if (!field)
      throw relayProblem(
        'filter.unknown_field',
        `unknown field ${quoted(name)}${suggestion(name, entity.fieldByName.keys())}`,
      );
    return field;
  });
}

export function parseExpand(entity: CatalogEntity, raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const names = [...new Set(splitList(raw))];
  // Present but naming nothing is a mistake, as an empty `fields` is: never read as "no expansion".
  if (names.length === 0) throw relayProblem('expand.not_allowed', '`expand` is empty');
  for (const name of names) {
    if (!entity.api.allowedExpansions.has(name)) {
      const why =
        name.includes('.') || name === '*'
          ? 'nested and wildcard expansions are not supported'
          : `${quoted(name)} is not expandable${suggestion(name, entity.api.allowedExpansions)}`;
      throw relayProblem('expand.not_allowed', why);
    }
  }
  return names;
}
