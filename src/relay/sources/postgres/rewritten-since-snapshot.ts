// Whether a read that imported a shared snapshot would see a table as empty: PostgreSQL does not keep the old rows
// of a table rewritten (ALTER COLUMN ... TYPE, TRUNCATE, REFRESH MATERIALIZED VIEW) or dropped and created again by
// a transaction committed after the snapshot was taken, so under that snapshot the table reads as having no rows.
import type pg from 'pg';
import { classifyPgError } from './read-only-session.ts';

/**
 * Relations this transaction has locked (the column probe locks every table, view and underlying table the read
 * will scan, until the transaction ends, so none can change after this check) whose storage is not the one the
 * snapshot knows: pg_relation_filenode reads the current catalog, the pg_class scan reads it as of the snapshot
 * (where a table created later has no row). Views have no storage; mapped catalogs show relfilenode 0.
 */
const REWRITTEN_SQL = `SELECT count(*) AS rewritten FROM pg_catalog.pg_locks l
 WHERE l.pid = pg_catalog.pg_backend_pid() AND l.locktype = 'relation'
   AND pg_catalog.pg_relation_filenode(l.relation) IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid = l.relation
                    AND c.relfilenode IN (0, pg_catalog.pg_relation_filenode(l.relation)))`;

/**
 * True when a relation the read locked was rewritten or created after the transaction's snapshot, or when the
 * server refused the check (the read cannot be trusted to see the rows then either). An unreachable or silent
 * server rejects, failing the read as any other statement would.
 */
export async function rewrittenSinceSnapshot(client: pg.Client): Promise<boolean> {
  try {
    const result = await client.query<{ rewritten: string }>(REWRITTEN_SQL);
    return Number(result.rows[0]?.rewritten ?? 0) > 0;
  } catch (error) {
    const kind = classifyPgError(error);
    if (kind === 'unavailable' || kind === 'timeout') throw error;
    return true;
  }
}
