// `source: {type: postgres}`: a table or a read-only query of a PostgreSQL database, read as a snapshot or live.
import { z } from 'zod';
import { durationMs } from '../../platform/config/duration.ts';
import { envVarName } from '../../platform/config/env-var-name.ts';

// PostgreSQL cuts longer names to 63 bytes, and would then read another relation than the one named.
const identifier = (what: string) =>
  z
    .string()
    .min(1)
    .refine(
      (text) => Buffer.byteLength(text, 'utf8') <= 63,
      `${what} must be at most 63 bytes in UTF-8 (the PostgreSQL limit)`,
    )
    .refine((text) => !text.includes('\0'), `${what} must not contain NUL`);

export const postgresSource = z.strictObject({
  type: z.literal('postgres'),
  connection_env: envVarName().describe(
    'Environment variable holding the postgres:// URL. TLS (`sslmode=require`, `verify-ca` or `verify-full`) is required unless the host is loopback or a Unix socket.',
  ),
  table: z
    .strictObject({
      schema: identifier('schema').default('public'),
      name: identifier('table name'),
    })
    .optional()
    .describe('The table or view to read. Exactly one of `table` and `query`.'),
  query: z
    .string()
    .min(1)
    .optional()
    .describe(
      'One read-only SELECT or WITH statement (snapshot only): no `;`, no INSERT/UPDATE/DELETE/MERGE (also not in a WITH), no SELECT INTO or row locks, no session-state or side-effect functions (set_config, pg_advisory_*, dblink*, lo_*, nextval, pg_sleep, ...).',
    ),
  change_token_sql: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A read-only SELECT whose answer changes when the data does (for `refresh.mode: mtime`), e.g. `SELECT max(updated_at), count(*) FROM people` (the count also sees deletes): usually one row; of several, the first 100 count, in the order returned (so give them an `ORDER BY`). Same rules as `query`. Snapshot tables only: a live table reads the database on every request.',
    ),
  connect_timeout: durationMs({ min: 1, max: 300_000 })
    .default(5000)
    .describe('Longest wait for a connection (also for a free pooled one), at most 5m.'),
  query_timeout: durationMs({ min: 1, max: 3_600_000 })
    .default(30_000)
    .describe(
      'Statement timeout of every statement the relay runs, at most 1h: it bounds a whole snapshot load; for a live table keep it below `server.request_timeout`, so the database ends a slow read first.',
    ),
  live_max_connections: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(8)
    .describe(
      'Pool size of a live table in each relay process (connections opened on demand; `--workers N` may open N times as many).',
    ),
  live_pipeline_depth: z
    .number()
    .int()
    .min(1)
    .max(64)
    .default(8)
    .describe(
      'Reads one live connection may have in flight at once; a further connection opens only when every open one is this busy (1: one read per connection).',
    ),
  live_prepared_statements: z
    .boolean()
    .default(true)
    .describe(
      'Prepare each distinct live SELECT once per connection, so the database parses and plans it once rather than on every read. Turn off behind a transaction pooler that does not keep prepared statements (PgBouncer before 1.21, or without `max_prepared_statements`); a server found losing them turns it off by itself.',
    ),
  live_max_rows: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(10_000)
    .describe(
      'Most rows one live read may return: entities over a live table must keep `api.max_limit` within it.',
    ),
});

export type PostgresSourceConfig = z.infer<typeof postgresSource>;
