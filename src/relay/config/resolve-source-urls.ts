// Reads each PostgreSQL source's connection URL from the variable its `connection_env` names, and checks it.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { envValue } from '../../platform/config/env-value.ts';
import { unsetVariableMessage } from '../../platform/config/name-is-value.ts';
import { connectionUrlProblem } from '../../platform/postgres/connection-url.ts';
import { tableKey } from '../store/generation.ts';
import type { RelayConfig } from './schema.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** URLs by `datasetId/tableId`; issues name the `connection_env` path, never the URL. */
export function resolveSourceUrls(
  config: RelayConfig,
  env: Env,
): { urls: Map<string, string>; issues: ConfigIssue[] } {
  const urls = new Map<string, string>();
  const issues: ConfigIssue[] = [];
  config.datasets.forEach((dataset, d) => {
    dataset.tables.forEach((table, t) => {
      if (table.source.type !== 'postgres') return;
      const path = `datasets.${d}.tables.${t}.source.connection_env`;
      const name = table.source.connection_env;
      const url = envValue(env, name)?.trim();
      if (url === undefined || url === '') {
        issues.push({
          path,
          code: 'config.missing_secret',
          message: unsetVariableMessage(env, name),
        });
        return;
      }
      const problem = connectionUrlProblem(url, name);
      if (problem) {
        issues.push({ path, code: 'config.validation_error', message: problem });
        return;
      }
      urls.set(tableKey(dataset.id, table.id), url);
    });
  });
  return { urls, issues };
}
