// The start-up probe of a live PostgreSQL table: its columns can serve their declared types with the snapshot's
// comparisons, the database user may read them, and (for a table) a unique index covers the non-null key alone.
import pg from 'pg';
import type { PostgresSourceConfig, TableConfig } from '../../config/schema.ts';
import { SourceError } from '../source-error.ts';
import { postgresLoadError } from './postgres-load-error.ts';
import { beginReadOnly, clientConfig, quoteIdentifier } from './read-only-session.ts';
import type { TrackedClients } from './tracked-clients.ts';

/**
 * Which PostgreSQL types can serve each declared type with the snapshot's filter semantics (live-comparison.ts).
 * Left out because the database compares them otherwise than their text: char(n) (ignores trailing spaces), citext
 * (ignores case), name (truncates), real (a value like 0.1 converts to another double than its text reads as).
 */
const COMPATIBLE_TYPES: Record<string, readonly string[]> = {
  string: ['text', 'varchar', 'uuid'],
  integer: ['int2', 'int4', 'int8'],
  number: ['numeric', 'float8', 'int2', 'int4', 'int8'],
  boolean: ['bool'],
  date: ['date'],
  timestamp: ['timestamp', 'timestamptz'],
};

/** What the refusal of another column type suggests casting it to, in a view. */
const CASTS: Record<string, string> = {
  string: 'text',
  integer: 'bigint',
  number: 'numeric',
  boolean: 'boolean',
  date: 'date',
  timestamp: 'timestamptz',
};

