// The part of a model one caller may see: visible datasets and entities, their offerings, and only those
// catalog-level items (services, requirements, evidence types, codelists...) reachable from them.
import { deepFreeze } from '../../../platform/config/validate-config.ts';
import type { MetadataModel, PublicService } from './metadata-model.ts';

export interface MetadataVisibility {
  dataset(datasetId: string): boolean;
  entity(datasetId: string, entity: string): boolean;
  /** Aggregates have a metadata scope of their own. */
  aggregate(datasetId: string, aggregate: string): boolean;
}

/**
 * Nothing about an invisible dataset survives: its entities, offerings and schemas go, references to it are
 * dropped from services, and only the catalog-level items the visible datasets reach are kept. A view therefore
 * depends on the visible datasets alone, never on which other datasets exist.
 */
export function scopeMetadataModel(model: MetadataModel, visibility: MetadataVisibility): MetadataModel {
  // Only a static publication keeps items no dataset reaches. A caller who happens to see every dataset gets what
  // they reach, like any other caller: otherwise adding a dataset it cannot see would drop those items from its
  // answers (and change their ETags), telling it that the dataset exists.
  if (visibility === EVERYTHING_VISIBLE) return model;
  const datasets = model.datasets
    .filter((dataset) => visibility.dataset(dataset.id))
    .map((dataset) => {
      // A visible entity names no related entity the caller may not see (by its relationships).
      const entities = dataset.entities
        .filter((entity) => visibility.entity(dataset.id, entity.name))
        .map((entity) => ({
          ...entity,
          relationships: entity.relationships.filter((rel) => visibility.entity(dataset.id, rel.target)),
        }));
      const names = new Set(entities.map((entity) => entity.name));
      return {
        ...dataset,
        entities,
        offerings: dataset.offerings.filter((o) => names.has(o.entity)),
        aggregates: dataset.aggregates.filter((aggregate) => visibility.aggregate(dataset.id, aggregate.id)),
      };
    });
  const datasetIds = new Set(datasets.map((dataset) => dataset.id));
  const offerings = datasets.flatMap((dataset) => dataset.offerings);
  const contexts = new Set(offerings.flatMap((offering) => offering.procedureContexts));

  const dataServices = model.dataServices
    .filter((service) => service.servesDatasets.some((id) => datasetIds.has(id)))
    .map((service) => ({
      ...service,
      servesDatasets: service.servesDatasets.filter((id) => datasetIds.has(id)),
    }));
  const dataServiceIds = new Set(dataServices.map((service) => service.id));

  const reachesVisible = (service: PublicService) =>
    contexts.has(service.id) ||
    service.produces.some((id) => datasetIds.has(id)) ||
    service.dataServices.some((id) => dataServiceIds.has(id));
  const services = model.publicServices.filter(reachesVisible).map((service) => ({
    ...service,
    produces: service.produces.filter((id) => datasetIds.has(id)),
    dataServices: service.dataServices.filter((id) => dataServiceIds.has(id)),
  }));
  const serviceIds = new Set(services.map((service) => service.id));

  const evidenceTypeIds = new Set(offerings.map((offering) => offering.evidenceType.id));
  const evidenceTypes = model.evidenceTypes.filter((type) => evidenceTypeIds.has(type.id));
  const requirementIds = new Set([
    ...evidenceTypes.flatMap((type) => type.proves),
    ...services.flatMap((service) => service.holdsRequirements),
  ]);
  const requirements = model.requirements
    .filter((requirement) => requirementIds.has(requirement.id))
    .map((requirement) => ({
      ...requirement,
      evidenceTypeLists: requirement.evidenceTypeLists
        .map((list) => ({
          ...list,
          evidenceTypes: list.evidenceTypes.filter((id) => evidenceTypeIds.has(id)),
        }))
        .filter((list) => list.evidenceTypes.length > 0),
    }));

  const formIds = new Set(services.flatMap((service) => service.forms));
  const forms = model.forms.filter(
    (form) => formIds.has(form.id) || (form.service !== undefined && serviceIds.has(form.service)),
  );
  const authorityIds = new Set([
    ...services.flatMap((service) => service.competentAuthority ?? []),
    ...offerings.map((offering) => offering.issuingAuthority.id),
  ]);
  const agentIris = new Set(
    [model.catalog.publisher, ...datasets.flatMap((dataset) => dataset.publisher ?? [])].flatMap(
      (a) => a.iri ?? [],
    ),
  );
  const codelistIds = new Set([
    ...datasets.flatMap((dataset) =>
      dataset.entities.flatMap((entity) => entity.fields.flatMap((field) => field.codelist ?? [])),
    ),
    ...forms.flatMap((form) =>
      [...form.fields, ...form.sections.flatMap((section) => section.fields)].flatMap(
        (f) => f.codelist ?? [],
      ),
    ),
  ]);

  return deepFreeze({
    ...model,
    datasets,
    codelists: model.codelists.filter((codelist) => codelistIds.has(codelist.id)),
    requirements,
    evidenceTypes,
    authorities: model.authorities.filter(
      (authority) =>
        authorityIds.has(authority.id) || (authority.iri !== undefined && agentIris.has(authority.iri)),
    ),
    publicServices: services,
    dataServices,
    forms,
  });
}

/** Every dataset, entity and aggregate: the view of a static publication. */
export const EVERYTHING_VISIBLE: MetadataVisibility = {
  dataset: () => true,
  entity: () => true,
  aggregate: () => true,
};
