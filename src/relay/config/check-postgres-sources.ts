// Cross-field rules of PostgreSQL sources and live materialization; every issue is collected.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { readableTableProblem, readOnlySqlProblem } from '../sources/postgres/check-read-only-sql.ts';
import type { DatasetConfig, RelayConfig, TableConfig } from './schema.ts';

const issue = (path: string, message: string): ConfigIssue => ({
  path,
  code: 'config.validation_error',
  message,
});

export function checkPostgresSources(config: RelayConfig): ConfigIssue[] {
  return config.datasets.flatMap((dataset, d) => [
    ...dataset.tables.flatMap((table, t) => checkTable(dataset, table, `datasets.${d}.tables.${t}`, d)),
    ...checkLiveConsumers(dataset, `datasets.${d}`),
  ]);
}

/** The table's own `materialization`, else its dataset's `defaults.materialization`, else snapshot. */
export function effectiveMaterialization(dataset: DatasetConfig, table: TableConfig): 'snapshot' | 'live' {
  return table.materialization ?? dataset.defaults.materialization ?? 'snapshot';
}

function checkTable(dataset: DatasetConfig, table: TableConfig, base: string, d: number): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const live = effectiveMaterialization(dataset, table) === 'live';
  // Said where the live setting comes from: a table that writes nothing may inherit it from its dataset.
  const inherited =
    live && table.materialization === undefined
      ? ` (inherited from \`datasets.${d}.defaults.materialization\`: set \`materialization: snapshot\` on this table)`
      : '';
  const refresh = table.refresh ?? dataset.defaults.refresh;
  const refreshPath = table.refresh ? `${base}.refresh.mode` : `datasets.${d}.defaults.refresh.mode`;
  const source = table.source;
  if (source.type !== 'postgres') {
    if (live) {
      issues.push(
        issue(
          `${base}.materialization`,
          `live materialization needs a postgres source (files are loaded as snapshots)${inherited}`,
        ),
      );
    }
    return issues;
  }
  if ((source.table === undefined) === (source.query === undefined)) {
    issues.push(issue(`${base}.source`, 'set exactly one of `table` and `query`'));
  }
  if (source.table !== undefined) {
    const problem = readableTableProblem(source.table.name);
    if (problem) issues.push(issue(`${base}.source.table.name`, problem));
  }
  if (source.query !== undefined) {
    const problem = readOnlySqlProblem(source.query);
    if (problem) issues.push(issue(`${base}.source.query`, problem));
    if (live) {
      issues.push(
        issue(
          `${base}.source.query`,
          `a live table reads \`source.table\`; \`query\` is for snapshot materialization only (to serve a query live, create a view of it and name the view in \`table\`)${inherited}`,
        ),
      );
    }
  }
  if (source.change_token_sql !== undefined) {
    const problem = readOnlySqlProblem(source.change_token_sql);
    if (problem) issues.push(issue(`${base}.source.change_token_sql`, problem));
  }
  if (refresh?.mode === 'mtime') {
    if (live) {
      issues.push(
        issue(
          refreshPath,
          `a live table is read on every request: it has nothing to refresh by \`mtime\`${inherited}`,
        ),
      );
    } else if (source.change_token_sql === undefined) {
      issues.push(
        issue(
          `${base}.source.change_token_sql`,
          'is required for `refresh.mode: mtime` on a postgres source (a SELECT whose answer changes with the data)',
        ),
      );
    }
  }
  return issues;
}

/**
 * Entities over a live table read page by page from the database: their page size must fit `live_max_rows`, and
 * the features computed over in-memory columns (relationships, expansions, aggregates) are not available.
 */
function checkLiveConsumers(dataset: DatasetConfig, base: string): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const liveTables = new Map(
    dataset.tables
      .filter((table) => effectiveMaterialization(dataset, table) === 'live')
      .map((table) => [table.id, table]),
  );
  if (liveTables.size === 0) return issues;
  const entityTable = new Map(dataset.entities.map((entity) => [entity.name, entity.table]));
  dataset.entities.forEach((entity, e) => {
    const path = `${base}.entities.${e}`;
    const table = liveTables.get(entity.table);
    const source = table?.source;
    if (source?.type === 'postgres' && entity.api.max_limit > source.live_max_rows) {
      issues.push(
        issue(
          `${path}.api.max_limit`,
          `must not exceed live_max_rows (${source.live_max_rows}) of live table \`${entity.table}\``,
        ),
      );
    }
    entity.relationships.forEach((rel, r) => {
      const other = entityTable.get(rel.target);
      const liveSide = table
        ? entity.table
        : other !== undefined && liveTables.has(other)
          ? other
          : undefined;
      if (liveSide !== undefined) {
        issues.push(
          issue(
            `${path}.relationships.${r}`,
            `relationships to or from an entity over a live table are not supported (table \`${liveSide}\` is live)`,
          ),
        );
      }
    });
  });
  dataset.aggregates.forEach((aggregate, a) => {
    const table = entityTable.get(aggregate.source_entity);
    if (table !== undefined && liveTables.has(table)) {
      issues.push(
        issue(
          `${base}.aggregates.${a}.source_entity`,
          `aggregates are computed in memory: entity \`${aggregate.source_entity}\` is over live table \`${table}\``,
        ),
      );
    }
  });
  return issues;
}