/** Checks the table as LiveTable.probe says; returns the PostgreSQL type name of each column. */
export async function probeLiveTable(
  table: TableConfig,
  url: string,
  relation: string,
  clients?: TrackedClients,
): Promise<Map<string, string>> {
  const source = table.source as PostgresSourceConfig;
  const client = new pg.Client(clientConfig(url, source));
  client.on('error', () => {});
  clients?.add(client, source.connect_timeout);
  try {
    await client.connect();
    await client.query(beginReadOnly(source));
    const columns = await client.query<ProbedColumn>({
      // A type is named by its schema too unless it is a built-in one: a domain `public."varchar"` over char(n) is
      // no varchar, and compares as char(n) does (trailing spaces ignored).
      text: `SELECT a.attname AS name,
                    CASE WHEN t.typnamespace = 'pg_catalog'::regnamespace THEN t.typname
                         ELSE t.typnamespace::regnamespace::text || '.' || t.typname END AS type,
                    format_type(a.atttypid, a.atttypmod) AS shown,
                    c.collname AS collation, coalesce(c.collisdeterministic, true) AS deterministic
               FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
               LEFT JOIN pg_collation c ON c.oid = a.attcollation
              WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`,
      values: [relation],
    });
    if (columns.rows.length === 0) {
      throw new SourceError({
        tableId: table.id,
        code: 'ingest.query_failed',
        detail: `${relation} does not exist or is not visible to the database user`,
      });
    }
    checkColumns(table, columns.rows);
    // The catalog shows every table's columns to any user: selecting no row checks that the user may read the
    // declared columns (table or column privileges; for a view, also its owner's on what it reads), as every read
    // will need to, so that a table it cannot read fails the start rather than every read.
    const declared = table.schema.fields.map((field) => quoteIdentifier(field.name)).join(', ');
    await client.query(`SELECT ${declared} FROM ${relation} LIMIT 0`);
    const kind = await client.query<{ relkind: string }>({
      text: 'SELECT relkind FROM pg_class WHERE oid = to_regclass($1)',
      values: [relation],
    });
    // A view (or foreign table) has no index to check: its key must be unique by construction (see docs).
    const types = new Map(columns.rows.map((column) => [column.name, column.type]));
    if (['v', 'f'].includes(kind.rows[0]?.relkind ?? '')) {
      await client.query('COMMIT');
      return types;
    }
    const unique = await client.query<{ not_null: boolean }>({
      text: `SELECT a.attnotnull AS not_null
               FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
              WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indisvalid AND i.indnkeyatts = 1
                AND i.indpred IS NULL AND a.attname = $2 LIMIT 1`,
      values: [relation, table.primary_key],
    });
    const keyed = unique.rows[0];
    const key = quoteIdentifier(table.primary_key);
    // A materialized view's columns are never NOT NULL (PostgreSQL refuses to set it): its rows are checked instead,
    // and its query must go on leaving keyless rows out at each REFRESH, as a view's must.
    if (keyed !== undefined && !keyed.not_null && kind.rows[0]?.relkind === 'm') {
      const keyless = await client.query(`SELECT 1 FROM ${relation} WHERE ${key} IS NULL LIMIT 1`);
      if (keyless.rows.length > 0) {
        throw new SourceError({
          tableId: table.id,
          code: 'ingest.live_key_not_unique',
          detail: `live reads page by the primary key: rows of the materialized view ${relation} have no ${table.primary_key}; leave them out in its query (WHERE ${key} IS NOT NULL)`,
          column: table.primary_key,
        });
      }
      await client.query('COMMIT');
      return types;
    }
    if (keyed === undefined || !keyed.not_null) {
      throw new SourceError({
        tableId: table.id,
        code: 'ingest.live_key_not_unique',
        // A UNIQUE index lets any number of rows have no key at all; such rows could be neither paged past nor
        // looked up, and every page reaching them would fail.
        detail:
          keyed === undefined
            ? `live reads page by the primary key: ${relation} needs a unique index on ${table.primary_key} alone${missingIndexHint(kind.rows[0]?.relkind, relation, key)}`
            : `live reads page by the primary key: ${table.primary_key} of ${relation} has a unique index but may be NULL; make it NOT NULL (or a PRIMARY KEY)`,
        column: table.primary_key,
      });
    }
    await client.query('COMMIT');
    return types;
  } catch (error) {
    throw postgresLoadError(table.id, error);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * How to give a relation the unique key index it lacks: a materialized view takes no constraint, only an index, and a
 * partitioned table's unique indexes must include its partition key, so one on the key alone exists only when the
 * table is partitioned by it.
 */
function missingIndexHint(relkind: string | undefined, relation: string, key: string): string {
  if (relkind === 'm') return ` (CREATE UNIQUE INDEX ON ${relation} (${key}))`;
  if (relkind === 'p') {
    return `, which a partitioned table can have only when it is partitioned by ${key} alone: serve it as a snapshot, or through a view when ${key} is unique all the same`;
  }
  return ` (a PRIMARY KEY or UNIQUE constraint)`;
}

interface ProbedColumn {
  readonly name: string;
  readonly type: string;
  /** The type as PostgreSQL writes it (`character varying(8)`). */
  readonly shown: string;
  readonly collation: string | null;
  readonly deterministic: boolean;
}

function checkColumns(table: TableConfig, actual: readonly ProbedColumn[]): void {
  const byName = new Map(actual.map((column) => [column.name, column]));
  const declared = new Set(table.schema.fields.map((field) => field.name));
  if (table.schema.strict) {
    const extra = actual.filter((column) => !declared.has(column.name)).map((column) => column.name);
    if (extra.length > 0) {
      throw new SourceError({
        tableId: table.id,
        code: 'ingest.strict_extra_column',
        detail: `source has undeclared columns: ${extra.join(', ')} (declare them or set schema.strict: false)`,
      });
    }
  }
  const missing = table.schema.fields.filter((field) => !byName.has(field.name)).map((field) => field.name);
  if (missing.length > 0) {
    throw new SourceError({
      tableId: table.id,
      code: 'ingest.missing_column',
      detail: `source lacks declared columns: ${missing.join(', ')}`,
    });
  }
  for (const field of table.schema.fields) {
    const column = byName.get(field.name) as ProbedColumn;
    if (!column.deterministic) {
      // Equal strings by such a collation (case or accents ignored) are different values in a snapshot: a filter
      // or record read would match rows the snapshot does not, as with citext.
      throw new SourceError({
        tableId: table.id,
        code: 'ingest.type_mismatch',
        detail: `column uses the nondeterministic collation ${column.collation}, which compares strings otherwise than their text (serve it through a view that applies COLLATE "C")`,
        column: field.name,
      });
    }
    if (!(COMPATIBLE_TYPES[field.type] ?? []).includes(column.type)) {
      throw new SourceError({
        tableId: table.id,
        code: 'ingest.type_mismatch',
        detail: `column is ${column.shown}, which a live table cannot serve as ${field.type} (it needs ${(COMPATIBLE_TYPES[field.type] ?? []).join(', ')}: serve it through a view that casts it (e.g. ${quoteIdentifier(field.name)}::${CASTS[field.type]}))`,
        column: field.name,
      });
    }
  }
}
