// Lookup, visibility, execution scopes and purpose of an aggregate, in the relay's precedence order.
import type { Principal } from '../../platform/auth/principal.ts';
import { requireScope } from '../../platform/auth/require-scope.ts';
import type { RouteRequest } from '../../platform/http/route-types.ts';
import type { Catalog, CatalogDataset } from '../catalog/catalog.ts';
import { relayProblem } from '../problems.ts';
import { auditFacts, type RelayAuditFacts } from '../relay-runtime.ts';
import { resolveDataset } from '../routes/resolve-entity.ts';
import type { CatalogAggregate } from './aggregate-model.ts';

/** The audit facts of aggregate routes: the record's `aggregate_id` and `suppressed_groups`. */
export interface AggregateAuditFacts extends RelayAuditFacts {
  aggregate?: CatalogAggregate;
  suppressedGroups?: number;
}

export function aggregateAuditFacts(request: RouteRequest): AggregateAuditFacts {
  return auditFacts(request) as AggregateAuditFacts;
}

/**
 * Scope before existence (docs/decisions/0003): a caller with no scope on the dataset gets 403 whether or
 * not it exists; only then does an unknown aggregate answer 404 `schema.unknown_aggregate`.
 */
export function lookupAggregate(
  catalog: Catalog,
  principal: Principal,
  datasetId: string,
  aggregateId: string,
  level: 'metadata' | 'aggregate',
): CatalogAggregate {
  const dataset = resolveDataset(catalog, principal, datasetId, level);
  const aggregate = dataset.aggregates.get(aggregateId);
  if (!aggregate)
    throw relayProblem('schema.unknown_aggregate', `dataset ${datasetId} has no aggregate ${aggregateId}`);
  return aggregate;
}

/**
 * Discovery is open to a caller that may execute the aggregate (its aggregate scope), or that holds its
 * metadata scope and the metadata scope of every entity it reads (docs/decisions/0005-aggregates.md): a
 * `household.district` dimension names a relationship and a field of households, which the entity schema and the
 * metadata documents hide from a caller that may not see households.
 */
export function canDiscover(principal: Principal, aggregate: CatalogAggregate): boolean {
  const scopes = principal.scopes;
  return scopes.has(aggregate.scopes.aggregate) || discoveryScopes(aggregate).every((s) => scopes.has(s));
}

/** The metadata scopes that let a caller without the aggregate scope discover the aggregate. */
function discoveryScopes(aggregate: CatalogAggregate): string[] {
  return [
    ...new Set([
      aggregate.scopes.metadata,
      ...aggregate.entitiesRead.map((entity) => entity.scopes.metadata),
    ]),
  ];
}

export function visibleAggregates(dataset: CatalogDataset, principal: Principal): CatalogAggregate[] {
  return [...dataset.aggregates.values()].filter((aggregate) => canDiscover(principal, aggregate));
}

/** An aggregate the caller may not discover is, to that caller, one that does not exist (404, never 403). */
export function hideUndiscoverable(principal: Principal, aggregate: CatalogAggregate): void {
  if (!canDiscover(principal, aggregate)) {
    throw relayProblem(
      'schema.unknown_aggregate',
      `dataset ${aggregate.datasetId} has no aggregate ${aggregate.id}`,
    );
  }
}

/**
 * The scopes that let the caller discover the aggregate. One it may not discover answers as an unknown one does:
 * a 403 would tell the caller that an aggregate of that id exists.
 */
export function requireDiscovery(principal: Principal, aggregate: CatalogAggregate): string[] {
  hideUndiscoverable(principal, aggregate);
  return principal.scopes.has(aggregate.scopes.aggregate)
    ? [aggregate.scopes.aggregate]
    : discoveryScopes(aggregate);
}

/**
 * Execution needs the aggregate scope and the rows scope of every entity the aggregate reads, unless it
 * opts into aggregate-only execution. Returns the scopes used.
 */
export function requireExecution(principal: Principal, aggregate: CatalogAggregate): string[] {
  requireScope(principal, aggregate.scopes.aggregate);
  if (aggregate.aggregateOnly) return [aggregate.scopes.aggregate];
  const rows = [...new Set(aggregate.entitiesRead.map((entity) => entity.scopes.rows))];
  for (const scope of rows) requireScope(principal, scope);
  return [aggregate.scopes.aggregate, ...rows];
}
