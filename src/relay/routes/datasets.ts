// Dataset discovery and entity schemas, filtered to what the caller's metadata scopes reveal (hence `Vary` names
// the credential headers).
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../platform/auth/principal.ts';
import { isNotModified, strongEtag } from '../../platform/http/etag.ts';
import { addVary, CREDENTIAL_HEADERS } from '../../platform/http/vary.ts';
import { platformProblem } from '../../platform/problem/platform-problems.ts';
import type { CatalogDataset, CatalogEntity } from '../catalog/catalog.ts';
import { auditFacts, type RelayRuntime } from '../relay-runtime.ts';
import { notModified } from './records.ts';
import { resolveDataset, resolveEntity } from './resolve-entity.ts';

export function registerDatasetRoutes(app: FastifyInstance, runtime: RelayRuntime): void {
  const { catalog } = runtime;
  const baseUrl = catalog.config.catalog.base_url.replace(/\/$/, '');

  app.get('/v1/datasets', async (request, reply) => {
    addVary(reply, ...CREDENTIAL_HEADERS);
    const facts = auditFacts(request);
    facts.endpointKind = 'catalog';
    const principal = await runtime.authenticate(request);
    const data = [...catalog.datasets.values()]
      .map((dataset) => summarise(dataset, visibleEntities(dataset, principal), baseUrl))
      .filter((summary) => summary.entities.length > 0);
    facts.rowCount = data.length;
    return { data };
  });

  app.get<{ Params: { dataset_id: string } }>('/v1/datasets/:dataset_id', async (request, reply) => {
    addVary(reply, ...CREDENTIAL_HEADERS);
    const facts = auditFacts(request);
    facts.endpointKind = 'dataset';
    const principal = await runtime.authenticate(request);
    const dataset = resolveDataset(catalog, principal, request.params.dataset_id, 'metadata');
    facts.datasetId = dataset.id;
    const entities = visibleEntities(dataset, principal);
    if (entities.length === 0)
      throw platformProblem('auth.scope_denied', `required scope: ${dataset.id}:metadata`);
    return summarise(dataset, entities, baseUrl);
  });

  app.get<{ Params: { dataset_id: string; entity: string } }>(
    '/v1/datasets/:dataset_id/entities/:entity/schema',
    async (request, reply) => {
      addVary(reply, ...CREDENTIAL_HEADERS);
      const facts = auditFacts(request);
      facts.endpointKind = 'schema';
      const principal = await runtime.authenticate(request);
      const entity = resolveEntity(
        catalog,
        principal,
        request.params.dataset_id,
        request.params.entity,
        'metadata',
      );
      facts.datasetId = entity.datasetId;
      facts.entity = entity;
      facts.scopesUsed = [entity.scopes.metadata];
      const dataset = catalog.datasets.get(entity.datasetId);
      const body = describeEntity(entity, baseUrl, (target) => {
        const related = dataset?.entities.get(target);
        return related !== undefined && principal.scopes.has(related.scopes.metadata);
      });
      const etag = strongEtag(['schema', body]);
      if (isNotModified(request, etag)) return notModified(reply, etag);
      reply.header('etag', etag);
      return body;
    },
  );
}

export function visibleEntities(dataset: CatalogDataset, principal: Principal): CatalogEntity[] {
  return [...dataset.entities.values()].filter((entity) => principal.scopes.has(entity.scopes.metadata));
}

function summarise(dataset: CatalogDataset, entities: readonly CatalogEntity[], baseUrl: string) {
  const config = dataset.config;
  return {
    dataset_id: dataset.id,
    title: config.title,
    description: config.description,
    owner: config.owner ?? null,
    sensitivity: config.sensitivity,
    access_rights: config.access_rights,
    update_frequency: config.update_frequency,
    conforms_to: config.conforms_to,
    links: { self: `${baseUrl}/v1/datasets/${dataset.id}` },
    entities: entities.map((entity) => entity.name),
  };
}

/** `shows(target)`: whether the caller may learn of a related entity (it holds its metadata scope). */
export function describeEntity(entity: CatalogEntity, baseUrl: string, shows: (target: string) => boolean) {
  const entityUrl = `${baseUrl}/v1/datasets/${entity.datasetId}/entities/${entity.name}`;
  return {
    dataset_id: entity.datasetId,
    entity: entity.name,
    title: entity.title,
    description: entity.description,
    concept_uri: entity.conceptUri ?? null,
    primary_key: entity.primaryKey.name,
    fields: entity.fields.map((field) => ({
      name: field.name,
      type: field.type,
      nullable: field.nullable,
      sensitive: field.sensitive,
      concept_uri: field.conceptUri ?? null,
      codelist: field.codelist ?? null,
      unit: field.unit ?? null,
      language: field.language ?? null,
      description: field.description ?? null,
    })),
    filters: [...entity.api.allowedFilters].map(([field, ops]) => ({ field, ops: [...ops] })),
    required_filters: entity.api.requiredFilters,
    requires_purpose: entity.api.requirePurpose,
    limits: { default_limit: entity.api.defaultLimit, max_limit: entity.api.maxLimit },
    relationships: [...entity.relationships.values()]
      .filter((rel) => shows(rel.target))
      .map((rel) => ({
        name: rel.name,
        kind: rel.kind,
        target: rel.target,
        foreign_key: rel.foreignKey,
        concept_uri: rel.conceptUri ?? null,
        expandable: entity.api.allowedExpansions.has(rel.name),
      })),
    links: { self: `${entityUrl}/schema`, records: `${entityUrl}/records` },
  };
}
