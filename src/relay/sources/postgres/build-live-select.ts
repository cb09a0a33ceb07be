// The SELECT of a live read: filters, keyset position, primary-key order and limit as parameters; identifiers
// quoted. No value is ever written into the SQL text: it depends only on the shape of the request (and on whether
// a value lies outside what its column can hold, which turns its condition into a constant).
import type { FieldType, FilterOp } from '../../config/schema.ts';
import type { CellKey } from '../../store/column.ts';
import {
  type Bound,
  comparedType,
  doubleColumn,
  equalRange,
  exactParam,
  inAsDoubles,
  inColumn,
  lowerBound,
  nonEmptyLower,
  paramType,
  rangeColumn,
  upperBound,
} from './live-comparison.ts';
import { quoteIdentifier } from './read-only-session.ts';

export interface LiveFilter {
  readonly column: string;
  readonly type: FieldType;
  readonly op: FilterOp;
  /** eq: one value; in: one or more; gte/lte: one bound; between: [lower, upper] (as the query parser gives). */
  readonly values: readonly CellKey[];
}

export interface LiveSelect {
  /** Relation to read from, already quoted (`"public"."people"`). */
  readonly relation: string;
  /** Columns to return, in order (unquoted names). */
  readonly columns: readonly string[];
  readonly primaryKey: string;
  readonly filters: readonly LiveFilter[];
  /** The PostgreSQL type (`typname`) of each filtered column, as the table's probe found it. */
  readonly columnTypes: ReadonlyMap<string, string>;
  /** Rows with a primary key above this one (its PostgreSQL text) only. */
  readonly after?: string | undefined;
  /** Rows to fetch (the caller asks for one more than it shows, to learn whether there is a next page). */
  readonly limit: number;
}

export interface SqlStatement {
  readonly text: string;
  readonly values: unknown[];
}

/**
 * Adds a parameter and returns its placeholder, cast to `type` (a built-in type name, `paramType`) when given: every
 * comparison then names the type the statement was built for, whatever the column has become since.
 */
type AddParam = (value: unknown, type?: string | undefined) => string;

function paramList(values: unknown[]): AddParam {
  return (value, type) => {
    const placeholder = `$${values.push(value)}`;
    return type === undefined ? placeholder : `${placeholder}::pg_catalog.${type}`;
  };
}

/** What a column of each declared type is taken to be until the table's probe has said (reads follow the probe). */
const ASSUMED_TYPES: Record<FieldType, string> = {
  string: 'text',
  integer: 'int8',
  number: 'float8',
  boolean: 'bool',
  date: 'date',
  timestamp: 'timestamptz',
};

export function buildLiveSelect(select: LiveSelect): SqlStatement {
  const values: unknown[] = [];
  const param = paramList(values);
  const conditions: string[] = [];
  for (const filter of select.filters) {
    const pgType = select.columnTypes.get(filter.column) ?? ASSUMED_TYPES[filter.type];
    conditions.push(filterCondition(filter, comparedType(pgType, filter.type), param));
  }
  const key = quoteIdentifier(select.primaryKey);
  const keyType = select.columnTypes.get(select.primaryKey);
  if (select.after !== undefined) {
    conditions.push(
      `${key} > ${param(select.after, keyType === undefined ? undefined : paramType(keyType))}`,
    );
  }
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  const columns = select.columns.map(quoteIdentifier).join(', ');
  const limit = param(select.limit, 'int8');
  return { text: `SELECT ${columns} FROM ${select.relation}${where} ORDER BY ${key} LIMIT ${limit}`, values };
}

/**
 * One filter as SQL, with the snapshot's semantics (live-comparison.ts): values the column cannot hold match
 * nothing (`FALSE`) or bound nothing (`IS NOT NULL`: null never satisfies a filter, as in snapshots).
 */
