// Runs a source's `change_token_sql` (read-only, on a short-lived connection) and reduces its answer to a token.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { PostgresSourceConfig, TableConfig } from '../../config/schema.ts';
import { SourceError } from '../source-error.ts';
import { postgresLoadError } from './postgres-load-error.ts';
import { beginReadOnly, clientConfig, RAW_TEXT } from './read-only-session.ts';

/** Rows of the answer that count: a token query should return one value; more is tolerated, not read whole. */
const MAX_TOKEN_ROWS = 100;

/**
 * The digest of the first rows `change_token_sql` returns (each row reduced to a digest by the server): equal
 * answers give equal tokens. Rejects with a SourceError (`ingest.source_unavailable`, `ingest.query_failed`,
 * `ingest.query_timeout`).
 */
export async function readPostgresChangeToken(table: TableConfig, url: string): Promise<string> {
  const source = table.source as PostgresSourceConfig;
  const sql = source.change_token_sql;
  if (sql === undefined) {
    throw new SourceError({
      tableId: table.id,
      code: 'ingest.query_failed',
      detail: 'the source has no change_token_sql',
    });
  }
  const client = new pg.Client(clientConfig(url, source));
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query(beginReadOnly(source));
    // Each row arrives as the digest of its text, computed by the server: a huge value (a string_agg over a
    // table, say) would otherwise be read whole on every poll, and one past 512 MiB ends the process in the
    // driver. Converting to the server's own encoding keeps the bytes as they are (any encoding, SQL_ASCII too).
    const result = await client.query({
      text: `SELECT encode(sha256(convert_to(ROW(ambit_change_token.*)::text, current_setting('server_encoding'))), 'hex') FROM (\n${sql}\n) AS ambit_change_token LIMIT ${MAX_TOKEN_ROWS}`,
      rowMode: 'array',
      types: RAW_TEXT,
    });
    await client.query('COMMIT');
    return createHash('sha256').update(JSON.stringify(result.rows)).digest('hex').slice(0, 32);
  } catch (error) {
    throw postgresLoadError(table.id, error);
  } finally {
    await client.end().catch(() => {});
  }
}
