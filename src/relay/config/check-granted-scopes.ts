// Scopes the config grants, to API keys or through an OIDC `scope_map`: an admin scope, a standard level of a declared
// dataset, or a scope an entity or aggregate declares. A misspelt one would grant nothing, silently.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { hint } from '../../platform/config/did-you-mean.ts';
import { ADMIN_SCOPES, type RelayConfig, SCOPE_LEVELS } from './schema.ts';

export function checkGrantedScopes(config: RelayConfig): ConfigIssue[] {
  const datasetIds = new Set(config.datasets.map((dataset) => dataset.id));
  const declared = declaredScopes(config);
  const issues: ConfigIssue[] = [];
  const check = (path: string, scope: string) => {
    const problem = scopeProblem(scope, datasetIds, declared);
    if (problem) issues.push({ path, code: 'config.validation_error', message: problem });
  };
  (config.auth.api_keys ?? []).forEach((key, k) => {
    key.scopes.forEach((scope, s) => {
      check(`auth.api_keys.${k}.scopes.${s}`, scope);
    });
  });
  for (const [role, mapped] of Object.entries(config.auth.oidc?.scope_map ?? {})) {
    const path = `auth.oidc.scope_map.${role}`;
    if (typeof mapped === 'string') check(path, mapped);
    else {
      mapped.forEach((scope, s) => {
        check(`${path}.${s}`, scope);
      });
    }
  }
  return issues;
}

function scopeProblem(
  scope: string,
  datasetIds: ReadonlySet<string>,
  declared: ReadonlySet<string>,
): string | undefined {
  if ((ADMIN_SCOPES as readonly string[]).includes(scope) || declared.has(scope)) return undefined;
  const [datasetId, level, ...rest] = scope.split(':');
  if (datasetId === 'relay')
    return `unknown admin scope \`${scope}\`${hintOrList(scope, ADMIN_SCOPES, 'admin scopes are')}`;
  const reference = referenceScopeProblem(scope, datasetIds);
  if (reference) return reference;
  if (rest.length > 0 || !datasetId || !level) return `\`${scope}\` is not of the form <dataset_id>:<level>`;
  if (!datasetIds.has(datasetId))
    return `scope names unknown dataset \`${datasetId}\`${hint(datasetId, datasetIds)}`;
  if (!(SCOPE_LEVELS as readonly string[]).includes(level)) {
    const prefix = `${datasetId}:`;
    const ownLevels = [...declared].filter((s) => s.startsWith(prefix)).map((s) => s.slice(prefix.length));
    const near = hint(level, [...SCOPE_LEVELS, ...ownLevels]);
    return `unknown scope level \`${level}\`${near || listed([...new Set([...ROUTE_LEVELS, ...ownLevels])], 'a level is one of')}`;
  }
  return undefined;
}

/** The levels the data routes check; the others `SCOPE_LEVELS` accepts grant nothing here, so none is suggested. */
const ROUTE_LEVELS = ['metadata', 'rows', 'aggregate'];

/** The near name when there is one, else every name there is: a guess far from all of them still learns the set. */
function hintOrList(input: string, names: readonly string[], lead: string): string {
  return hint(input, names) || listed(names, lead);
}

function listed(names: readonly string[], lead: string): string {
  return `: ${lead} ${names.map((name) => `\`${name}\``).join(', ')}`;
}

/** Scopes as the reference relay names them, with the name this relay gives them or why there is none. */
function referenceScopeProblem(scope: string, datasetIds: ReadonlySet<string>): string | undefined {
  const [datasetId = '', level, ...rest] = scope.split(':');
  if (datasetId === 'registry_relay') {
    const ours = `relay:${[level, ...rest].join(':')}`;
    return (ADMIN_SCOPES as readonly string[]).includes(ours)
      ? `the reference admin scope \`${scope}\` is named \`${ours}\` here: use \`${ours}\``
      : `unknown admin scope \`${scope}\`${listed(ADMIN_SCOPES, 'admin scopes are')}`;
  }
  if (!datasetIds.has(datasetId)) return undefined;
  if (level === 'verify' && rest.length === 0) {
    return `\`${scope}\` is not a scope here: this relay has no verification route (claims are verified by the verifier), remove it`;
  }
  if (level === 'identity_release' && rest.length === 0) {
    return `\`${scope}\` is not a scope here: attribute release is not served by this relay, remove it`;
  }
  if (level === 'evidence_verification' && rest.length > 0) {
    return `evidence verification is not scoped per evidence type here: use \`${datasetId}:evidence_verification\``;
  }
  return undefined;
}

/**
 * The scopes routes check besides the standard levels: an entity's `metadata_scope` and `read_scope`, an aggregate's
 * `metadata_scope` and `aggregate_scope`. Without them a key could never hold the scope such an entity is read with.
 * One that does not start with its dataset id is refused elsewhere, and never counts here.
 */
function declaredScopes(config: RelayConfig): Set<string> {
  const scopes = new Set<string>();
  for (const dataset of config.datasets) {
    const own = [
      ...dataset.entities.flatMap((entity) => [entity.access.metadata_scope, entity.access.read_scope]),
      ...dataset.aggregates.flatMap((aggregate) => [
        aggregate.access.metadata_scope,
        aggregate.access.aggregate_scope,
      ]),
    ];
    for (const scope of own) if (scope?.startsWith(`${dataset.id}:`)) scopes.add(scope);
  }
  return scopes;
}