function filterCondition(filter: LiveFilter, pgType: string, param: AddParam): string {
  const quoted = quoteIdentifier(filter.column);
  const type = paramType(pgType);
  const [first, second] = filter.values as [CellKey, CellKey | undefined];
  switch (filter.op) {
    case 'eq': {
      const range = equalRange(first, pgType);
      if (range === 'none') return 'FALSE';
      if (range !== undefined) {
        const { lower, upper } = range;
        // One value reads as it (a bigint below 2^53): plain equality.
        if (
          lower !== 'all' &&
          upper !== 'all' &&
          lower.param === upper.param &&
          !lower.strict &&
          !upper.strict
        ) {
          return `${quoted} = ${param(lower.param, type)}`;
        }
        return rangeCondition(quoted, pgType, lower, upper, param);
      }
      const value = exactParam(first, pgType);
      return value === undefined ? 'FALSE' : `${quoted} = ${param(value, type)}`;
    }
    case 'in': {
      if (inAsDoubles(filter.values, pgType))
        return `${doubleColumn(quoted, pgType)} = ANY(${param(filter.values, 'float8[]')})`;
      const values = filter.values
        .map((value) => exactParam(value, pgType))
        .filter((value) => value !== undefined);
      return values.length === 0
        ? 'FALSE'
        : `${inColumn(quoted, pgType)} = ANY(${param(values, type === undefined ? undefined : `${type}[]`)})`;
    }
    case 'gte':
      return rangeCondition(quoted, pgType, lowerBound(first, pgType), undefined, param);
    case 'lte':
      return rangeCondition(quoted, pgType, undefined, upperBound(first, pgType), param);
    case 'between':
      return rangeCondition(
        quoted,
        pgType,
        lowerBound(first, pgType),
        upperBound(second as CellKey, pgType),
        param,
      );
  }
}

function rangeCondition(
  quoted: string,
  pgType: string,
  requested: Bound | undefined,
  upper: Bound | undefined,
  param: AddParam,
): string {
  const lower = nonEmptyLower(requested, pgType);
  if (lower === 'none' || upper === 'none') return 'FALSE';
  const column = rangeColumn(quoted, pgType);
  // A uuid's ranges compare its text (rangeColumn).
  const type = pgType === 'uuid' ? 'text' : paramType(pgType);
  const parts: string[] = [];
  if (lower !== undefined && lower !== 'all')
    parts.push(`${column} ${lower.strict ? '>' : '>='} ${param(lower.param, type)}`);
  if (upper !== undefined && upper !== 'all')
    parts.push(`${column} ${upper.strict ? '<' : '<='} ${param(upper.param, type)}`);
  return parts.length === 0 ? `${quoted} IS NOT NULL` : parts.join(' AND ');
}

/**
 * A record by primary key (parsed with the field's type, as snapshot lookups parse it), compared as an `eq` filter
 * compares it, so that the key a record shows reads it (a numeric's double, a timestamp's milliseconds); undefined
 * when the column cannot hold that key, so no record has it. `pgType` is the compared type (`comparedType`).
 */
export function buildKeySelect(
  relation: string,
  columns: readonly string[],
  primaryKey: { readonly column: string; readonly pgType: string },
  key: CellKey,
): SqlStatement | undefined {
  const values: unknown[] = [];
  const param = paramList(values);
  // The field type only chooses the assumed column type, which pgType already gives.
  const filter: LiveFilter = { column: primaryKey.column, type: 'string', op: 'eq', values: [key] };
  const condition = filterCondition(filter, primaryKey.pgType, param);
  if (condition === 'FALSE') return undefined;
  // Several rows may read as one key: distinct keys of the column that a record shows alike (numerics past a
  // double's precision, timestamps within a millisecond), or one key a view repeats. Either names no one record, and
  // the caller refuses it as a page's repeat is refused: a second row is enough to tell.
  const column = quoteIdentifier(primaryKey.column);
  return {
    text: `SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${relation} WHERE ${condition} ORDER BY ${column} LIMIT 2`,
    values,
  };
}
