// The SELECT of a live read: filters, keyset position, primary-key order and limit as parameters; identifiers
// quoted. No value is ever written into the SQL text, so the text depends only on the shape of the request.
import type { FieldType, FilterOp } from '../../config/schema.ts';
import type { CellKey } from '../../store/column.ts';
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
  /** Rows with a primary key above this one (its PostgreSQL text) only. */
  readonly after?: string | undefined;
  /** Rows to fetch (the caller asks for one more than it shows, to learn whether there is a next page). */
  readonly limit: number;
}

export interface SqlStatement {
  readonly text: string;
  readonly values: unknown[];
}

export function buildLiveSelect(select: LiveSelect): SqlStatement {
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const conditions: string[] = [];
  for (const filter of select.filters) {
    const column = quoteIdentifier(filter.column);
    const [first, second] = filter.values.map((value) => paramValue(value, filter.type));
    switch (filter.op) {
      case 'eq':
        conditions.push(`${column} = ${param(first)}`);
        break;
      case 'in':
        conditions.push(
          `${column} = ANY(${param(filter.values.map((value) => paramValue(value, filter.type)))})`,
        );
        break;
      case 'gte':
        conditions.push(`${column} >= ${param(first)}`);
        break;
      case 'lte':
        conditions.push(`${column} <= ${param(first)}`);
        break;
      case 'between':
        conditions.push(`${column} BETWEEN ${param(first)} AND ${param(second)}`);
        break;
    }
  }
  const key = quoteIdentifier(select.primaryKey);
  if (select.after !== undefined) conditions.push(`${key} > ${param(select.after)}`);
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  const columns = select.columns.map(quoteIdentifier).join(', ');
  const limit = param(select.limit);
  return { text: `SELECT ${columns} FROM ${select.relation}${where} ORDER BY ${key} LIMIT ${limit}`, values };
}

/** A record by primary key (parsed with the field's type, as snapshot lookups parse it). */
export function buildKeySelect(
  relation: string,
  columns: readonly string[],
  primaryKey: { readonly column: string; readonly type: FieldType },
  key: CellKey,
): SqlStatement {
  return {
    text: `SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${relation} WHERE ${quoteIdentifier(primaryKey.column)} = $1 LIMIT 1`,
    values: [paramValue(key, primaryKey.type)],
  };
}

/** Parsed filter values to driver parameters: timestamps (epoch ms in the store) as ISO 8601 UTC text. */
function paramValue(value: CellKey | undefined, type: FieldType): unknown {
  if (type === 'timestamp' && typeof value === 'number') return new Date(value).toISOString();
  return value;
}
