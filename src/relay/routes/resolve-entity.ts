// Lookup stages shared by dataset and entity routes: existence, scope and purpose, in that precedence.
import type { Principal } from '../../platform/auth/principal.ts';
import { requireScope } from '../../platform/auth/require-scope.ts';
import type { RouteRequest } from '../../platform/http/route-types.ts';
import { platformProblem } from '../../platform/problem/platform-problems.ts';
import type { Catalog, CatalogDataset, CatalogEntity, EntityScopes } from '../catalog/catalog.ts';
import { datasetScopePrefix, isReadableById } from '../catalog/catalog.ts';
import { relayProblem } from '../problems.ts';
import type { RelayState } from '../relay-state.ts';
import type { Generation } from '../store/generation.ts';

/**
 * A caller holding no scope at all on a dataset learns nothing about it: an unknown dataset and a
 * forbidden one both answer 403 (docs/decisions/0003-scope-before-existence.md).
 */
export function resolveDataset(
  catalog: Catalog,
  principal: Principal,
  datasetId: string,
  level: string,
): CatalogDataset {
  const dataset = catalog.datasets.get(datasetId);
  if (!dataset || !holdsAnyScope(principal, datasetId)) {
    throw platformProblem('auth.scope_denied', `required scope: ${datasetId}:${level}`);
  }
  return dataset;
}

export function resolveEntity(
  catalog: Catalog,
  principal: Principal,
  datasetId: string,
  entityName: string,
  scope: keyof EntityScopes,
): CatalogEntity {
  const entity = lookupEntity(catalog, principal, datasetId, entityName, scope);
  requireScope(principal, entity.scopes[scope]);
  return entity;
}

/** The entity by name, without its own scope check (for callers that must report other unknown names first). */
export function lookupEntity(
  catalog: Catalog,
  principal: Principal,
  datasetId: string,
  entityName: string,
  scope: keyof EntityScopes,
): CatalogEntity {
  const dataset = resolveDataset(catalog, principal, datasetId, scopeLevel(scope));
  const entity = dataset.entities.get(entityName);
  if (!entity)
    throw relayProblem('schema.unknown_resource', `dataset ${datasetId} has no entity ${entityName}`);
  return entity;
}

export function holdsAnyScope(principal: Principal, datasetId: string): boolean {
  const prefix = datasetScopePrefix(datasetId);
  for (const scope of principal.scopes) if (scope.startsWith(prefix)) return true;
  return false;
}

function scopeLevel(scope: keyof EntityScopes): string {
  return scope === 'evidenceVerification' ? 'evidence_verification' : scope;
}

export function requireReadableById(entity: CatalogEntity): void {
  if (!isReadableById(entity)) {
    throw relayProblem(
      'entity.filter_required',
      `a record of ${entity.name} is not read by its id: read the collection with an equality filter (field=value) on one of: ${entity.api.requiredFilters.join(', ')}`,
    );
  }
}

/** The trimmed `Data-Purpose` value, required when the entity says so (blank counts as missing). */
export function readPurpose(request: RouteRequest, entities: readonly CatalogEntity[]): string | undefined {
  const raw = request.headers['data-purpose'];
  // Repeated headers arrive split (repeated-headers.ts): which one is the purpose is for the caller to say.
  if (Array.isArray(raw)) throw platformProblem('auth.purpose_required', 'send one Data-Purpose header');
  const purpose = typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : undefined;
  const requiring = entities.find((entity) => entity.api.requirePurpose);
  if (purpose === undefined && requiring) {
    throw platformProblem(
      'auth.purpose_required',
      `entity ${requiring.name} requires the Data-Purpose header`,
    );
  }
  return purpose;
}

export function requireGeneration(state: RelayState): Generation {
  if (!state.generation) {
    throw relayProblem('schema.resource_unavailable', 'sources are still loading', {
      headers: { 'retry-after': '5' },
    });
  }
  return state.generation;
}
