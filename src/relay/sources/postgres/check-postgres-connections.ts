// `ambit config check --connect`: what serving would find in each PostgreSQL source, without loading any rows. Each
// table is checked as a start checks it (connection, TLS, authentication, the table or query, its columns and
// types, the key index of a live table), and its `change_token_sql` is run when an mtime refresh polls it.
import { performance } from 'node:perf_hooks';
import { silentLogger } from '../../../platform/log.ts';
import type { LoadedRelayConfig } from '../../config/load-relay-config.ts';
import type { PostgresSourceConfig } from '../../config/schema.ts';
import { refreshOf } from '../../reload/refresh-scheduler.ts';
import { SourceError } from '../source-error.ts';
import { createPostgresSources, isLiveTable, isPostgresTable } from './postgres-sources.ts';
import { describePgError } from './read-only-session.ts';

export interface PostgresSourceCheck {
  readonly datasetId: string;
  readonly tableId: string;
  readonly materialization: 'live' | 'snapshot';
  /** What serving would fail with: the load error code and its detail (no connection string, no value). */
  readonly problem?: { readonly code: string; readonly detail: string };
  /** The problem is the `change_token_sql`'s only: a start would serve the table, and no poll would see it change. */
  readonly tokenOnly?: true;
}

/** Checks every PostgreSQL table of the config, one after another; never rejects. */
export async function checkPostgresConnections(loaded: LoadedRelayConfig): Promise<PostgresSourceCheck[]> {
  const { config } = loaded;
  // Nothing is logged: the check reports each table itself.
  const postgres = createPostgresSources(config, loaded.secrets.sourceUrls, {
    logger: silentLogger(),
    now: () => performance.now(),
  });
  const checks: PostgresSourceCheck[] = [];
  try {
    for (const dataset of config.datasets) {
      for (const table of dataset.tables) {
        if (!isPostgresTable(table)) continue;
        const live = isLiveTable(table);
        const check = {
          datasetId: dataset.id,
          tableId: table.id,
          materialization: live ? 'live' : 'snapshot',
        } as const;
        try {
          if (live) await postgres.probeLive(table);
          else await (await postgres.openSnapshot(table)).close();
        } catch (error) {
          checks.push({ ...check, problem: problemOf(error) });
          continue;
        }
        try {
          const polled = refreshOf(dataset, table).mode === 'mtime';
          if (polled && (table.source as PostgresSourceConfig).change_token_sql !== undefined) {
            await postgres.changeToken(table);
          }
          checks.push(check);
        } catch (error) {
          // A start would load the table, then find every poll's token unreadable: say which statement failed.
          const problem = problemOf(error);
          checks.push({
            ...check,
            problem: { ...problem, detail: `change_token_sql: ${problem.detail}` },
            tokenOnly: true,
          });
        }
      }
    }
  } finally {
    await postgres.close();
  }
  return checks;
}

function problemOf(error: unknown): { code: string; detail: string } {
  if (error instanceof SourceError) {
    // Where, as a start's message says it: a type mismatch's detail alone does not name its column.
    const where = [
      ...(error.row === undefined ? [] : [`data row ${error.row}`]),
      ...(error.column === undefined ? [] : [`column ${JSON.stringify(error.column)}`]),
    ];
    const detail = where.length === 0 ? error.detail : `${where.join(', ')}: ${error.detail}`;
    return { code: error.code, detail };
  }
  return { code: 'ingest.source_unavailable', detail: describePgError(error) };
}
